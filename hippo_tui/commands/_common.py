"""What every sub-command shares: exit codes, the settings flags, and opening the store around a command.

Kept light on purpose: ``cli`` imports this to build the parser, so ``hippo-tui --version`` and ``--help``
load nothing here but the standard library. The settings (pydantic) and the store (aiosqlite) are imported
when a command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from hippo_tui.safe_text import sanitize

if TYPE_CHECKING:
    from hippo_tui.config import Settings
    from hippo_tui.store import Store

EXIT_OK, EXIT_WITHDRAWN, EXIT_USAGE, EXIT_MODEL, EXIT_STORE = 0, 1, 2, 3, 4
EXIT_PIPE = 141  # what a shell reports for a command its reader stopped early (128 + SIGPIPE)
EXIT_FLAGGED, EXIT_NOT_ALL_CHECKED = 5, 6  # verify only (see hippo_tui.commands.verify)

Handler = Callable[[argparse.Namespace], int]
StoreCommand = Callable[["Store", argparse.Namespace], Awaitable[int]]

# Flags that map one-to-one onto Settings fields.
_SETTING_FLAGS = (
    "backend",
    "base_url",
    "model",
    "api_key",
    "home",
    "kb",
    "database",
    "record",
    "replay",
    "replay_speed",
    "policy",
    "grounding_timeout",
    "max_tokens",
    "server",
    "token",
)


def settings_parser() -> argparse.ArgumentParser:
    """The flags every command shares (model, data, cassettes). Used as a parent parser."""
    # SUPPRESS: an absent flag sets nothing, so `hippo-tui --model m ask …` is not undone by the sub-parser.
    p = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    g = p.add_argument_group("model and data")
    g.add_argument("--config", type=Path, help="config file (TOML); default: the platform's config folder")
    g.add_argument(
        "--backend", choices=["offline", "openai", "replay"], help="default: offline unless --base-url"
    )
    g.add_argument("--base-url", help="an OpenAI-compatible server, e.g. http://localhost:11434/v1")
    g.add_argument("--model", help="model name on that server")
    g.add_argument("--api-key", help="API key (prefer HIPPO_API_KEY or OPENAI_API_KEY)")
    g.add_argument("--home", type=Path, help="data folder for the KB and audit database (env HIPPO_HOME)")
    g.add_argument(
        "--database",
        metavar="URL",
        help="the store: postgresql://user@host/db for a team's shared one, or an SQLite file "
        "(env HIPPO_DATABASE; default: the data folder's hippo.db)",
    )
    g.add_argument("--kb", type=Path, help="a JSONL knowledge base to load instead of the bundled demo")
    g.add_argument("--policy", type=Path, help="extra safety rules (TOML)")
    g.add_argument("--grounding-timeout", type=float, help="seconds for the grounding check (default 12)")
    g.add_argument(
        "--max-tokens", type=int, help="longest answer, in tokens (default 1024; env HIPPO_MAX_TOKENS)"
    )
    g.add_argument("--record", type=Path, help="record the model's raw stream to this cassette (JSONL)")
    g.add_argument("--replay", type=Path, help="replay a recorded cassette instead of calling a model")
    g.add_argument("--speed", dest="replay_speed", type=float, help="replay speed factor (0 = unlimited)")
    g.add_argument("--server", help="a `hippo-tui serve` URL to use as a thin client (env HIPPO_SERVER)")
    g.add_argument("--token", help="the bearer token for --server (prefer HIPPO_TOKEN)")
    return p


def settings_from_args(args: argparse.Namespace) -> Settings:
    from hippo_tui.config import load_settings

    flags: dict[str, Any] = {k: getattr(args, k, None) for k in _SETTING_FLAGS}
    return load_settings(flags, config_path=getattr(args, "config", None))


def print_error(message: str) -> None:
    print(f"hippo-tui: {sanitize(message)}", file=sys.stderr)


def run_with_store(args: argparse.Namespace, command: StoreCommand, *, remote: bool = False) -> int:
    """Open the store the settings point at, run ``command``, close it; store errors become exit codes."""
    from hippo_tui.startup import loading

    with loading("store"):
        import asyncio

        from hippo_tui.store import KBImportError, NotFound, StoreError, open_store

    settings = settings_from_args(args)
    if settings.server and not remote:
        print_error(f"`{args.command}` with this action reads the data folder itself; it does not run with "
                    "--server (HIPPO_SERVER): run it where the server's data folder is")  # fmt: skip
        return EXIT_USAGE

    async def go() -> int:
        if settings.server:
            return await _on_server(settings.server, settings.token, command, args)
        # The same database the app and `ask` use: the main one, or the --kb file's own.
        store = await open_store(settings)
        try:
            return await command(store, args)
        finally:
            await store.close()

    try:
        return asyncio.run(go())
    except (KBImportError, NotFound) as e:  # bad input: a bad file, an unknown id
        print_error(str(e))
        return EXIT_USAGE
    except StoreError as e:
        print_error(str(e))
        return EXIT_STORE
    except ValueError as e:
        print_error(str(e))
        return EXIT_USAGE


async def _on_server(url: str, token: str | None, command: StoreCommand, args: argparse.Namespace) -> int:
    """``command`` on a server's records (imported only then: httpx is not light)."""
    from hippo_tui.commands.remote_records import RemoteRecords
    from hippo_tui.engine.remote import RemoteEngine
    from hippo_tui.engine.remote_errors import RemoteError

    try:
        records = RemoteRecords(await RemoteEngine.connect(url, token, client="http"))
        try:
            return await command(records, args)  # type: ignore[arg-type]  # the calls these commands make
        finally:
            await records.close()
    except RemoteError as e:
        print_error(f"{e.message}\n  → {e.action}")
        return EXIT_USAGE if e.kind in ("not_found", "usage") else EXIT_MODEL


def is_tty(stream: TextIO) -> bool:
    """Whether a live status or progress bar belongs on ``stream`` (never on a pipe or a closed stream)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no such method, or a closed stream
        return False


def print_json(data: Any) -> None:
    # ensure_ascii: terminal-hostile characters from an imported file arrive escaped, never raw.
    print(json.dumps(data, ensure_ascii=True, default=str))


def store_handler(command: StoreCommand, *, remote: bool = False) -> Handler:
    """An argparse handler that runs ``command`` on the open store; ``remote``: with ``--server``, on the
    server's records instead (commands that only read answers, stats and search)."""
    return lambda args: run_with_store(args, command, remote=remote)
