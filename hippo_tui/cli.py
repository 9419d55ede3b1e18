"""The ``hippo-tui`` entry point: the app by default, and the ``ask``, ``verify``, ``kb`` and ``audit`` sub-commands.

Exit codes (also in the README):
  0 answered / done · 1 the answer was withdrawn or cancelled · 2 usage or configuration error
  3 model or server error · 4 knowledge base or audit database error · 141 the output's reader stopped early
  verify only: 5 a citation was flagged or ungrounded · 6 not everything could be checked
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hippo_tui import __version__
from hippo_tui.config import ConfigError, Settings, load_settings

EXIT_OK, EXIT_WITHDRAWN, EXIT_USAGE, EXIT_MODEL, EXIT_STORE = 0, 1, 2, 3, 4
EXIT_PIPE = 141  # what a shell reports for a command its reader stopped early (128 + SIGPIPE)

# Flags that map one-to-one onto Settings fields.
_SETTING_FLAGS = (
    "backend",
    "base_url",
    "model",
    "api_key",
    "home",
    "kb",
    "record",
    "replay",
    "replay_speed",
    "policy",
    "grounding_timeout",
    "max_tokens",
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
    g.add_argument("--kb", type=Path, help="a JSONL knowledge base to load instead of the bundled demo")
    g.add_argument("--policy", type=Path, help="extra safety rules (TOML)")
    g.add_argument("--grounding-timeout", type=float, help="seconds for the grounding check (default 12)")
    g.add_argument(
        "--max-tokens", type=int, help="longest answer, in tokens (default 1024; env HIPPO_MAX_TOKENS)"
    )
    g.add_argument("--record", type=Path, help="record the model's raw stream to this cassette (JSONL)")
    g.add_argument("--replay", type=Path, help="replay a recorded cassette instead of calling a model")
    g.add_argument("--speed", dest="replay_speed", type=float, help="replay speed factor (0 = unlimited)")
    return p


def settings_from_args(args: argparse.Namespace) -> Settings:
    flags: dict[str, Any] = {k: getattr(args, k, None) for k in _SETTING_FLAGS}
    return load_settings(flags, config_path=getattr(args, "config", None))


Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    from hippo_tui.commands import ask, audit, kb, verify

    common = settings_parser()
    parser = argparse.ArgumentParser(
        prog="hippo-tui",
        description="A medical assistant whose citations can be checked. With no command, starts the app.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"hippo-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (ask, verify, kb, audit):
        module.register(sub, common)
    parser.set_defaults(func=_run_app)
    return parser


def _run_app(args: argparse.Namespace) -> int:
    from hippo_tui.ui.app import run_app

    return run_app(settings_from_args(args))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ConfigError as e:
        print(f"hippo-tui: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader stopped early (`hippo-tui kb list | head`): not an error worth a traceback. Point
        # stdout at devnull so the interpreter's final flush does not raise the same thing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
