"""`hippo-tui verify FILE`: check the citations of an answer written elsewhere against the knowledge base.

Both checks run as they do for the app's own answers, with the configured judge (the offline one by
default, the server's model with --base-url), and the check is kept in the audit record (backend
``verify``). Input that is not an answer (empty, binary, JSON of another kind) is a usage error and nothing
is recorded. What the input may be: ``hippo_tui.verification.answer_files``.

Exit codes: 0 every citation passed both checks · 5 a citation was flagged (missing, retired) or
ungrounded · 6 nothing failed, but not everything was checked: the answer cites nothing, check two gave no
verdict for a citation, or a numbered marker names no source. An answer that cites nothing is not a passed
answer: nothing in it was checked, and a script that gates on exit 0 must not take it for one.
2 usage (no such file, not an answer) · 4 knowledge base or audit database.

The check itself is in ``verify_run``, imported when the command runs: building the parser stays light.
"""

from __future__ import annotations

import argparse

from hippo_tui.commands._common import EXIT_FLAGGED, EXIT_NOT_ALL_CHECKED

__all__ = ["EXIT_FLAGGED", "EXIT_NOT_ALL_CHECKED", "register"]


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "verify",
        parents=[common],
        help="check the citations of an answer written elsewhere (a file, an export, - for stdin)",
        description="Check every citation of an answer against the knowledge base: check one (the source "
        "exists and is current) and check two (its excerpt supports the claims). Exit codes: 0 every citation "
        "passed, 5 one was flagged or ungrounded, 6 not everything could be checked (e.g. nothing is cited), "
        "2 usage, 4 knowledge base or audit database.",
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="text with [source-id] markers, a conversation export (.md or .json), `ask --json` output, "
        "or - for standard input",
    )
    p.add_argument("--turn", type=int, help="which answer of a conversation export (default: the last)")
    p.add_argument("--json", action="store_true", help="print one JSON object: citations, summary, text")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from hippo_tui.commands.verify_run import run

    return run(args)
