"""`hippo-tui ask "QUESTION"`: one answer, headless (``ask_run`` does it, imported when the command runs)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "ask",
        parents=[common],
        help="answer one question headless (text, or --json events)",
        description="Answer one question without the app. Exit codes: 0 answered, 1 withdrawn, "
        "2 usage or configuration, 3 model or server error, 4 knowledge base or audit database error.",
    )
    p.add_argument("question", nargs="?", help="the question (with --replay: defaults to the recorded one)")
    p.add_argument("--json", action="store_true", help="print every event as one JSON line")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from hippo_tui.startup import loading

    # The engine, the model client and the event models load here, not when the parser is built.
    with loading("ask"):
        from hippo_tui.commands.ask_run import run
    return run(args)
