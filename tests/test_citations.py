from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hippo_tui.verification.markers import (
    MARKER,
    PendingMarkers,
    canonical_id,
    cited_ids,
    claims_by_source,
    finalize_markers,
    partial_marker_start,
    split_sentences,
)

A = "3f2b8c1e-0d4a-4e5b-9c7d-1a2b3c4d5e6f"
B = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


def test_marker_is_the_canonical_form():
    assert MARKER.findall(f"daily [{A}].") == [A]
    assert MARKER.findall(f"daily [{A.upper()}].") == []


def test_canonical_id():
    assert canonical_id(f" {A.upper()} ") == A
    with pytest.raises(ValueError):
        canonical_id("not-a-uuid")


# --- markers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"Take it daily [{A.upper()}].",
        f"Take it daily [ {A} ].",
        f"Take it daily [{A}].",
        f"Take it daily. [{A}]",
    ],
)
def test_upper_case_and_padded_markers_are_normalised(text):
    assert claims_by_source(text) == {A: ["Take it daily."]}


@pytest.mark.parametrize(
    "text", [f"Both agree [{A}][{B}].", f"Both agree [{A}, {B}].", f"Both agree [{A},{B}]."]
)
def test_two_sources_in_one_place(text):
    assert claims_by_source(text) == {A: ["Both agree."], B: ["Both agree."]}
    assert cited_ids(text) == [A, B]


@pytest.mark.parametrize(
    "text",
    [
        "See [1].",
        "Use arr[0] here.",
        "See [the guideline](https://example.org).",
        f"See [{A}](https://example.org).",
        "Dosing varies [citation needed].",
        f"Run `grep [{A}]` to find it.",
        f"```\nlog [{A}].\n```\n",
        f"~~~\n[{A}]\n~~~",
        f"Not a uuid [{A[:-1]}x].",
    ],
)
def test_look_alikes_are_not_markers(text):
    assert cited_ids(text) == []
    assert claims_by_source(text) == {}


def test_unclosed_backtick_is_literal_so_the_marker_counts():
    assert cited_ids(f"A stray ` backtick [{A}].") == [A]


def test_marker_before_and_after_the_full_stop_belongs_to_that_sentence():
    text = f"Nitrofurantoin for five days [{A}]. Review at 48 hours. [{B}] Culture if it fails."
    assert claims_by_source(text) == {
        A: ["Nitrofurantoin for five days."],
        B: ["Review at 48 hours."],
    }


def test_marker_on_the_next_line_belongs_to_the_line_before():
    assert claims_by_source(f"Take it daily.\n[{A}]\nNext thing.") == {A: ["Take it daily."]}


def test_claims_are_deduplicated_in_order_and_whitespace_collapsed():
    text = f"First   claim\there [{A}]. Second claim [{A}]. First   claim\there [{A}]."
    assert claims_by_source(text) == {A: ["First claim here.", "Second claim."]}


def test_list_items_are_claims_without_their_bullets():
    text = f"Options:\n- Nitrofurantoin 100 mg b.i.d. [{A}]\n2. Fosfomycin once [{B}]\n"
    assert claims_by_source(text) == {A: ["Nitrofurantoin 100 mg b.i.d."], B: ["Fosfomycin once"]}


def test_cited_ids_in_order_of_first_appearance_without_repeats():
    assert cited_ids(f"x [{B}]. y [{A}]. z [{B.upper()}].") == [B, A]


# --- finalize / strip ---------------------------------------------------------------------------


def test_finalize_numbers_verified_and_removes_the_rest():
    text = f"Take it daily [{A}]. Not this [{B}]. Both [{A}, {B}]. Code `[{B}]` stays."
    assert finalize_markers(text, {A: 1}) == f"Take it daily [1]. Not this. Both [1]. Code `[{B}]` stays."


def test_finalize_multi_id_marker_becomes_adjacent_numbers():
    assert finalize_markers(f"Both [{A}, {B.upper()}].", {A: 1, B: 2}) == "Both [1][2]."


def test_finalize_bad_marker_takes_the_space_before_it():
    assert finalize_markers(f"daily [{A}].", {}) == "daily."


# --- sentences ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Give 2.5 mg daily. Stop after 5 days.", ["Give 2.5 mg daily.", "Stop after 5 days."]),
        (
            "Use a penicillin, e.g. Amoxicillin. Then review.",
            ["Use a penicillin, e.g. Amoxicillin.", "Then review."],
        ),
        ("Common ones, i.e. E. coli, respond. Good.", ["Common ones, i.e. E. coli, respond.", "Good."]),
        ("Ask Dr. Smith first. Then act.", ["Ask Dr. Smith first.", "Then act."]),
        ("Oral vs. IV is similar. Fine.", ["Oral vs. IV is similar.", "Fine."]),
        ("Give approx. 10 mL. Repeat.", ["Give approx. 10 mL.", "Repeat."]),
        # A dosing abbreviation ends its sentence when a capital follows, and goes on before anything else.
        ("Take 100 mg b.i.d. Continue for 5 days.", ["Take 100 mg b.i.d.", "Continue for 5 days."]),
        ("Take 100 mg b.i.d. for 5 days. Stop.", ["Take 100 mg b.i.d. for 5 days.", "Stop."]),
        ("Give 1 g i.v. Then review.", ["Give 1 g i.v.", "Then review."]),
        ("Use e.g. Amoxicillin here. Next.", ["Use e.g. Amoxicillin here.", "Next."]),
        # A term written with a lower-case first letter can start a sentence.
        (
            "Stop it above 150 micromol/L. eGFR is not used. Next.",
            ["Stop it above 150 micromol/L.", "eGFR is not used.", "Next."],
        ),
        ("Check the pH. pH below 7.35 is acidosis.", ["Check the pH.", "pH below 7.35 is acidosis."]),
        # An ellipsis before a lower-case word does not end the sentence.
        ("Take it... then rest. Next.", ["Take it... then rest.", "Next."]),
        ("Take it… then rest. Next.", ["Take it… then rest.", "Next."]),
        ("Wait... Then go.", ["Wait...", "Then go."]),
        # A unit after a degree sign, or a letter that names something, is not an initial.
        ("A fever is 38 °C. Check again.", ["A fever is 38 °C.", "Check again."]),
        ("A fever is 38°C. Check again.", ["A fever is 38°C.", "Check again."]),
        ("Vaccinate against hepatitis B. Then check.", ["Vaccinate against hepatitis B.", "Then check."]),
        ("Check vitamin D. Then treat.", ["Check vitamin D.", "Then treat."]),
        ("Take it (with food.) Then rest.", ["Take it (with food.)", "Then rest."]),
        (
            "Take it (max. 4 g a day. See the label) with food. Done.",
            ["Take it (max. 4 g a day. See the label) with food.", "Done."],
        ),
        (
            "An open (aside. Still one line\nNew line. Two.",
            ["An open (aside. Still one line", "New line.", "Two."],
        ),
        ('He said "stop now." Then left.', ['He said "stop now."', "Then left."]),
        ("Really? Yes! Done.", ["Really?", "Yes!", "Done."]),
        ("First line\nSecond line", ["First line", "Second line"]),
        ("- one item\n- two items\n1. three", ["one item", "two items", "three"]),
        # A PDF's bullets run into one line are still items; a bullet inside a word is not one.
        ("Key: LZD • Do not use A • Use B", ["Key: LZD", "Do not use A", "Use B"]),
        ("• first • second", ["first", "second"]),
        ("a•b stays", ["a•b stays"]),
        # "»" between spaces is a bullet too (run-together rows of a guideline); a closing quote is not.
        (
            "Box 7: tests » Start NVP at once » Stop it if negative",
            ["Box 7: tests", "Start NVP at once", "Stop it if negative"],
        ),
        ("» first » second", ["first", "second"]),
        ("He said «stop». Then left.", ["He said «stop».", "Then left."]),
        # A unit of time ends a sentence before a capital, not before a lower-case word.
        ("Give it over 15 min. Then review.", ["Give it over 15 min.", "Then review."]),
        ("Repeat every 5 min. if needed. Next.", ["Repeat every 5 min. if needed.", "Next."]),
        ("Call `obj.method(). Now` here. End.", ["Call `obj.method(). Now` here.", "End."]),
        ("Version 1.2.3 is out. Yes.", ["Version 1.2.3 is out.", "Yes."]),
        # A unit ending in a capital is not an initial.
        ("Treat below 4 mmol/L. Give 15 g.", ["Treat below 4 mmol/L.", "Give 15 g."]),
        ("Stop above 150 micromol/L. Recheck.", ["Stop above 150 micromol/L.", "Recheck."]),
        ("Drink 2 L. Then rest.", ["Drink 2 L.", "Then rest."]),
        ("Written by J. Smith. Read it.", ["Written by J. Smith.", "Read it."]),
    ],
)
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


def test_a_fenced_block_is_one_piece():
    text = "Before.\n```\na = 1. B = 2\n```\nAfter."
    assert split_sentences(text) == ["Before.", "```\na = 1. B = 2\n```", "After."]


# --- partial markers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tail",
    [
        "[",
        "[ ",
        "[3f2b",
        f"[{A[:8]}",
        f"[{A[:9]}",
        f"[{A}",
        f"[{A} ",
        f"[{A}, ",
        f"[{A}, 9A8B",
        f"[{A.upper()}",
    ],
)
def test_partial_marker_tails(tail):
    assert partial_marker_start("Take it daily " + tail) == len("Take it daily ")


@pytest.mark.parametrize("tail", ["", f"[{A}]", "[1]", "[3f2g", "[2024-", "[ci", f"[{A}x"])
def test_not_partial_marker_tails(tail):
    assert partial_marker_start("Take it daily " + tail) is None


# --- streaming display ----------------------------------------------------------------------------


def test_pending_markers_number_in_order_of_first_appearance():
    pm = PendingMarkers()
    out = pm.feed(f"One [{B}]. ") + pm.feed(f"Two [{A}, {B}]. ") + pm.feed(f"Three [{A.upper()}].")
    assert out == "One [·1]. Two [·2][·1]. Three [·2]."
    assert pm.numbers == {B: 1, A: 2}


def test_pending_markers_leave_code_alone_across_chunks():
    pm = PendingMarkers()
    chunks = ["Run `", f"[{A}]", "` then\n``", "`\n", f"[{A}]\n", "``", "`\n", f"done [{A}]"]
    out = "".join(pm.feed(c) for c in chunks)
    assert out == f"Run `[{A}]` then\n```\n[{A}]\n```\ndone [·1]"


def test_pending_markers_inline_code_run_split_between_chunks():
    pm = PendingMarkers()
    out = "".join(pm.feed(c) for c in ["a `", "`", f"x [{A}] ", "``", f" b [{A}]"])
    assert out == f"a ``x [{A}] `` b [·1]"


def test_code_ranges_cover_inline_spans_and_fences():
    from hippo_tui.verification.markers import code_ranges

    text = "a `b` c ``d ` e`` f\n```py\ng\n```\nh `unclosed\n~~~\nopen to the end"
    spans = [text[a:b] for a, b in code_ranges(text)]
    assert spans == ["`b`", "``d ` e``", "```py\ng\n```", "~~~\nopen to the end"]


def test_strip_markers():
    from hippo_tui.verification.markers import strip_markers

    assert strip_markers(f"One [{A}]. Two [{A}, {B}] and `[{A}]`.") == f"One. Two and `[{A}]`."


@pytest.mark.parametrize(
    "text",
    [
        "a." * 50_000,
        "a `b " * 20_000,
        "\n" * 100_000,
        "x. " * 30_000,
        "```\n" * 20_000,
        "(" + "a. B " * 20_000,
        "word A. " * 80_000,  # initials: each once copied the whole text before it
    ],
)
def test_pathological_text_takes_linear_time(text):
    # Each of these was quadratic once (minutes); linear code does them in well under a second of CPU.
    import time

    start = time.process_time()
    cited_ids(text)
    claims_by_source(text + f" [{A}]")
    split_sentences(text)
    finalize_markers(text, {})
    assert time.process_time() - start < 3


_FRAGMENTS = [
    "Take it daily", " ", ". ", ".", "\n", "\n\n", "e.g. ", "2.5 mg", "(", ")", '"', "? ", "- ", "1. ", "`", "```\n",
    f"[{A}]", f" [{B.upper()}]", f"[ {A} , {B} ]", "[1]", "Dr. ", "b.i.d. ", "See", "x",
]  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join))
def test_no_citation_is_lost_between_markers_and_claims(text):
    # Every id cited (outside code) is either on the hook for a claim or sits before any words at all.
    text = "Start. " + text
    claims = claims_by_source(text)
    assert list(claims) == [cid for cid in cited_ids(text) if cid in claims]
    for cid in cited_ids(text):
        assert claims.get(cid), (cid, text)
    # Finalising with every id numbered keeps one [n] per cited id occurrence and never a raw id.
    numbers = {cid: i for i, cid in enumerate(cited_ids(text), 1)}
    final = finalize_markers(text, numbers)
    assert cited_ids(final) == []


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join), st.lists(st.integers(1, 7), min_size=1)
)
def test_pending_display_does_not_depend_on_chunking(text, sizes):
    from hippo_tui.verification.markers import LENIENT_MARKER

    inside = {i for m in LENIENT_MARKER.finditer(text) for i in range(m.start() + 1, m.end())}
    cuts, pos, k = [0], 0, 0
    while pos < len(text):
        pos = min(len(text), pos + sizes[k % len(sizes)])
        k += 1
        if pos not in inside:  # the guard never releases part of a marker
            cuts.append(pos)
    cuts.append(len(text))
    whole, streamed = PendingMarkers(), PendingMarkers()
    expected = whole.feed(text)
    assert "".join(streamed.feed(text[a:b]) for a, b in pairwise(cuts)) == expected
    assert streamed.numbers == whole.numbers


def test_a_removed_marker_in_parentheses_takes_them_too():
    # "daily ([id])." with the id flagged must not read "daily ()." on screen or as a claim.
    assert finalize_markers(f"Take it daily ([{A}]). Next.", {}) == "Take it daily. Next."
    assert finalize_markers(f"Take it daily ( [{A}]; [{B}] ) now.", {}) == "Take it daily now."
    assert finalize_markers(f"Take it daily ([{A}]).", {A: 1}) == "Take it daily ([1])."
    assert claims_by_source(f"Take it daily ([{A}]). Next [{B}].") == {A: ["Take it daily."], B: ["Next."]}


def test_a_partly_removed_group_leaves_no_dangling_separator():
    assert finalize_markers(f"Take ([{A}], [{B}]).", {B: 2}) == "Take ([2])."
    assert finalize_markers(f"Take [{A}], [{B}].", {A: 1}) == "Take [1]."
    assert finalize_markers(f"Take [{A}], [{B}].", {A: 1, B: 2}) == "Take [1], [2]."  # all kept: as written


def test_a_marker_after_a_dosing_abbreviation_ends_the_claim():
    text = f"Take 100 mg b.i.d. [{A}] Continue for 5 days [{B}]."
    assert claims_by_source(text) == {A: ["Take 100 mg b.i.d."], B: ["Continue for 5 days."]}


def test_numbered_markers_go_back_to_ids_outside_code():
    from hippo_tui.verification.markers import finalize_markers, ids_for_numbers

    a, b = "8920c0a1-c079-4734-86fe-6c9b0259cc70", "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"
    raw = f"One. [{a}] Two. [{a}][{b}] See `arr[1]`."
    final = finalize_markers(raw, {a: 1, b: 2})
    assert ids_for_numbers(final, {1: a, 2: b}) == (raw, [])
    assert ids_for_numbers("Cited [3] and [1] and [3].", {1: a}) == (f"Cited [3] and [{a}] and [3].", [3])
