"""`eval judge`: how well a grounding judge tells supported claims from unsupported ones, on labelled pairs.

A pairs file has one ``{"claim", "excerpt", "grounded", "kind"}`` a line (``label`` is read for
``grounded``; ``id`` is optional). Any judge runs it the way check two runs: the offline judge, or a model
behind an OpenAI-compatible server whose "grounded" must then survive the same conflict checks
(``checks.conclude``). What counts most is a false "grounded": an unsupported claim a reader would see as
verified.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_tui.backends.local_client import ChatClient
from hippo_tui.models import CitationAttempt
from hippo_tui.verification.checks import conclude, why
from hippo_tui.verification.llm_judge import GroundingRun, ask_judge
from hippo_tui.verification.offline_judge import judge_claim

BATCH = 8  # pairs per request to a model judge: one answer's worth of sources
_NAMESPACE = uuid.UUID("6f1d7c1e-3b7a-4c55-9d7e-0f3f3c1d2a10")  # stable ids for the pairs of a run


class PairsError(Exception):
    """A pairs file that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class Pair:
    claim: str
    excerpt: str
    grounded: bool
    kind: str
    id: str


def _pair(path: Path, n: int, line: str) -> Pair:
    where = f"{path}: line {n}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as e:
        raise PairsError(f"{where}: not JSON ({e.msg})") from None
    if not isinstance(row, dict):
        raise PairsError(f"{where}: expected an object")
    label = row.get("grounded", row.get("label"))
    claim, excerpt = row.get("claim"), row.get("excerpt")
    if not isinstance(claim, str) or not claim.strip() or not isinstance(excerpt, str) or not excerpt.strip():
        raise PairsError(f"{where}: needs a non-empty 'claim' and 'excerpt'")
    if not isinstance(label, bool):
        raise PairsError(f"{where}: 'grounded' must be true or false")
    return Pair(claim, excerpt, label, str(row.get("kind") or "unknown"), str(row.get("id") or n))


def load_pairs(path: Path) -> list[Pair]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PairsError(f"{path}: cannot read it ({e})") from None
    pairs = [_pair(path, n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not pairs:
        raise PairsError(f"{path}: no pairs in it")
    return pairs


@dataclass
class Tally:
    right: int = 0
    total: int = 0
    false_grounded: int = 0

    def add(self, said: bool, truth: bool) -> None:
        self.right += said == truth
        self.total += 1
        self.false_grounded += said and not truth


@dataclass
class JudgeReport:
    judge: str
    pairs: int = 0
    right: int = 0
    false_grounded: int = 0
    false_ungrounded: int = 0
    unanswered: int = 0  # pairs a model judge gave no verdict for (counted as not grounded)
    by_kind: dict[str, Tally] = field(default_factory=dict)
    note: str | None = None  # why some pairs got no verdict

    @property
    def accuracy(self) -> float:
        return self.right / self.pairs if self.pairs else 0.0

    def add(self, pair: Pair, said: bool | None) -> None:
        self.unanswered += said is None
        said = bool(said)
        self.pairs += 1
        self.right += said == pair.grounded
        self.false_grounded += said and not pair.grounded
        self.false_ungrounded += pair.grounded and not said
        self.by_kind.setdefault(pair.kind, Tally()).add(said, pair.grounded)

    def as_json(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "accuracy": round(self.accuracy, 4),
            "false_grounded": self.false_grounded,
            "false_ungrounded": self.false_ungrounded,
            "unanswered": self.unanswered,
            "judge": self.judge,
            "by_kind": {
                k: {"right": t.right, "total": t.total, "false_grounded": t.false_grounded}
                for k, t in sorted(self.by_kind.items())
            },
        }


def offline_verdicts(pairs: Sequence[Pair]) -> list[bool | None]:
    return [judge_claim(p.claim, p.excerpt).supported for p in pairs]


async def model_verdicts(
    pairs: Sequence[Pair],
    client: ChatClient,
    model: str,
    *,
    limit: float,
    progress: Callable[[int], Awaitable[None] | None] | None = None,
) -> tuple[list[bool | None], str | None]:
    """A model judge's verdicts, BATCH pairs a request, each then through the conflict checks. A batch
    that fails leaves its pairs without a verdict; the last failure's reason is returned."""
    out: list[bool | None] = []
    note = None
    for start in range(0, len(pairs), BATCH):
        batch = pairs[start : start + BATCH]
        ids = [str(uuid.uuid5(_NAMESPACE, f"{start + i}")) for i in range(len(batch))]
        items = [
            {"source_id": i, "excerpt": p.excerpt, "claims": [p.claim]}
            for i, p in zip(ids, batch, strict=True)
        ]
        run = GroundingRun(wanted=ids)
        try:
            async with asyncio.timeout(limit):
                await ask_judge(client, model, items, run, seconds=limit)
        except Exception as e:  # one batch's failure is its pairs' missing verdicts, not the run's end
            note = why(e)
        for sid, p in zip(ids, batch, strict=True):
            out.append(_final(run.verdicts.get(sid), p))
        if progress is not None:
            done = progress(len(out))
            if done is not None:
                await done
    return out, note


def _final(grounded: bool | None, pair: Pair) -> bool | None:
    if grounded is None:
        return None
    attempt = CitationAttempt(source_id=str(uuid.uuid4()), claims=[pair.claim], check_one="confirmed")
    conclude(attempt, grounded, pair.excerpt, None)
    return attempt.check_two == "grounded"


def report(judge: str, pairs: Sequence[Pair], verdicts: Sequence[bool | None]) -> JudgeReport:
    out = JudgeReport(judge=judge)
    for pair, said in zip(pairs, verdicts, strict=True):
        out.add(pair, said)
    return out


def table(r: JudgeReport) -> str:
    lines = [f"judge: {r.judge}", f"{'kind':28} {'right':>7} {'false grounded':>15}"]
    for kind, t in sorted(r.by_kind.items()):
        lines.append(f"{kind[:28]:28} {f'{t.right}/{t.total}':>7} {t.false_grounded:>15}")
    lines.append("-" * 52)
    lines.append(f"{'pairs':28} {r.pairs:>7}")
    lines.append(f"{'accuracy':28} {100 * r.accuracy:>6.1f}%")
    lines.append(f"{'false grounded':28} {r.false_grounded:>7}")
    lines.append(f"{'false ungrounded':28} {r.false_ungrounded:>7}")
    if r.unanswered:
        lines.append(f"{'no verdict (not grounded)':28} {r.unanswered:>7}")
    return "\n".join(lines)
