"""`hippo-tui eval QUESTIONS.jsonl`: a question set through the engine, with a summary; `--compare A B`;
`eval judge PAIRS.jsonl`: a grounding judge on labelled claim–excerpt pairs.

Exit codes (also in the README):
  eval:      0 the run finished · 2 usage (a bad question line, flag or file) · 3 every question failed with
             a model or server error · 4 knowledge base or audit database error · 130 stopped with ctrl+c
             (the questions that finished are written and summarised)
  judge:     0 the pairs were judged · 2 usage (a bad pairs line or file) · 3 the model judge answered none
  --compare: 0 B is not worse on any --fail-on metric · 1 it is · 2 usage (a file that is not a run, an
             unknown metric, a metric one of the runs did not measure)
"""

from __future__ import annotations

import argparse
from pathlib import Path


def _positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return n


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "eval",
        parents=[common],
        help="run a question set and measure the answers (or --compare two runs)",
        description='Ask every question of a JSONL file (one {"question", "expect_sources", '
        '"expect_abstain"} a line; default: the demo question set) and summarise how the answers and '
        "their citations fared. With --record DIR, one cassette per question; --replay DIR plays them back.",
    )
    p.add_argument("questions", nargs="?", type=Path, metavar="QUESTIONS.jsonl | judge")
    p.add_argument("pairs", nargs="?", type=Path, metavar="PAIRS.jsonl", help="with judge: the labelled pairs")
    p.add_argument(
        "--prompt", type=Path, metavar="FILE", help="system prompt to use instead of the built-in one"
    )
    p.add_argument(
        "--concurrency", type=_positive, default=1, metavar="N", help="questions at a time (default 1)"
    )
    p.add_argument(
        "--json", type=Path, metavar="OUT", dest="json_out", help="write the run (or comparison) as JSON"
    )
    p.add_argument("--compare", nargs=2, type=Path, metavar=("A.json", "B.json"), help="compare two runs")
    p.add_argument(
        "--fail-on", metavar="METRIC[,METRIC]", help="with --compare: exit 1 when B is worse than A on one"
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    # The engine, the model client and the evaluation load here, not when the parser is built.
    if args.questions == Path("judge"):
        from hippo_tui.commands.eval_judge import run as judge

        return judge(args)
    from hippo_tui.commands.eval_run import run

    return run(args)
