"""What search answers, written down, so that a change meant to make it faster can be shown to change nothing.

For every question (the scale bench's synthetic ones, more of the same kind, the demo KB's and the real-corpus
benchmark's questions) one JSON line: the hits of ``search`` (id, score to the last bit, snippet; k=10 with
siblings, so the reranking and the siblings are compared too) and the words ``unmentioned`` reports. Run it
before and after a change on the same database and compare the files (``cmp``):

    python bench/search_snapshot.py DB OUT.jsonl [--synthetic 200] [--kept DIR/questions.json]

A DB that does not exist yet is built from the demo KB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import _questions

from hippo_tui.store import Store

HERE = Path(__file__).resolve().parent


def questions(synthetic: int) -> list[str]:
    """Questions of the scale bench's kind, then the demo KB's and the real-corpus benchmark's."""
    out = _questions(random.Random(7), synthetic)
    for path in (HERE.parent / "kb" / "questions.jsonl", HERE / "data" / "real_questions.jsonl"):
        out += [
            json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines() if line
        ]
    return out


async def snapshot(db: Path, asked: list[str], out: Path) -> None:
    async with Store.open(db) as store:
        with out.open("w", encoding="utf-8") as f:
            for q in asked:
                rows = await store.search_rows(q, k=10, siblings=3)
                hits = [[r.id, r.score.hex(), r.snippet] for r in rows]
                f.write(json.dumps({"q": q, "hits": hits, "unmentioned": await store.unmentioned(q)}) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--synthetic", type=int, default=200)
    parser.add_argument("--kept", type=Path, help="bench_scale's questions.json: its questions first")
    args = parser.parse_args()
    kept = json.loads(args.kept.read_text(encoding="utf-8"))["questions"] if args.kept else []
    asked = kept + questions(args.synthetic)
    asyncio.run(snapshot(args.db, asked, args.out))
    print(f"{len(asked)} questions -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
