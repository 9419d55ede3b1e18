"""Settings: flags > environment > config file > defaults.

The config file is TOML at the platform's config folder (``hippo-tui/config.toml``) or ``--config PATH``.
A bad file is reported with its path, the line and the key, and nothing starts on half a config.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, Self

import platformdirs

from hippo_tui.safe_text import one_line

APP_NAME = "hippo-tui"

BackendName = Literal["offline", "openai", "replay"]


class ConfigError(Exception):
    """A configuration problem a user can fix; the message names the file, line and key."""


class SettingError(ValueError):
    """One bad value or unknown key: ``loc`` is the key's path (``("keys", "help")``)."""

    def __init__(self, loc: tuple[str, ...], msg: str) -> None:
        super().__init__(f"{'.'.join(loc)}: {msg}")
        self.loc, self.msg = loc, msg


# Checks turn a value from a file, the environment or a flag into the setting's type, or raise ValueError
# with the message shown to the user. Plain code, not a pydantic model: every command and the app's first
# frame load the settings, and pydantic's import alone is a fifth of a second here.
Check = Callable[[Any], Any]


def as_text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("Input should be a valid string")
    return value


def as_path(value: Any) -> Path:
    return value if isinstance(value, Path) else Path(as_text(value))


def one_of(*choices: str) -> Check:
    def check(value: Any) -> str:
        if value not in choices:
            names = [repr(c) for c in choices]
            raise ValueError(f"Input should be {', '.join(names[:-1])} or {names[-1]}")
        return str(value)

    return check


def number(kind: type[int] | type[float], *, gt: float | None = None, ge: float | None = None,
           le: float | None = None) -> Check:  # fmt: skip
    noun = "integer" if kind is int else "number"

    def check(value: Any) -> int | float:
        try:  # never quote the value: a misplaced API key must not be echoed
            if isinstance(value, bool) or (
                kind is int and isinstance(value, float) and not value.is_integer()
            ):
                raise ValueError
            n = kind(value)
        except (TypeError, ValueError):
            raise ValueError(f"Input should be a valid {noun}") from None
        if gt is not None and not n > gt:
            raise ValueError(f"Input should be greater than {gt:g}")
        if ge is not None and not n >= ge:
            raise ValueError(f"Input should be greater than or equal to {ge:g}")
        if le is not None and not n <= le:
            raise ValueError(f"Input should be less than or equal to {le:g}")
        return n

    return check


class Setting:
    """One field of ``Settings``: its default and its check (None is allowed where it is the default)."""

    def __init__(self, default: Any, check: Check, *, factory: Callable[[], Any] | None = None) -> None:
        self.default, self.check, self.factory = default, check, factory
        self.nullable = default is None and factory is None

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else obj.__dict__[self.name]

    def __set__(self, obj: Any, value: Any) -> None:  # every assignment is checked, as at load time
        obj.__dict__[self.name] = self.convert(value)
        obj.__dict__["_set"].add(self.name)

    def initial(self) -> Any:
        return self.factory() if self.factory else self.default

    def convert(self, value: Any) -> Any:
        if value is None and self.nullable:
            return None
        try:
            return self.check(value)
        except SettingError as e:
            raise SettingError((self.name, *e.loc), e.msg) from None
        except ValueError as e:
            raise SettingError((self.name,), str(e)) from None


def setting(default: Any, check: Check, *, factory: Callable[[], Any] | None = None) -> Any:
    """A ``Settings`` field (typed Any, like ``dataclasses.field``, so the annotation states its type)."""
    return Setting(default, check, factory=factory)


def key_map(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise ValueError("Input should be a valid dictionary")
    out = {}
    for k, v in value.items():
        try:
            out[as_text(k)] = as_text(v)
        except ValueError as e:
            raise SettingError((str(k),), str(e)) from None
    return out


class Settings:
    """What the app and every command run with. ``Settings(**values)`` checks each value (so does every
    assignment) and raises SettingError on a bad or unknown one. The ``model_*`` methods are the few that
    callers need of a model: validate a mapping, dump, copy with changes, which fields were given."""

    # Which model: no base URL means the embedded offline backend.
    backend: BackendName | None = setting(None, one_of("offline", "openai", "replay"))
    base_url: str | None = setting(None, as_text)
    model: str | None = setting(None, as_text)
    api_key: str | None = setting(None, as_text)  # never in repr()
    # A `hippo-tui serve` to be a thin client of (the engine is there), and the bearer token for it.
    server: str | None = setting(None, as_text)
    token: str | None = setting(None, as_text)  # never in repr()

    # Where data lives (KB + audit DB). None: HIPPO_HOME, else the platform's user data folder.
    home: Path | None = setting(None, as_path)
    kb: Path | None = setting(None, as_path)  # a JSONL knowledge base to use instead of the bundled demo
    # The store: a postgresql:// URL, an SQLite file (a path or sqlite:///path); None: the data folder's file.
    database: str | None = setting(None, as_text)  # never in repr() (a URL may hold a password)

    system_prompt: str | None = setting(None, as_text)  # None: the built-in prompt
    policy: Path | None = setting(None, as_path)  # extra safety rules (TOML)
    hold: Literal["adaptive", "fixed"] = setting("adaptive", one_of("adaptive", "fixed"))
    grounding_timeout: float = setting(12.0, number(float, gt=0))
    # The longest answer the model may write, in tokens (sent as max_tokens on every answer request): a
    # small local model otherwise writes until its context is full, minutes later.
    max_tokens: int = setting(1024, number(int, ge=16, le=1_000_000))
    offline_tokens_per_second: float = setting(40.0, number(float, ge=0))  # 0 = unlimited
    retrieval_k: int = setting(5, number(int, ge=1, le=20))
    history_turns: int = setting(6, number(int, ge=0, le=50))
    replay: Path | None = setting(None, as_path)
    record: Path | None = setting(None, as_path)
    replay_speed: float = setting(1.0, number(float, ge=0))  # 0 = unlimited
    theme: str | None = setting(None, as_text)
    # `kb ingest`: what parsing one document may take (a hostile file fails alone; see hippo_tui.ingest.limits).
    ingest_memory_mb: int = setting(2048, number(int, ge=256, le=1_048_576))
    ingest_seconds: float = setting(60.0, number(float, gt=0, le=86_400))
    ingest_unpacked_mb: int = setting(200, number(int, ge=1, le=1_048_576))
    # action -> key, e.g. {"toggle_sidebar": "f2"}
    keys: dict[str, str] = setting(None, key_map, factory=dict)

    def __init__(self, **values: Any) -> None:
        unknown = [k for k in values if k not in FIELDS]
        if unknown:
            raise SettingError((unknown[0],), "unknown key")
        self.__dict__["_set"] = set()
        for name, field in FIELDS.items():
            if name in values:
                setattr(self, name, values[name])
            else:
                self.__dict__[name] = field.initial()

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in FIELDS:
            raise SettingError((name,), "unknown key")
        super().__setattr__(name, value)

    @classmethod
    def model_validate(cls, values: Mapping[str, Any]) -> Self:
        return cls(**values)

    @property
    def model_fields_set(self) -> set[str]:
        return set(self.__dict__["_set"])

    def model_dump(self) -> dict[str, Any]:
        return {name: _copied(self.__dict__[name]) for name in FIELDS}

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        copy = type(self)(**{k: self.__dict__[k] for k in self.model_fields_set})
        for k, v in (update or {}).items():
            setattr(copy, k, v)
        return copy

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        shown = (f"{k}={self.__dict__[k]!r}" for k in FIELDS if k not in ("api_key", "token", "database"))
        return f"Settings({', '.join(shown)})"

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


FIELDS: dict[str, Setting] = {k: v for k, v in vars(Settings).items() if isinstance(v, Setting)}


def _copied(value: Any) -> Any:
    return dict(value) if isinstance(value, dict) else value


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / "config.toml"


# Environment variables, most specific first.
_ENV: dict[str, tuple[str, ...]] = {
    "base_url": ("HIPPO_BASE_URL", "OPENAI_BASE_URL"),
    "model": ("HIPPO_MODEL",),
    "api_key": ("HIPPO_API_KEY", "OPENAI_API_KEY"),
    "home": ("HIPPO_HOME",),
    "database": ("HIPPO_DATABASE",),
    "backend": ("HIPPO_BACKEND",),
    "max_tokens": ("HIPPO_MAX_TOKENS",),
    "server": ("HIPPO_SERVER",),
    "token": ("HIPPO_TOKEN",),
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


MAX_CONFIG_BYTES = 1_000_000  # a settings file is a few hundred bytes; /dev/zero or a huge file is refused unread


def load_file(path: Path) -> dict[str, Any]:
    """Read and check a config file; raise ConfigError naming the file, line and key."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config file: {e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{path}: not a regular file (a config file is a TOML text file)")
    if st.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: {st.st_size:,} bytes; a config file may be at most {MAX_CONFIG_BYTES:,}")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read config file: {e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {one_line(str(e))}") from None
    except (ValueError, RecursionError):  # a 5,000-digit number, arrays nested thousands deep
        raise ConfigError(f"{path}: not a config file: a number or a nesting far too large") from None
    try:
        Settings.model_validate(data)
    except SettingError as e:
        key = one_line(".".join(e.loc) or "?")  # keys and values are the file's text: echoed inert
        line = _line_of(text, e.loc)
        where = f"line {line}, " if line else ""
        raise ConfigError(f"{path}: {where}key '{key}': {one_line(e.msg)}") from None
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
    except SettingError as e:
        # The file was checked on its own: a bad value here came from a flag or the environment; say which
        # (never the value itself: it may be the API key).
        key = e.loc[0] if e.loc else "?"
        if key in set_flags:
            where = _FLAG_NAMES.get(key, "--" + key.replace("_", "-"))
        elif key in env_names:
            where = f"{env_names[key]} (environment)"
        else:
            where = f"setting '{key}'"
        raise ConfigError(f"{where}: {e.msg}") from None
