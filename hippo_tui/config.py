"""Settings: flags > environment > config file > defaults.

The config file is TOML at the platform's config folder (``hippo-tui/config.toml``) or ``--config PATH``.
A bad file is reported with its path, the line and the key, and nothing starts on half a config.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

APP_NAME = "hippo-tui"

BackendName = Literal["offline", "openai", "replay"]


class ConfigError(Exception):
    """A configuration problem a user can fix; the message names the file, line and key."""


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # Which model: no base URL means the embedded offline backend.
    backend: BackendName | None = None
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = Field(default=None, repr=False)

    # Where data lives (KB + audit DB). None: HIPPO_HOME, else the platform's user data folder.
    home: Path | None = None
    kb: Path | None = None  # a JSONL knowledge base to use instead of the bundled demo

    system_prompt: str | None = None  # None: the built-in prompt
    policy: Path | None = None  # extra safety rules (TOML)
    hold: Literal["adaptive", "fixed"] = "adaptive"
    grounding_timeout: float = Field(default=12.0, gt=0)
    # The longest answer the model may write, in tokens (sent as max_tokens on every answer request): a
    # small local model otherwise writes until its context is full, minutes later.
    max_tokens: int = Field(default=1024, ge=16, le=1_000_000)
    offline_tokens_per_second: float = Field(default=40.0, ge=0)  # 0 = unlimited
    retrieval_k: int = Field(default=5, ge=1, le=20)
    history_turns: int = Field(default=6, ge=0, le=50)
    replay: Path | None = None
    record: Path | None = None
    replay_speed: float = Field(default=1.0, ge=0)  # 0 = unlimited
    theme: str | None = None
    keys: dict[str, str] = Field(default_factory=dict)  # action -> key, e.g. {"toggle_sidebar": "f2"}

    def resolved_backend(self) -> BackendName:
        if self.backend:
            return self.backend
        if self.replay:
            return "replay"
        return "openai" if self.base_url else "offline"

    def data_dir(self) -> Path:
        return self.home or Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))

    def db_path(self) -> Path:
        return self.data_dir() / "hippo.db"


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / "config.toml"


# Environment variables, most specific first.
_ENV: dict[str, tuple[str, ...]] = {
    "base_url": ("HIPPO_BASE_URL", "OPENAI_BASE_URL"),
    "model": ("HIPPO_MODEL",),
    "api_key": ("HIPPO_API_KEY", "OPENAI_API_KEY"),
    "home": ("HIPPO_HOME",),
    "backend": ("HIPPO_BACKEND",),
    "max_tokens": ("HIPPO_MAX_TOKENS",),
}


# Flags whose name is not the setting's name with dashes.
_FLAG_NAMES = {"replay_speed": "--speed"}


def _from_env(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings the environment sets, and for each the variable it came from."""
    out: dict[str, Any] = {}
    names: dict[str, str] = {}
    for key, candidates in _ENV.items():
        for name in candidates:
            if env.get(name):
                out[key], names[key] = env[name], name
                break
    return out, names


def _line_of(text: str, loc: tuple[Any, ...]) -> int | None:
    """The line of the key at ``loc`` (``("keys", "help")``): inside its ``[table]`` if it has one."""
    parts = [str(p) for p in loc]
    if not parts:
        return None

    def key(name: str) -> re.Pattern[str]:
        return re.compile(rf"^[ \t]*{re.escape(name)}[ \t]*=", re.M)

    def table(name: str) -> re.Pattern[str]:
        return re.compile(rf"^[ \t]*\[\[?[ \t]*{re.escape(name)}[ \t]*\]", re.M)

    m = None
    if len(parts) > 1 and (head := table(".".join(parts[:-1])).search(text)):
        nxt = re.compile(r"^[ \t]*\[", re.M).search(text, head.end())
        m = key(parts[-1]).search(text, head.end(), nxt.start() if nxt else len(text)) or head
    m = m or key(parts[0]).search(text) or table(parts[0]).search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def load_file(path: Path) -> dict[str, Any]:
    """Read and check a config file; raise ConfigError naming the file, line and key."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read config file: {e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    try:
        Settings.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "?"
        line = _line_of(text, err["loc"])
        where = f"line {line}, " if line else ""
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        raise ConfigError(f"{path}: {where}key '{key}': {msg}") from None
    # Relative paths in the file are relative to the file, not to wherever the app was started.
    for k in ("home", "kb", "policy", "replay", "record"):
        if k in data and not Path(data[k]).expanduser().is_absolute():
            data[k] = str(path.parent / data[k])
        elif k in data:
            data[k] = str(Path(data[k]).expanduser())
    return data


def load_settings(
    flags: Mapping[str, Any] | None = None,
    *,
    config_path: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Merge defaults, the config file, the environment and flags (later wins). Flags set to None are unset."""
    env = os.environ if env is None else env
    merged: dict[str, Any] = {}
    path = config_path or (Path(env["HIPPO_CONFIG"]) if env.get("HIPPO_CONFIG") else None)
    if path is not None:
        merged.update(load_file(path))  # an explicit file must exist
    elif default_config_path().is_file():
        merged.update(load_file(default_config_path()))
    from_env, env_names = _from_env(env)
    merged.update(from_env)
    set_flags = {k: v for k, v in (flags or {}).items() if v is not None}
    merged.update(set_flags)
    try:
        return Settings.model_validate(merged)
    except ValidationError as e:
        # The file was checked on its own: a bad value here came from a flag or the environment; say which
        # (never the value itself: it may be the API key).
        err = e.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else "?"
        if key in set_flags:
            where = _FLAG_NAMES.get(key, "--" + key.replace("_", "-"))
        elif key in env_names:
            where = f"{env_names[key]} (environment)"
        else:
            where = f"setting '{key}'"
        raise ConfigError(f"{where}: {err['msg']}") from None
