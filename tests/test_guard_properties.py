"""The guard's three promises, over random prose split at random points (one character per delta too).

(1) With no rule match, the releases plus finish() are the sanitised text minus a dropped trailing
    partial marker.
(2) No release ever ends inside a citation marker or carries a piece of an escape sequence.
(3) No release ever contains a character of a rule match, and ``tripped`` names a matching rule.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hippo_tui.guard import SafetyPolicy, SafetyRule, StreamGuard
from hippo_tui.safe_text import has_special, sanitize
from hippo_tui.verification.markers import LENIENT_MARKER, partial_marker_start

A = "3f2b8c1e-0d4a-4e5b-9c7d-1a2b3c4d5e6f"
B = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
CANARY = "HIPPO-CANARY-00c0ffee12345678"
EXAMPLE_POLICY = Path(__file__).resolve().parents[1] / "hippo_tui" / "data" / "policy.example.toml"
# The defaults, the example file's rules and one odd rule (optional parts, an empty alternative,
# a lazy repeat, a case-insensitive group) so the derived prefix regexes are exercised beyond literals.
POLICY = SafetyPolicy.from_toml(EXAMPLE_POLICY, canary=CANARY).with_rules(
    SafetyRule.from_pattern("odd", r"(?:zq|)Q\d{1,3}?(?i:-x)?!")
)

PROSE = [
    "Take ", "nitrofurantoin ", "2.5 mg ", "twice daily", ". ", ", ", "e.g. ", "b.i.d. ", "\n", "\n\n",
    "`x[0]` ", "```\n", "task-based ", "sk-", "sk-abc ", "MRN ", "mrn: 1234 ", "123-45-678", "12-34",
    "AKIA", "ghp_", "HIPPO-", "HIPPO-CANARY-", "[", "]", "[1]", "[citation needed]", "arr[0]", "[a](u)",
    f"[{A}]", f"[ {A.upper()} ]", f"[{A}, {B}]", f"[{A}][{B}]", f"[{A[:10]}", f"[{A}, ", "(", ")", " ",
    "-", "_", "s", "k", "M", "0", "9", "\t", "…", "é", "日本", "943 476 ", "AB 12 ", "-----BEGIN ", "zq", "Q1",
    "-X", "!",
]  # fmt: skip
ESCAPES = [
    "\x1b[31m", "\x1b[0m", "\x1b[38;5;196m", "\x1b]8;;https://evil.example/\x1b\\", "\x1b]8;;\x07",
    "\x1b]52;c;aGVsbG8=\x07", "\x1bP1$r\x1b\\", "\x9b2J", "\x1b_apc\x1b\\", "\x1b]0;title\x07",
    "\x9d8;;x\x9c", "\x1bc", "\x1b(B", "\x1b", "\x1b[", "\x1b]", "\u202e", "\u2066", "\u200b", "\ufeff",
    "\x07", "\r", "\x00", "\x85", "\x1bkwindow title\x1b\\",
]  # fmt: skip
MATCHES = [
    "123-45-6789", "sk-" + "a1B2_" * 5, "AKIAABCDEFGHIJKLMNOP", "ghp_" + "a1" * 18, "MRN: 1234567",
    "mrn#00012345", CANARY, "943 476 5919", "ab 12 34 56 c", "-----BEGIN RSA PRIVATE KEY-----", "zqQ12-X!",
    "Q!",
]  # fmt: skip

fragments = st.lists(st.sampled_from(PROSE) | st.sampled_from(ESCAPES), max_size=25).map("".join)
splits = st.one_of(st.just([1]), st.lists(st.integers(1, 9), min_size=1, max_size=12))
modes = st.sampled_from(["adaptive", "fixed"])


def run(
    text: str, sizes: list[int], mode: str, held: list[str] | None = None
) -> tuple[StreamGuard, list[str]]:
    guard = StreamGuard(POLICY, mode=mode)
    releases = []
    i = k = 0
    while i < len(text):
        n = sizes[k % len(sizes)]
        releases.append(guard.feed(text[i : i + n]))
        if held is not None:
            held.append(guard.held_text)
        i, k = i + n, k + 1
    releases.append(guard.finish())
    if held is not None:
        held.append("")
    return guard, releases


def matches(clean: str) -> list[tuple[str, int]]:
    return [(r.name, m.start()) for r in POLICY.rules if (m := r.pattern.search(clean))]


def expected_release(clean: str) -> str:
    cut = partial_marker_start(clean)
    return clean if cut is None else clean[:cut]


EXAMPLES = settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


@EXAMPLES
@given(text=fragments, sizes=splits, mode=modes)
def test_releases_are_the_sanitised_text(text, sizes, mode):
    clean = sanitize(text)
    assume(not matches(clean))
    guard, releases = run(text, sizes, mode)
    assert guard.tripped is None
    assert "".join(releases) == expected_release(clean)
    assert guard.released == "".join(releases)
    assert guard.raw == text
    assert guard.held == 0


@EXAMPLES
@given(text=fragments, sizes=splits, mode=modes)
def test_no_partial_marker_or_escape_piece_is_released(text, sizes, mode):
    clean = sanitize(text)
    assume(not matches(clean))
    held: list[str] = []
    _guard, releases = run(text, sizes, mode, held)
    final = "".join(releases)
    held[-1] = clean[len(final) :]  # at finish the guard knows everything, dropped partial included
    # Every marker of the final text goes out in one piece: no release boundary falls inside it.
    bounds, pos = set(), 0
    for chunk in releases:
        pos += len(chunk)
        bounds.add(pos)
    for m in LENIENT_MARKER.finditer(final):
        assert not any(m.start() < b < m.end() for b in bounds), (m.group(), releases)
    so_far = ""
    for chunk, tail in zip(releases, held, strict=True):
        assert not has_special(chunk), chunk  # no ESC, control, bidi or zero-width character
        so_far += chunk
        # What is out never ends in a marker still being written, given all the guard has seen.
        start = partial_marker_start(so_far)
        if start is not None:
            assert partial_marker_start(so_far + tail) != start, (so_far, tail)


@EXAMPLES
@given(
    before=fragments,
    match=st.sampled_from(MATCHES),
    split_at=st.integers(0, 40),
    inside=st.sampled_from(["", "\u200b", "\x1b[1m", "\u202e"]),
    after=fragments,
    sizes=splits,
    mode=modes,
)
def test_no_character_of_a_rule_match_is_released(before, match, split_at, inside, after, sizes, mode):
    # A match may arrive with an invisible character or escape inside it: the screen would show it whole.
    k = min(split_at, len(match))
    text = before + match[:k] + inside + match[k:] + after
    clean = sanitize(text)
    found = matches(clean)
    assume(found)
    guard, releases = run(text, sizes, mode)
    first = min(start for _, start in found)
    assert len("".join(releases)) <= first
    assert guard.tripped in {name for name, _ in found}
    assert guard.feed("more text") == "" and guard.finish() == ""
