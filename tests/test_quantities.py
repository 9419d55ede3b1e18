"""Numbers as a clinician writes them: the same quantity in digits, words and other units compares equal."""

from __future__ import annotations

import pytest

from hippo_tui.verification.quantities import find


def one(text: str):
    found = find(text)
    assert len(found) == 1, (text, found)
    return found[0]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("five days", "5 days"),
        ("within seven days", "within a week"),
        ("a fortnight", "14 days"),
        ("twice daily", "two times a day"),
        ("three times a day", "3 times daily"),
        ("1 g", "1000 mg"),
        ("500 micrograms", "0.5 mg"),
        ("48 hours", "2 days"),
        ("6 weeks", "42 days"),
        ("1.5 mg", "1500 mcg"),
        ("twenty-one days", "3 weeks"),
        ("more than twice the limit", "more than 2 times the limit"),
        ("half an hour", "30 minutes"),
        ("12 months", "1 year"),
        ("2,000 ng/L", "2000 ng/l"),
        ("twice a year", "every 6 months"),
        ("3 consecutive weeks", "three weeks"),
        ("within the first hour", "within an hour"),
        ("about 1 in 4", "25%"),
        ("one in four", "25%"),
        ("roughly one in six", "about 16%"),  # a share rounded either way
        ("1 in 6", "17%"),
        ("one in three", "33%"),
        (
            "less than half their usual feeds",
            "less than 50% of their usual feeds",
        ),  # a share, as a percentage
        ("about a third of patients", "33% of patients"),
        ("three quarters of the dose", "75% of the dose"),
        ("two-thirds of patients", "two thirds of patients"),
        ("not more than 4 g", "no more than 4 g"),
        ("do not take more than 4 g", "at most 4 g"),
        ("must not exceed 4 g", "a maximum of 4 g"),
        ("do not start it more than 3 hours after injury", "start it within 3 hours after injury"),
        ("should not be used for more than five days", "up to 5 days"),
        ("avoid prescribing them for longer than 4 weeks", "for no longer than 4 weeks"),
        ("when prescribing to under 18s", "for those under 18 years"),
        ("people in their 70s", "adults aged 70 to 79 years"),
        ("no later than 1 hour", "within 1 hour"),
        ("not less than 5 days", "at least 5 days"),
        ("a BMI of 30 kg/m² or more", "a BMI of at least 30 kg/m2"),
        ("a fasting glucose of 126 mg/dL", "a fasting glucose of 7.0 mmol/L"),
        ("blood glucose below 72 mg/dl", "blood glucose below 4 mmol/l"),
    ],
)
def test_spellings_of_one_quantity_match(a: str, b: str):
    assert one(a).matches(one(b)) and one(b).matches(one(a))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("5 days", "5 weeks"),
        ("one in six", "20%"),  # a rounded share is still that share
        ("1 in 6", "15%"),
        ("less than half their usual feeds", "less than 30% of their usual feeds"),
        ("2.5%", "2%"),  # written percentages are compared as written
        ("3 months", "12 weeks"),  # months are not weeks: a source's "3 months" is not checked as 12 weeks
        ("over 80", "under 80"),
        ("55 or more", "below 55"),
        ("twice daily", "twice weekly"),
        ("1 g", "1 mg"),
        ("0.8 to 1.2 mmol/L", "0.4 to 1.0 mmol/L"),
        ("cholesterol of 200 mg/dL", "cholesterol of 11.1 mmol/L"),  # only glucose is read as glucose
        ("a fasting glucose of 126 mg/dL", "a fasting glucose of 6.0 mmol/L"),
    ],
)
def test_different_quantities_do_not(a: str, b: str):
    assert not one(a).matches(one(b))


def test_a_single_value_stands_for_an_end_of_a_range_not_the_reverse():
    assert one("50 mg").matches(one("50 to 100 mg"))
    assert not one("50 to 100 mg").matches(one("50 mg"))


def test_identifiers_are_not_numbers_and_ranges_hold_together():
    assert find("an SGLT2 inhibitor, HbA1c, FEV1 and CYP3A4") == []
    [q] = find("between 5.0 and 8.0")
    assert (q.low, q.high) == ((5.0,), (8.0,))
    assert [q.text for q in find("Stop it if the eGFR falls below 30 and review the dose below 45.")] == [
        "below 30",
        "below 45",
    ]


def test_a_dose_per_dose_is_still_a_dose():
    # "per dose" says the amount is one dose's; read as part of the unit, it hid "15 mg/kg" from every check.
    found = find("ibuprofen 15 mg/kg per dose up to three times daily")
    assert [q.text for q in found] == ["15 mg/kg", "per dose", "up to three times daily"]
    assert not find("15 mg/kg per dose")[0].matches(find("10 mg/kg per dose")[0])


def test_a_volume_of_a_percentage_solution_holds_its_mass():
    # w/v: 10% is 10 g in 100 mL, so 10 mL of it holds 1 g, in either order of the words.
    one_gram = [q for q in find("give 10 mL of 10% calcium gluconate IV") if q.dim == "mass"]
    three_grams = [q for q in find("give 30 mL of calcium gluconate 10% IV") if q.dim == "mass"]
    assert one_gram[0].matches(find("1 g")[0]) and three_grams[0].matches(find("3 g")[0])
    assert not one_gram[0].matches(find("3 g")[0])
    assert [q.text for q in find("10 mL of 10% calcium gluconate")][:2] == [
        "10 ml",
        "10%",
    ]  # both still there


@pytest.mark.parametrize(
    "text",
    [
        "it should not be newly started during one.",
        "no one should drive",
        "a new one, then",
        "if the first one was not diagnostic",
        "given after the previous one",
        "guided self-help is one option",
        "and if one is truly essential, use the lowest dose",
    ],
)
def test_one_standing_for_a_noun_is_no_number(text: str):
    assert find(text) == []


def test_one_of_a_dose_is_still_a_number():
    assert [q.text for q in find("give one dose; take one tablet")] == ["one dose", "one tablet"]
    assert [q.text for q in find("only one is needed")] == ["one"]  # a count, not "if one is …"


@pytest.mark.parametrize(
    ("text", "cmp"),
    [
        ("if weight increases by more than 2 kg over 3 days", None),  # the period it happens in
        ("infuse over 60 minutes", None),
        ("symptoms lasting over 3 days", "up"),  # more than
        ("fever for over 5 days", "up"),
    ],
)
def test_over_a_time_is_a_period_unless_it_says_how_long(text: str, cmp: str | None) -> None:
    assert [q.cmp for q in find(text) if q.dim == "time"] == [cmp]
