import re
from pathlib import Path

import pytest

from hippo_tui.guard import PolicyError, SafetyPolicy, SafetyRule, StreamGuard, new_canary
from hippo_tui.verification.markers import MAX_MARKER_LEN

A = "3f2b8c1e-0d4a-4e5b-9c7d-1a2b3c4d5e6f"
EXAMPLE_POLICY = Path(__file__).resolve().parents[1] / "hippo_tui" / "data" / "policy.example.toml"


def feed_chars(guard: StreamGuard, text: str) -> str:
    return "".join(guard.feed(c) for c in text)


# --- default rules ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("secret", "rule"),
    [
        ("123-45-6789", "us-ssn"),
        ("MRN 00123456", "mrn"),
        ("mrn:#12345", "mrn"),
        ("sk-proj_abcDEF1234567890xyz", "openai-api-key"),
        ("AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
        ("ghp_" + "aB3" * 12, "github-token"),
    ],
)
def test_default_rules_trip_before_any_of_the_match_is_out(secret, rule):
    guard = StreamGuard()
    out = feed_chars(guard, "The value is " + secret + " and more text.")
    assert guard.tripped == rule
    assert out == "The value is "
    assert guard.feed("anything") == "" and guard.finish() == ""
    assert guard.raw == "The value is " + secret + " and more text.anything"


def test_the_canary_rule_exists_only_with_a_canary():
    canary = new_canary()
    assert re.fullmatch(r"HIPPO-CANARY-[0-9a-f]{16}", canary) and canary != new_canary()
    text = f"My instructions say {canary} so"
    assert StreamGuard(SafetyPolicy.default()).feed(text) + "" != ""
    guard = StreamGuard(SafetyPolicy.default(canary=canary))
    assert feed_chars(guard, text) == "My instructions say "
    assert guard.tripped == "system-prompt-canary"


def test_a_match_hidden_by_invisible_characters_still_trips():
    guard = StreamGuard()
    out = feed_chars(guard, "SSN 123-45\u200b-67\x1b[1m89 end")
    assert guard.tripped == "us-ssn" and out == "SSN "


def test_a_word_boundary_at_the_end_waits_for_the_next_character():
    guard = StreamGuard()
    assert feed_chars(guard, "call 123-45-6789") == "call "
    assert guard.tripped is None  # "…67890" would not be an SSN
    assert guard.feed("0 now") == "123-45-67890 now"
    assert guard.tripped is None

    guard = StreamGuard()
    feed_chars(guard, "call 123-45-6789")
    assert guard.finish() == "" and guard.tripped == "us-ssn"


def test_near_misses_are_released():
    guard = StreamGuard()
    text = "A task-based sk-short key, MRN 123, 12-34-5678 and AKIA12 are fine."
    assert feed_chars(guard, text) + guard.finish() == text
    assert guard.tripped is None


# --- holding ------------------------------------------------------------------------------------


def test_adaptive_mode_holds_nothing_after_ordinary_words():
    guard = StreamGuard()
    assert feed_chars(guard, "Take it with food") == "Take it with food"
    assert guard.held == 0


def test_adaptive_mode_holds_only_a_possible_start():
    guard = StreamGuard()
    assert feed_chars(guard, "Take 2") == "Take "
    assert guard.held == 1  # "2" could start an SSN
    assert guard.feed(".5 mL") == "2.5 mL"


def test_fixed_mode_holds_at_least_the_longest_rule():
    guard = StreamGuard(mode="fixed", hold=8)
    assert guard.hold == guard.policy.max_len - 1
    text = "x" * 100
    assert guard.feed(text) == "x" * (100 - guard.hold)
    assert guard.held == guard.hold
    assert guard.finish() == "x" * guard.hold


def test_partial_marker_is_held_then_released_whole():
    guard = StreamGuard()
    out = feed_chars(guard, f"daily [{A[:20]}")
    assert out == "daily "
    assert guard.held == len(A[:20]) + 1
    assert guard.feed(A[20:] + "]. Next") == f"[{A}]. Next"


@pytest.mark.parametrize("mode", ["adaptive", "fixed"])
def test_finish_drops_a_partial_marker_but_raw_keeps_it(mode):
    guard = StreamGuard(mode=mode)
    text = f"Take it daily [{A[:12]}"
    out = guard.feed(text) + guard.finish()
    assert out == "Take it daily "
    assert guard.raw == text and guard.released == out


def test_escape_split_across_deltas_is_held_then_removed():
    guard = StreamGuard()
    assert guard.feed("a\x1b]8;;https://ev") == "a"
    assert guard.held == len("\x1b]8;;https://ev")
    assert guard.feed("il.example/\x1b") == ""
    assert guard.feed("\\b") == "b"
    assert guard.finish() == ""


def test_held_is_bounded_on_adversarial_text():
    guard = StreamGuard()
    worst = 0
    for piece in ["sk-", "abc-", "[3f2b8c1e", "-0d4a ", "123-45-", "MRN ", "ghp_x"] * 2000:
        guard.feed(piece)
        worst = max(worst, guard.held)
    assert worst <= guard.policy.max_len + MAX_MARKER_LEN


def test_released_is_everything_released_in_order():
    guard = StreamGuard()
    pieces = [guard.feed(c) for c in "Give 2.5 mg [1] b.i.d. (e.g. with food)."] + [guard.finish()]
    assert guard.released == "".join(pieces) == "Give 2.5 mg [1] b.i.d. (e.g. with food)."


def test_bad_mode():
    with pytest.raises(ValueError, match="mode"):
        StreamGuard(mode="lazy")  # type: ignore[arg-type]


# --- policy -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (r"\d+", "no maximum match length"),
        (r"MRN[:#\s]*\d{5,10}", "no maximum match length"),
        (r"a{300}", "the limit is"),
        (r"(unclosed", "bad regex"),
        (r"a?", "empty text"),
        (r"^secret", "anchor"),
        (r"secret$", "anchor"),
        (r"(?<=x)secret", "lookaround"),
        (r"(a)\1", "back-reference"),
    ],
)
def test_rejected_patterns_name_the_rule(pattern, message):
    with pytest.raises(PolicyError, match=message) as err:
        SafetyRule.from_pattern("my-rule", pattern)
    assert "my-rule" in str(err.value)


def test_rule_width_and_policy_errors():
    assert SafetyRule.from_pattern("r", r"ab{2,5}").max_len == 6
    with pytest.raises(PolicyError, match="unique"):
        SafetyPolicy([SafetyRule.from_pattern("r", "a"), SafetyRule.from_pattern("r", "b")])
    with pytest.raises(PolicyError, match="at least one"):
        SafetyPolicy([])
    with pytest.raises(PolicyError, match="below"):
        SafetyPolicy([SafetyRule("r", re.compile("abc"), 2)])


def test_example_policy_file_loads_and_adds_to_the_defaults():
    policy = SafetyPolicy.from_toml(EXAMPLE_POLICY, canary="HIPPO-CANARY-abc")
    names = [r.name for r in policy.rules]
    assert names[:5] == [r.name for r in SafetyPolicy.default().rules]
    assert {"nhs-number", "system-prompt-canary"} <= set(names)
    guard = StreamGuard(policy)
    assert feed_chars(guard, "NHS no. 943 476 5919 today") == "NHS no. "
    assert guard.tripped == "nhs-number"


def test_case_insensitive_rule_from_toml(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text("[[rule]]\nname = \"ward\"\npattern = 'ward-\\d{3}'\nignore_case = true\n")
    guard = StreamGuard(SafetyPolicy.from_toml(path))
    assert feed_chars(guard, "See WARD-123 now") == "See "
    assert guard.tripped == "ward"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[[rule]\nname=", "not valid TOML"),
        ('[[rule]]\nname = "x"\npattern = "a+"\n', "'x'.*no maximum"),
        ('[[rule]]\nname = "x"\n', "needs a string 'name' and a string 'pattern'"),
        ('[[rule]]\nname = "x"\npattern = "a"\nflags = "i"\n', "unknown key"),
        ('[[rule]]\nname = "x"\npattern = "a"\nignore_case = "yes"\n', "true or false"),
        ("rules = 1\n", "unknown top-level"),
        ("rule = 1\n", "array of tables"),
    ],
)
def test_bad_policy_files(tmp_path, content, message):
    path = tmp_path / "policy.toml"
    path.write_text(content)
    with pytest.raises(PolicyError, match=message):
        SafetyPolicy.from_toml(path)


def test_missing_policy_file(tmp_path):
    with pytest.raises(PolicyError, match="cannot read"):
        SafetyPolicy.from_toml(tmp_path / "nope.toml")


def test_guard_releases_feed_the_pending_marker_display():
    from hippo_tui.verification.markers import PendingMarkers, cited_ids

    b = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
    text = f"Take it daily [{A}]. Code `x[{b}]` stays. Both [{b.upper()}, {A}].\n```\n[{A}]\n```\nEnd [{b}]."
    guard, display = StreamGuard(), PendingMarkers()
    shown = []
    for i in range(0, len(text), 3):
        shown.append(display.feed(guard.feed(text[i : i + 3])))
    shown.append(display.feed(guard.finish()))
    assert "".join(shown) == (
        f"Take it daily [·1]. Code `x[{b}]` stays. Both [·2][·1].\n```\n[{A}]\n```\nEnd [·2]."
    )
    assert list(display.numbers) == cited_ids(text) == [A, b]
