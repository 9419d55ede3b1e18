"""`hippo-tui eval judge PAIRS.jsonl [--json OUT]`: the judge the settings name, on labelled pairs.

The offline judge by default; with ``--base-url``/``--model`` (or the environment), the model behind that
server, asked as check two asks it, with the conflict checks over its "grounded". This is how a prompt
developer chooses a judge model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from hippo_tui.commands._common import EXIT_MODEL, EXIT_OK, EXIT_USAGE, print_error, settings_from_args
from hippo_tui.config import ConfigError, Settings
from hippo_tui.evaluation.judging import (
    JudgeReport,
    Pair,
    PairsError,
    load_pairs,
    model_verdicts,
    offline_verdicts,
    report,
    table,
)

OFFLINE_JUDGE = "offline (lexical, precision first)"


def run(args: argparse.Namespace) -> int:
    if args.pairs is None:
        print_error("eval judge needs a pairs file: hippo-tui eval judge PAIRS.jsonl")
        return EXIT_USAGE
    if args.compare or args.fail_on or args.prompt:
        print_error("eval judge takes a pairs file, --json OUT and the model settings only")
        return EXIT_USAGE
    try:
        pairs = load_pairs(args.pairs)
        settings = settings_from_args(args)
    except (PairsError, ConfigError) as e:
        print_error(str(e))
        return EXIT_USAGE
    if settings.resolved_backend() != "openai":
        result = report(OFFLINE_JUDGE, pairs, offline_verdicts(pairs))
    else:
        result = asyncio.run(_model(settings, pairs))
    print(table(result))
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(result.as_json(), indent=2) + "\n", encoding="utf-8")
    if result.unanswered == result.pairs:
        print_error(f"the judge gave no verdict for any pair: {result.note or 'no reply'}")
        return EXIT_MODEL
    return EXIT_OK


async def _model(settings: Settings, pairs: list[Pair]) -> JudgeReport:
    from hippo_tui.backends import open_backend

    backend = open_backend(settings)
    try:
        total = len(pairs)

        def progress(done: int) -> None:
            if sys.stderr.isatty():
                print(f"\r{done}/{total} pairs judged", end="", file=sys.stderr, flush=True)

        verdicts, note = await model_verdicts(
            pairs, backend.client, backend.model, limit=settings.grounding_timeout, progress=progress
        )
    finally:
        await backend.aclose()
    result = report(f"{backend.model} at {backend.base_url}, with the conflict checks", pairs, verdicts)
    result.note = note
    return result
