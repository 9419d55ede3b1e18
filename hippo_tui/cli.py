"""The ``hippo-tui`` entry point: the app by default, and the ``ask``, ``verify``, ``kb``, ``audit``, ``eval``,
``serve`` and ``token`` sub-commands.

Exit codes (also in the README):
  0 answered / done · 1 the answer was withdrawn or cancelled · 2 usage or configuration error
  3 model or server error · 4 knowledge base or audit database error · 141 the output's reader stopped early
  verify only: 5 a citation was flagged or ungrounded · 6 not everything could be checked
  eval: 3 only when every question failed with a model error · 130 stopped (Esc, ctrl+c) · --compare: 1 when
  B is worse than A on a --fail-on metric (see ``hippo_tui.commands.eval``)

Building the parser imports only the standard library: `--version` and `--help` answer at once, and each
command imports what it needs (settings, store, model client, Textual) when it runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from hippo_tui import __version__
from hippo_tui.commands._common import (
    EXIT_MODEL,
    EXIT_OK,
    EXIT_PIPE,
    EXIT_STORE,
    EXIT_USAGE,
    EXIT_WITHDRAWN,
    settings_from_args,
    settings_parser,
)

# The exit codes are part of the command line's contract: importable from here.
__all__ = [
    "EXIT_MODEL",
    "EXIT_OK",
    "EXIT_PIPE",
    "EXIT_STORE",
    "EXIT_USAGE",
    "EXIT_WITHDRAWN",
    "build_parser",
    "main",
]


# The top-level commands, each with the module of ``hippo_tui.commands`` that registers it. A command line that
# starts with one needs that one's parser only (building every command's, their options each with the common
# ones, is a twentieth of an offline ask), and that one's module: the others are imported for ``--help`` alone.
COMMANDS = {"ask": "ask", "verify": "verify", "kb": "kb", "audit": "audit", "eval": "eval", "serve": "serve",
            "token": "serve", "db": "db"}  # fmt: skip
_IN_HELP_ORDER = ("ask", "verify", "kb", "audit", "eval", "serve", "db")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or the top level with only ``command`` (a key of ``COMMANDS``) under it: a
    command line starting with that command parses, helps and fails the same with either."""
    common = settings_parser()
    parser = argparse.ArgumentParser(
        prog="hippo-tui",
        description="A medical assistant whose citations can be checked. With no command, starts the app.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"hippo-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _IN_HELP_ORDER if command is None else (COMMANDS[command],):
        importlib.import_module(f"hippo_tui.commands.{name}").register(sub, common)
    parser.set_defaults(func=_run_app)
    return parser


def _run_app(args: argparse.Namespace) -> int:
    from hippo_tui.startup import loading

    with loading("app"):
        from hippo_tui.ui.app import run_app

    return run_app(settings_from_args(args))


def _config_error(e: Exception) -> bool:
    """``e`` is a ConfigError. The settings module is not imported here to ask: a command loads it with its own
    modules (``startup.loading``), where loading costs less, and one that never loaded it raised none."""
    config = sys.modules.get("hippo_tui.config")
    return config is not None and isinstance(e, config.ConfigError)


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # this process's own command line, not a test's or an embedder's call
        from hippo_tui import startup

        startup.own_process()
    argv = sys.argv[1:] if argv is None else list(argv)
    named = argv[0] if argv and argv[0] in COMMANDS else None
    args = build_parser(named).parse_args(argv)  # --version and --help exit here, before any heavy import
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader stopped early (`hippo-tui kb list | head`): not an error worth a traceback. Point
        # stdout at devnull so the interpreter's final flush does not raise the same thing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
    except Exception as e:
        if not _config_error(e):
            raise
        print(f"hippo-tui: {e}", file=sys.stderr)
        return EXIT_USAGE
