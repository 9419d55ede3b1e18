"""Quantities as a clinician writes them, read by the offline judge as a clinician reads them.

Two lists of claim/excerpt pairs written for this module (from general prescribing convention: BNF-style
doses, UK and US abbreviations, NICE-style thresholds): the same quantity said another way must be supported;
a different quantity (unit, period, per dose or per day, a range's end, a comparator's direction) must never be.
The quantities are checked on their own first, then through the whole judge.
"""

from __future__ import annotations

import pytest

from hippo_tui.verification.quantities import find


def alike(a: str, b: str) -> bool:
    """Every quantity of each text has its match in the other."""
    qa, qb = find(a), find(b)
    return (
        bool(qa)
        and all(any(q.matches(e) for e in qb) for q in qa)
        and all(any(e.matches(q) for q in qa) for e in qb)
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("1500 mL", "1.5 litres"),
        ("150 minutes", "two and a half hours"),
        ("30 ng/mL", "30 micrograms/L"),
        ("bid", "every 12 hours"),
        ("BD", "twice daily"),
        ("a one-week course", "a 7-day course"),
        ("a fortnight", "14 days"),
        ("younger than 12", "under 12 years"),
        ("children under 12", "children under 12 years"),
        ("aged 65+", "aged 65 years and over"),
        ("twice a day", "2x daily"),
        ("once weekly", "once a week"),
        ("three times daily", "tds"),
        ("tds", "every 8 hours"),
        ("half a tablet", "0.5 tablet"),
        ("½ tablet", "half a tablet"),
        ("a quarter of a tablet", "0.25 tablets"),
        ("one-and-a-half tablets", "1½ tablets"),
        ("0.5 g", "500 mg"),
        ("1 in 1000 adrenaline", "1 mg/mL adrenaline"),
        ("adrenaline 1:1000", "adrenaline 1 in 1,000"),
        ("adrenaline 1 in 10,000", "adrenaline 100 micrograms/mL"),
        ("10% calcium gluconate", "calcium gluconate 100 mg/mL"),
        ("HbA1c 48 mmol/mol", "HbA1c 6.5%"),
        ("HbA1c 53 mmol/mol", "HbA1c 7.0%"),
        ("every 6 hours", "qds"),
        ("q6h", "6-hourly"),
        ("QID", "four times a day"),
        ("every 4 to 6 hours", "4-6 hourly"),
        ("every 15 minutes", "every fifteen minutes"),
        ("hourly", "every hour"),
        ("fortnightly", "every 2 weeks"),
        ("every two weeks", "fortnightly"),
        ("quarterly", "every 3 months"),
        ("three-monthly", "every three months"),
        ("every 3 to 6 months", "3- to 6-monthly"),
        ("every 6 to 8 weeks", "every 6-8 weeks"),
        ("monthly", "every month"),
        ("once or twice a day", "once or twice daily"),
        ("two to three times a day", "2-3 times daily"),
        ("no more than 4 times in 24 hours", "up to four times a day"),
        ("5 mg/kg/day", "5 mg/kg daily"),
        ("5 mg/kg per day", "5 mg/kg/day"),
        ("10 mg/kg/dose", "10 mg/kg per dose"),
        ("4 g in 24 hours", "4 g a day"),
        ("8 tablets in any 24 hours", "8 tablets daily"),
        ("4 g/24 hours", "4 g daily"),
        ("14 units in a week", "14 units a week"),
        ("2 g daily in two divided doses", "2 g a day in 2 divided doses"),
        ("2.4 million units", "2,400,000 units"),
        ("one thousand milligrams", "1 g"),
        ("a forty-milligram dose", "a 40 mg dose"),
        ("800 international units", "800 IU"),
        ("125 mL an hour", "125 mL/hour"),
        ("180 mm Hg", "180 mmHg"),
        ("38 degrees Celsius", "38°C"),
        ("three quarters of an hour", "45 minutes"),
        ("an hour and a half", "90 minutes"),
        ("18 months", "one and a half years"),
        ("greater than or equal to 7 mmol/L", "at least 7 mmol/L"),
        ("equal to or more than 7 mmol/L", "7 mmol/L or more"),
        ("less than or equal to 30", "30 or less"),
        ("up to a maximum of 1 g", "(maximum 1 g)"),
        ("max. 40 mg", "a maximum of 40 mg"),
        ("below 30 mL/min/1.73m2", "less than 30 mL/min/1.73 m²"),
        ("below 1.0 × 10⁹/L", "below 1.0 x 10^9/L"),
        ("haemoglobin below 7 g/dL", "haemoglobin below 70 g/L"),
        ("a hundred and fifty minutes", "150 minutes"),
        ("nought point five milligrams", "0.5 mg"),
        ("one point five litres", "1500 mL"),
        ("two thousand five hundred units", "2500 units"),
        ("a gram", "1000 mg"),
        ("two teaspoons", "10 mL"),
        ("a litre of fluid", "1 L of fluid"),
        ("b.d.", "twice daily"),
        ("t.d.s.", "three times a day"),
        ("q.i.d.", "qds"),
        ("a twice-daily dose", "a dose twice daily"),
        ("three-times-daily", "tds"),
        ("take a tablet", "take 1 tablet"),
        ("reduce the dose by half", "reduce the dose by 50%"),
    ],
)
def test_one_quantity_in_two_spellings(a: str, b: str):
    assert alike(a, b) and alike(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("500 mg", "500 micrograms"),
        ("4 g per day", "4 g per dose"),
        ("10 mg/kg/day", "10 mg/kg/dose"),
        ("1.5 mL", "1.5 L"),
        ("a glucose of 4 mmol/L", "a glucose of 4 mg/dL"),
        ("5 days", "5 weeks"),
        ("every 4 hours", "4 times a day"),
        ("every 6 to 8 weeks", "for 6 to 8 weeks"),
        ("2 g twice daily", "2 g daily in 2 divided doses"),
        ("6 mg", "2 to 4 mg"),
        ("at least 5 days", "up to 5 days"),
        ("greater than or equal to 11 mmol/L", "below 11 mmol/L"),
        ("less than or equal to 30", "above 30"),
        ("once or twice a day", "twice a day"),
        ("once weekly", "once daily"),
        ("children under 12", "children under 12 months"),
        ("adrenaline 1 in 1000", "adrenaline 1 in 10,000"),
        ("adrenaline 1:10,000", "adrenaline 1 mg/mL"),
        ("1 in 10,000", "0.1%"),
        ("30 ng/mL", "30 ng/L"),
        ("HbA1c 7.5%", "HbA1c 48 mmol/mol"),
        ("5% glucose", "glucose 5 mg/mL"),
        ("1 g in 24 hours", "1 g in a week"),
        ("review in 24 hours", "review daily"),
        ("125 mL an hour", "125 mL over an hour"),
        ("a fortnight", "a week"),
        ("fortnightly", "weekly"),
        ("quarterly", "monthly"),
        ("every 15 minutes", "every 15 hours"),
        ("half a tablet", "one tablet"),
        ("a quarter of a tablet", "half a tablet"),
        ("2.4 million units", "1.2 million units"),
        ("below 1.0 × 10⁹/L", "below 10 x 10^9/L"),
        ("a hundred and fifty minutes", "100 minutes"),
        ("zero point five milligrams", "5 mg"),
        ("two thousand five hundred units", "2000 units"),
        ("weighing 10 kg", "weighing 10 lb"),
        ("a lesion larger than 2 cm", "a lesion larger than 2 inches"),
        ("children under 12", "children under 12 weeks"),
        ("vitamin D below 25 nmol/L", "vitamin D below 25 ng/mL"),
        ("a PaO2 below 8 kPa", "a PaO2 below 8 mmHg"),
        ("potassium 4 mEq/L", "potassium 4 mg/L"),
        ("b.d.", "tds"),
        ("o.d.", "twice daily"),
        ("a once-daily dose", "a twice daily dose"),
        ("take a tablet", "take 2 tablets"),
    ],
)
def test_different_quantities_stay_apart(a: str, b: str):
    assert not alike(a, b)


def test_a_count_of_divided_doses_is_no_frequency():
    # "in 2 divided doses" splits a day's total: its 2 is not "twice daily"'s (1 g twice daily is 2 g a day).
    [_, _, divided] = find("2 g daily in 2 divided doses")
    assert divided.dim == "divided doses" and not find("twice daily")[0].matches(divided)


def test_a_strength_said_as_a_ratio_is_a_share_and_a_concentration():
    [ratio] = find("adrenaline 1 in 1000")
    assert ratio.dim == "percent" and ratio.matches(find("1 mg/mL")[0]) and ratio.matches(find("0.1%")[0])


def test_a_time_of_day_is_no_ratio():
    assert [q.text for q in find("at 1:30 pm")] == ["1", "30"]


@pytest.mark.parametrize(
    "text",
    ["give a second dose", "a drop in blood pressure", "give a dose now", "it comes as a tablet or a liquid"],
)
def test_a_is_no_count_of_an_ordinal_a_fall_or_any_dose(text: str):
    # "a second dose" was read as a time of one second, and contradicted by any other time in the excerpt
    assert find(text) == []


def test_a_litre_of_a_percentage_solution_holds_its_mass_as_a_thousand_millilitres_do():
    in_litres = [q for q in find("1 L of sodium chloride 0.9%") if q.dim == "mass"]
    in_millilitres = [q for q in find("1000 mL of sodium chloride 0.9%") if q.dim == "mass"]
    assert in_litres[0].matches(in_millilitres[0]) and in_litres[0].matches(find("9 g")[0])
