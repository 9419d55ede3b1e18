"""StreamGuard benchmark: our linear guard against the article's sketch, in one run.

    python bench/bench_guard.py [--quick]

Feeds an answer in 1–8 character deltas and prints a table: throughput, time(1 MB)/time(100 KB)
(linear is ~10, quadratic ~100), and the mean/max characters held back after each delta on ordinary
clinical prose, adaptive vs fixed tail. The article's sketch re-scans the whole text on every delta;
it would take hours on 1 MB, so it runs on small sizes and its larger times are extrapolated from the
fitted growth (marked "extrapolated"). Times are CPU time of this process (best of a few runs), so
other work on a shared machine disturbs them less; ratios matter more than absolute numbers.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hippo_tui.guard import SafetyPolicy, StreamGuard
from hippo_tui.verification.markers import partial_marker_start

KB = 1000
MB = 1000 * KB

SENTENCES = [
    "Adults with uncomplicated cystitis can be treated with nitrofurantoin 100 mg twice daily for 5 days.",
    "Review the patient after 48 hours if symptoms persist, e.g. consider a urine culture.",
    "Fosfomycin 3 g as a single dose is an alternative when renal function is reduced.",
    "Avoid trimethoprim if there is a high risk of resistance (approx. 30% in some regions).",
    "In pregnancy, send a midstream sample before starting empirical treatment.",
    "Give paracetamol 1 g up to four times daily for pain, with a maximum of 4 g in 24 hours.",
    "Dr. Patel's audit found that 2.5% of cases needed a second course.",
    "Advise the patient to drink enough fluid and to return if fever or flank pain develops.",
    "Children under 3 months with a suspected urinary tract infection should be referred urgently.",
    "Check the eGFR before prescribing; nitrofurantoin is not suitable below 45 mL/min.",
]
IDS = [
    "3f2b8c1e-0d4a-4e5b-9c7d-1a2b3c4d5e6f",
    "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
    "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
]


def answer(size: int, markers: bool, seed: int = 7) -> str:
    rnd = random.Random(seed)
    parts: list[str] = []
    n = 0
    while n < size:
        s = rnd.choice(SENTENCES)
        if markers and rnd.random() < 0.6:
            s = s[:-1] + f" [{rnd.choice(IDS)}]."
        s += "\n\n" if rnd.random() < 0.15 else " "
        parts.append(s)
        n += len(s)
    return "".join(parts)[:size]


def deltas(text: str, seed: int = 1) -> list[str]:
    rnd = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        k = rnd.randint(1, 8)
        out.append(text[i : i + k])
        i += k
    return out


class ArticleGuard:
    """The article's sketch, made runnable with the same rules: re-scans the whole text per delta."""

    def __init__(self, policy: SafetyPolicy, hold: int) -> None:
        self.text, self.released, self.hold = "", 0, hold
        self.rules = [r.pattern for r in policy.rules]

    def unsafe(self, text: str) -> bool:
        return any(rx.search(text) for rx in self.rules)

    def feed(self, delta: str) -> str:
        self.text += delta
        if self.unsafe(self.text):
            return ""
        end = max(self.released, len(self.text) - self.hold)
        chunk = self.text[self.released : end]
        cut = partial_marker_start(chunk)  # strip_partial_marker
        if cut is not None:
            chunk = chunk[:cut]
        self.released += len(chunk)
        return chunk


def run(make: Callable[[], object], pieces: list[str]) -> tuple[float, float, int]:
    """(seconds, mean held, max held) for one pass; held = characters fed but not yet released."""
    guard = make()
    feed = guard.feed  # type: ignore[attr-defined]
    fed = released = 0
    total_held = worst = 0
    start = time.process_time()
    for piece in pieces:
        released += len(feed(piece))
        fed += len(piece)
        held = fed - released
        total_held += held
        if held > worst:
            worst = held
    seconds = time.process_time() - start
    return seconds, total_held / len(pieces), worst


def best(make: Callable[[], object], pieces: list[str], repeat: int) -> tuple[float, float, int]:
    results = [run(make, pieces) for _ in range(repeat)]
    return min(results, key=lambda r: r[0])


def main() -> None:
    quick = "--quick" in sys.argv
    policy = SafetyPolicy.default(canary="HIPPO-CANARY-0123456789abcdef")
    big, small = (200 * KB, 20 * KB) if quick else (1 * MB, 100 * KB)
    text_big = answer(big, markers=True)
    pieces_big, pieces_small = deltas(text_big), deltas(text_big[:small])

    rows: list[tuple[str, str, str, str]] = []
    for mode in ("adaptive", "fixed"):

        def make(mode: str = mode) -> StreamGuard:
            return StreamGuard(policy, mode=mode)  # type: ignore[arg-type]

        t_big = best(make, pieces_big, 2)[0]
        t_small = best(make, pieces_small, 3)[0]
        rows.append(
            (
                f"StreamGuard ({mode})",
                f"{big / MB / t_big:.2f}",
                f"{t_big / t_small:.1f}",
                f"{t_big:.2f} s measured",
            )
        )

    # The sketch: measured at small sizes, growth fitted, larger sizes extrapolated.
    hold = StreamGuard(policy, mode="fixed").hold
    sizes = (5 * KB, 10 * KB, 20 * KB)
    times = [best(lambda: ArticleGuard(policy, hold), deltas(text_big[:n]), 2)[0] for n in sizes]
    exponent = math.log(times[-1] / times[0]) / math.log(sizes[-1] / sizes[0])
    t_art_small = times[-1] * (small / sizes[-1]) ** exponent
    t_art_big = times[-1] * (big / sizes[-1]) ** exponent
    rows.append(
        (
            "article sketch",
            f"{big / MB / t_art_big:.4f} (extrapolated)",
            f"{t_art_big / t_art_small:.0f} (extrapolated)",
            f"{t_art_big:.0f} s extrapolated (n^{exponent:.2f} fitted on "
            + ", ".join(f"{n // KB} KB: {t:.2f} s" for n, t in zip(sizes, times, strict=True))
            + ")",
        )
    )

    label = f"{big // KB} KB" if quick else "1 MB"
    small_label = f"{small // KB} KB"
    print(f"\nThroughput, {label} answer with citation markers, 1–8 character deltas")
    print(f"| guard | MB/s | time({label}) / time({small_label}) | time({label}) |")
    print("|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")

    print("\nCharacters held back after each delta (mean / max)")
    print("| text | adaptive | fixed tail |")
    print("|---|---|---|")
    for name, markers in (("ordinary clinical prose", False), ("prose with citation markers", True)):
        pieces = deltas(answer(200 * KB, markers=markers, seed=11), seed=3)
        cells = []
        for mode in ("adaptive", "fixed"):
            _, mean, worst = run(lambda mode=mode: StreamGuard(policy, mode=mode), pieces)
            cells.append(f"{mean:.2f} / {worst}")
        print(f"| {name} | {cells[0]} | {cells[1]} |")
    print(f"\n(fixed tail = {hold} characters: the longest default rule minus one)")
    print("Targets: >= 1 MB/s; time ratio <= 12 (linear); mean held <= 4 on prose (adaptive).")


if __name__ == "__main__":
    main()
