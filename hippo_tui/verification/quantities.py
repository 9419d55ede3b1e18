"""Numbers as a clinician reads them: doses, durations, frequencies, thresholds, in words or digits.

``find`` turns "five days", "a fortnight", "twice daily", "1 g", "more than 5 times the upper limit" and
"below 45 mL/min" into ``Quantity`` values that compare across spellings: 1 g is 1000 mg, 48 hours is 2 days,
"a week" is 7 days, "twice the upper limit" is 2 times. Months and years stay apart from weeks (3 months is not
12 weeks). A comparator ("over", "or more", "below", "within", "greater than or equal to") travels with its
number. A day's dose is one however it is written ("4 g a day", "4 g/day", "4 g in 24 hours"), and kept apart
from one dose ("per dose") and from a day's total split ("in 2 divided doses"). Strengths compare across their
notations: "1 in 1000" is 0.1% is 1 mg/mL (w/v); an HbA1c in % is one in mmol/mol. A bare age ("younger than
12", "children under 5") is in years. The veto and the offline model's reading of text both use this module,
so a number means the same thing to both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from hippo_tui import compiled_patterns
from hippo_tui.verification.lexicon import NAMED_NUMBER

_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
WORD_NUMBERS: dict[str, float] = (
    {w: float(i) for i, w in enumerate(_SMALL)}
    | {w: float(v) for w, v in _TENS.items()}
    | {"hundred": 100.0, "half": 0.5}
)
_WORDNUM = (
    r"(?:(?:"
    + "|".join(_TENS)
    + r")(?:[ -](?:"
    + "|".join(_SMALL[1:10])
    + r"))?|"
    + "|".join(sorted([*_SMALL, "hundred", "half"], key=len, reverse=True))
    + r")"
)
_DIGITS = r"\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?"  # 500, 0.5, 140/90 (a blood pressure is one value)
NUM = rf"(?:{_DIGITS}|{_WORDNUM})"

# unit word → (dimension, factor to the dimension's base unit)
_UNITS: dict[str, tuple[str, float]] = {}
for _names, _dim, _factor in (
    ("kg kilogram kilograms", "kg", 1.0),  # body weight, not a dose
    ("lb lbs pound pounds", "kg", 0.45359237),  # a weight in pounds is not the same number of kilograms
    ("g gram grams gm", "mass", 1e3),
    ("mg milligram milligrams", "mass", 1.0),
    ("mcg microgram micrograms ug µg", "mass", 1e-3),
    ("ng nanogram nanograms", "mass", 1e-6),
    ("l litre litres liter liters", "volume", 1e3),
    ("ml millilitre millilitres milliliter milliliters", "volume", 1.0),
    ("dl decilitre decilitres deciliter deciliters", "volume", 100.0),  # haemoglobin in g/dL is 10 x g/L
    ("mmol millimole millimoles", "amount", 1.0),
    ("micromol µmol umol micromoles", "amount", 1e-3),
    ("mol", "amount", 1e3),  # mmol/mol: an HbA1c (IFCC)
    ("nmol nanomol nanomole nanomoles", "amount", 1e-6),  # vitamin D in nmol/L is not ng/mL
    ("pmol picomol", "amount", 1e-9),
    ("meq", "milliequivalents", 1.0),  # mmol only for an ion of one charge: kept apart
    ("kpa", "kpa", 1.0),  # a blood gas in kPa is not mmHg
    ("kcal", "energy", 1.0),
    ("s sec secs second seconds", "time", 1 / 3600),
    ("min mins minute minutes", "time", 1 / 60),
    ("h hr hrs hour hours", "time", 1.0),
    ("day days", "time", 24.0),
    ("week weeks wk wks", "time", 168.0),
    ("fortnight fortnights", "time", 336.0),
    ("month months", "months", 1.0),
    ("year years yr yrs", "months", 12.0),
    ("% percent", "percent", 1.0),  # "per cent" is written "percent" first (_WORDING): "per" is no unit
    ("iu unit units", "units", 1.0),
    ("mmhg", "mmhg", 1.0),
    ("mm millimetre millimetres millimeter millimeters", "length", 1.0),  # an induration, a wound, a lesion
    ("cm centimetre centimetres centimeter centimeters", "length", 10.0),
    ("metre metres meter meters", "length", 1000.0),
    ("inch inches", "length", 25.4),  # not the same number of centimetres
    (
        "teaspoon teaspoons teaspoonful teaspoonfuls tsp",
        "volume",
        5.0,
    ),  # a 5 mL spoon, as a pharmacy measures it
    ("tablespoon tablespoons tablespoonful tablespoonfuls tbsp", "volume", 15.0),
    ("°c degrees", "celsius", 1.0),
    ("dose doses", "doses", 1.0),
    ("tablet tablets", "tablets", 1.0),
    ("capsule capsules", "capsules", 1.0),  # a form is a count of its own: one capsule is not one tablet
    ("sachet sachets", "sachets", 1.0),
    ("suppository suppositories", "suppositories", 1.0),
    ("pessary pessaries", "pessaries", 1.0),
    ("patch patches", "patches", 1.0),
    ("spray sprays puff puffs actuation actuations", "puffs", 1.0),  # one press of a metered dose, any device
    ("drop drops", "drops", 1.0),
    ("point points", "", 1.0),  # a score's: "2 points or more" is "2 or more"
    ("breaths", "breaths", 1.0),
    ("beats", "beats", 1.0),
):
    for _n in _names.split(" "):
        _UNITS[_n] = (_dim, _factor)
_UNIT_WORDS = sorted(_UNITS, key=len, reverse=True)
_UNIT = r"(?:" + "|".join(re.escape(u) for u in _UNIT_WORDS) + r")"
# "mL/min/1.73 m2", "mg/kg", "micrograms per kg", "breaths per minute": the per-part is part of the unit. "Per
# dose" is not: it says the amount is one dose's ("10 mg/kg per dose"), read on its own by _PER_DOSE.
_PER_UNIT = r"(?:" + "|".join(re.escape(u) for u in _UNIT_WORDS if _UNITS[u][0] != "doses") + r")"
_PER = rf"(?:\s*(?:/|\bper\b)\s*(?:1\.73\s*m2|m2|{_PER_UNIT}))*"

_PERIOD_DAYS: dict[str, float] = {
    "daily": 1,
    "day": 1,
    "a day": 1,
    "per day": 1,
    "each day": 1,
    "every day": 1,
    "weekly": 7,
    "a week": 7,
    "per week": 7,
    "each week": 7,
    "every week": 7,
    "monthly": 365 / 12,  # a twelfth of a year: "every 6 months" is "twice a year"
    "a month": 365 / 12,
    "per month": 365 / 12,
    "yearly": 365,
    "annually": 365,
    "a year": 365,
    "per year": 365,
    "every year": 365,
    "every morning": 1,
    "each morning": 1,
    "every evening": 1,
    "every night": 1,
    "each night": 1,
    "nightly": 1,
    "in 24 hours": 1,  # "no more than 4 times in 24 hours", "8 tablets in any 24 hours"
    "in any 24 hours": 1,
    "per 24 hours": 1,
    "in a 24 hour period": 1,
    "in any 24 hour period": 1,
    "every month": 365 / 12,
    "fortnightly": 14,
    "every fortnight": 14,
    "a fortnight": 14,
    "quarterly": 365 / 4,
    "hourly": 1 / 24,
    "every hour": 1 / 24,
}
_PERIOD = r"(?:" + "|".join(sorted((re.escape(p) for p in _PERIOD_DAYS), key=len, reverse=True)) + r")"
_BARE_PERIOD = (  # "a week" is a duration
    r"(?:daily|weekly|monthly|yearly|annually|every day|each day|every week|every morning|each morning|"
    r"every evening|every night|each night|nightly|every month|fortnightly|every fortnight|quarterly|hourly|"
    r"every hour)"
)
_COUNT = rf"(?:once or twice|once|twice|thrice|{NUM}\s+times|{NUM}\s+or\s+{NUM}\s+times|{NUM}\s*(?:to|-)\s*{NUM}\s+times)"
_ABBREVIATED = {"od": 1.0, "qd": 1.0, "bd": 2.0, "bid": 2.0, "tds": 3.0, "tid": 3.0, "qds": 4.0, "qid": 4.0}
# "every 8 hours", "8-hourly", "4-6 hourly", "q8h": a frequency, 24 / N a day (a range "every 4 to 6 hours" is 4
# to 6 a day); "every 15 minutes" is 96 a day.
_EVERY_RE = (
    rf"\b(?:every\s+(?P<n>{NUM})(?:\s*(?:-|to)\s*(?P<n2>{NUM}))?\s*(?:(?:hours?|hrs?|h)|(?P<min>minutes?|mins?))\b"
    rf"|(?P<h>{NUM})(?:\s*(?:-|to)\s*(?P<h2>{NUM}))?[ -]hourly\b|q(?P<q>\d+)(?:-(?P<q2>\d+))?h\b"
    rf"|every\s+(?P<d>{NUM})(?:\s*(?:-|to)\s*(?P<dr>{NUM}))?\s+(?P<per>day|week|month|year)s?\b"
    rf"|(?P<d2>{NUM})(?:-?\s*(?:-|to)\s*(?P<dr2>{NUM}))?[ -](?P<per2>week|month|year)ly\b)"
)
_PERIOD_OF = {"day": 1, "week": 7, "month": 365 / 12, "year": 365}

UP, DOWN = "up", "down"
_CMP_BEFORE = {
    UP: "no less than|not less than|no fewer than|not fewer than|more than|greater than|higher than|at least|"
    "over|above|beyond|exceeding|exceeds|older than|a minimum of|minimum of|in excess of|longer than|minimum",
    DOWN: "less than|fewer than|lower than|at most|no more than|not more than|up to|under|below|within|"
    "no later than|not later than|not beyond|younger than|a maximum of|maximum of|a max of|max of|not exceeding|"
    "no longer than|shorter than|maximum|max\\.|max",
}
_CMP_AFTER = {
    UP: "or more|or over|or higher|or above|or greater|or larger|or longer|or older|and over|and above|and older|plus",
    DOWN: "or less|or fewer|or lower|or below|or under|or smaller|or shorter|or younger|and under|and below|"
    "and younger",
}
_BEFORE_RE = "|".join(f"(?P<b{d}>{p})" for d, p in _CMP_BEFORE.items())
_AFTER_RE = "|".join(f"(?P<a{d}>{p})" for d, p in _CMP_AFTER.items())

# "Daily life" and "daily activities" are the patient's days, not a dose's frequency.
_NOT_A_PERIOD = r"(?:life|lives|living|activities|activity|routine|tasks|functioning|chores)\b"
_FREQ_RE = (
    rf"(?:(?:{_BEFORE_RE})\s+)?\b(?:(?P<count>{_COUNT}|\d+\s*x)\s+(?:a\s+|per\s+|every\s+|each\s+)?(?P<period>{_PERIOD})"
    rf"|(?P<abbr>{'|'.join(_ABBREVIATED)})|(?P<bare>{_BARE_PERIOD}))\b(?!\s+{_NOT_A_PERIOD})"
)
# What a dose is measured in: a mass, a volume, an amount of substance (mmol) or units.
DOSE_KINDS = frozenset({"mass", "volume", "amount", "units"})
_AMOUNT_UNITS = sorted(
    (u for u, (dim, _) in _UNITS.items() if dim in DOSE_KINDS | {"tablets", "puffs", "drops"}),
    key=len,
    reverse=True,
)
# "2 g a day", "5 mg/kg a day" (written "5 mg/kg/day"): a dose per day, not a day's duration.
_DOSE_A_DAY_RE = (
    r"\b(?:"
    + "|".join(re.escape(u) for u in _AMOUNT_UNITS)
    + r")(?:/(?:kg|m2))?\s+(?P<period>(?:a|per|each)\s+(?:day|week))\b"
)
_PER_DOSE_RE = r"(?:\bper |/)(?:dose|administration)\b"
_TIMES_RE = rf"(?:(?:{_BEFORE_RE})\s+)?\b(?P<count>{_COUNT})(?!\w)"
_FRACTION_WORD = r"(?:half|third|quarter|fifth|sixth|seventh|eighth|tenth)s?\b"  # "one-sixth" is a number
_QUANTITY_RE = (
    rf"(?:(?:{_BEFORE_RE})\s+)?(?:between\s+)?(?<![\w.])(?P<num>half\s+an?|{NUM}|an?)"
    rf"(?P<half>\s+and\s+a\s+half)?"
    rf"(?:(?:st|nd|rd|th)\b(?P<ordinal>))?"
    # an age band from one unit to another: "3 months to 12 years", "6 weeks-5 years"
    rf"(?:\s+(?P<unit1>days?|weeks?|months?)(?=\s*(?:-|to)\s*\d+\s*(?:weeks?|months?|years?)\b))?"
    rf"(?:\s*(?:-|to|and|or)\s*(?P<num2>{NUM}))?"
    rf"(?:\s*(?P<unit>{_UNIT}){_PER}(?P<half2>\s+and\s+a\s+half)?)?(?![\w]|-(?!{_UNIT}\b|old\b|{_FRACTION_WORD})[a-z])"  # "two-level" names
    rf"(?:\s+(?:{_AFTER_RE})\b)?"
)
# "two hundred and fifty", "one and a half", "a dozen": a number said in words, written as digits first.
_UNIT_WORD = "|".join(sorted([*_SMALL, *_TENS], key=len, reverse=True))
_BELOW_100 = rf"(?:{'|'.join(_TENS)})(?:[ -](?:{_UNIT_WORD}))?|{_UNIT_WORD}"
_DIGIT_WORD = "|".join([*_SMALL[:10], "nought"])
_SPOKEN_RE = (
    rf"\b(?:(?P<k>{_UNIT_WORD}|a)\s+thousand(?:(?:\s+and)?\s+(?P<kh>{_UNIT_WORD})\s+hundred)?"
    rf"(?:(?:\s+and)?\s+(?P<kr>{_BELOW_100}))?"
    rf"|(?P<h>{_UNIT_WORD}|a)\s+hundred(?:\s+and)?(?:\s+(?P<r>{_BELOW_100}))?"
    rf"|(?P<n>{_UNIT_WORD}) and a half|(?P<dozen>a dozen|a couple of)"
    rf"|(?P<q>(?:a|one|three) quarters? of an?)\s+(?P<qu>hour|day|tablet|litre|liter|gram|milligram|millilitre)"
    rf"|(?P<i>{_UNIT_WORD}|nought)\s+point\s+(?P<f>(?:{_DIGIT_WORD})(?:\s+(?:{_DIGIT_WORD}))*))\b"
)
# "in 2 divided doses", "divided into 3 doses": a day's total split, so many parts of it at a time. Its count is no
# frequency of its own ("twice daily" is not "2"): a kind of quantity of its own, compared only with its kind.
_DIVIDED_RE = (
    rf"\b(?:in|as)\s+(?P<n>{NUM})(?:\s*(?:-|to|or)\s*(?P<n2>{NUM}))?\s+(?:divided|separate|equal|split)\s+doses\b"
    rf"|\b(?:divided|split)\s+into\s+(?P<d>{NUM})(?:\s*(?:-|to|or)\s*(?P<d2>{NUM}))?\s+doses\b"
)
# What an amount is counted over: "in 24 hours", "in any 24 hours", "per 24 hours", "in a week", just after the
# amount ("8 tablets in 24 hours", "4000 mg of paracetamol in 24 hours"). Not "review the dose in 24 hours": no
# amount.
_WINDOW_BEFORE_RE = (
    rf"(?:\d|\b{_WORDNUM})\s*(?:[a-z]+\s+)?(?:"
    + "|".join(re.escape(u) for u in _AMOUNT_UNITS)
    + r")(?:/(?:kg|m2))?"
    r"(?:\s+of(?:\s+[a-z]+){1,3})?\s+(?:in|per)(?:\s+(?:any|a|one))?\s+$"
)
# "a forty-milligram dose": a number word and its unit, hyphenated
_WORD_UNIT_HYPHEN_RE = (
    rf"\b({_WORDNUM})-(?=(?:{'|'.join(re.escape(u) for u in _UNIT_WORDS if len(u) > 2 and u.isalpha())})\b)"
)
# Compiled once per install (compiled_patterns): together they are most of the cost of importing this module.
(
    _EVERY, _FREQ, _DOSE_A_DAY, _PER_DOSE, _TIMES, _QUANTITY, _SPOKEN, _DIVIDED, _WINDOW_BEFORE, _WORD_UNIT_HYPHEN
) = compiled_patterns.kept(
    "quantities",
    [
        (p, 0)
        for p in (
            _EVERY_RE, _FREQ_RE, _DOSE_A_DAY_RE, _PER_DOSE_RE, _TIMES_RE, _QUANTITY_RE, _SPOKEN_RE, _DIVIDED_RE,
            _WINDOW_BEFORE_RE, _WORD_UNIT_HYPHEN_RE,
        )
    ],
)  # fmt: skip


@dataclass(frozen=True)
class Quantity:
    """A number (or range) in a dimension. ``dim`` is "" for a bare number, which compares with any unit."""

    low: tuple[float, ...]
    high: tuple[float, ...]
    dim: str
    cmp: str | None  # UP ("over 55", "55 or more"), DOWN ("below 30", "within a week") or None
    start: int
    end: int
    text: str
    # The values as written, before the unit's scaling: a bare "over 5" is compared with "older than 5 years"
    # as written (5), not as months (60).
    written: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    # A time an amount is counted over ("8 tablets in 24 hours", "4 g per 24 hours"): a day's dose, as "a day".
    window: bool = False
    # A bare number said of an age ("children under 12"): years, when compared with an age in months or a time.
    age: bool = False
    # One patient's reading, not a rule's number ("an 80-year-old", "a BMI of 28", "saturation … is 91%"): it
    # is borne out by a threshold or range it falls within ("aged 65 and over", "less than 92%").
    case: bool = False

    def same_value(self, other: Quantity) -> bool:
        if self.case and _falls_within(self, other):
            return True
        if self.dim and other.dim and self.dim != other.dim:
            return _one_reading(self, other) or _one_reading(other, self)
        if self.age or other.age:
            years = _in_years(self, other) if self.age else _in_years(other, self)
            if years is not None:
                return years
        if (not self.dim or not other.dim) and self.written and other.written:
            a, b = self.written, other.written
            # One number of a list ("score 3 or 4") is either of its numbers; of a range, its top.
            either = " or " in other.text and _close(a[0], b[0])
            return (_close(a[0], b[0]) and _close(a[1], b[1])) or (
                _close(a[0], a[1]) and (_close(a[0], b[1]) or either)
            )
        if _close(self.low, other.low) and _close(self.high, other.high):
            return True
        if self.dim == other.dim == "percent" and _rounded_ratio(self, other):
            return True
        # "50 mg" stands for one end of "50 to 100 mg". A threshold points into the range from its end ("below
        # 1.0" is its top, "at least 0.4" its bottom); "above 1.0" lies outside "0.4-1.0" and is not said.
        if not _close(self.low, self.high):
            return False
        at_low, at_high = _close(self.low, other.low), _close(self.low, other.high)
        if self.cmp and not other.cmp and not _close(other.low, other.high):
            return at_low if self.cmp == UP else at_high
        return at_low or at_high

    def matches(self, other: Quantity) -> bool:
        """Same value, and the comparators (when both have one) point the same way."""
        if self.cmp and other.cmp and self.cmp != other.cmp:
            return False
        whole = _whole_threshold(self, other)
        return whole if whole is not None else self.same_value(other)


_STRICT = re.compile(
    r"^(?:above|over|more than|greater than|exceeding|below|under|less than|fewer than)\b|^[<>]\s*\d"
)
_INCLUSIVE = re.compile(
    r"\b(?:or (?:more|above|over|higher|greater|less|below|under|lower|fewer)|at least|at most)\b|[≥≤]"
)


def _whole_threshold(a: Quantity, b: Quantity) -> bool | None:
    """Two thresholds of a whole number (a score, a count: no unit, no age), one strict and one inclusive, the
    same when they count the same numbers ("above 2" is "3 or more"; "4 or more" is not "more than 4");
    None when that is not the case to decide."""
    if a.dim or b.dim or a.age or b.age or not a.cmp or a.cmp != b.cmp:
        return None
    values = (*a.low, *a.high, *b.low, *b.high)
    if len(values) != 4 or len(set(a.low + a.high)) != 1 or len(set(b.low + b.high)) != 1:
        return None
    if any(v != int(v) for v in values):
        return None
    inclusive = [_INCLUSIVE.search(q.text) is not None for q in (a, b)]
    strict = [
        _STRICT.search(q.text) is not None and not said for q, said in zip((a, b), inclusive, strict=True)
    ]
    if strict[0] == strict[1] or inclusive[0] == inclusive[1]:
        return None
    step = 1 if a.cmp == UP else -1
    first = a.low[0] + (step if strict[0] else 0)
    second = b.low[0] + (step if strict[1] else 0)
    return first == second


# Strengths in two units a prescriber reads as one: a percentage solution is so many grams in 100 mL (w/v: 0.1%
# is 1 mg/mL, as "1 in 1000" adrenaline is), and an HbA1c in % (DCCT) is one in mmol/mol (IFCC) by the
# published master equation, to the whole mmol/mol the two scales are printed side by side with (6.5% is 48).
_MG_PER_ML_PER_PERCENT = 10.0
_A_SPAN = frozenset({"a day", "a week", "per day", "per week"})


def _falls_within(case: Quantity, rule: Quantity) -> bool:
    """``case``'s one value lies strictly inside ``rule``'s threshold or range (the ends are same_value's).
    A bare number on either side is compared as written ("a BMI of 28" with "30 kg/m2 or more")."""
    if case.dim and rule.dim and case.dim != rule.dim:
        return False
    scaled = bool(case.dim and rule.dim)
    value = case.low if scaled else (case.written or ((),))[0]
    low, high = (rule.low, rule.high) if scaled else (rule.written or ((), ()))
    if not (len(value) == len(low) == len(high) == 1):
        return False
    if rule.cmp == UP:
        return value[0] > low[0]
    if rule.cmp == DOWN:
        return value[0] < high[0]
    return low[0] < value[0] < high[0]


def _one_reading(a: Quantity, b: Quantity) -> bool:
    """``a`` and ``b``, of different kinds, say the same amount: a per-day count and a day's window, a w/v
    percentage and a concentration, an HbA1c in % and in mmol/mol."""
    if not (_close(a.low, a.high) and _close(b.low, b.high)):
        return False
    x, y = a.low[0], b.low[0]
    if a.dim == "per-day" and b.window:
        return abs(x * y / 24 - 1) < 1e-9  # once a day is once in 24 hours; "a week" is 1/7 a day
    if a.dim == "per-day" and b.dim == "time" and b.text in _A_SPAN:
        # "10 micrograms of vitamin D a day": a span said with "a" after the thing taken is its rate.
        return abs(x * y / 24 - 1) < 1e-9
    if a.dim == "percent" and b.dim == "mass/volume":
        return abs(x * _MG_PER_ML_PER_PERCENT - y) <= 1e-9 * max(1.0, y)
    if a.dim == "percent" and b.dim == "amount/amount" and 4 <= x <= 20:
        return round((x - 2.152) / 0.09148) == round(y)
    return False


def _in_years(age: Quantity, other: Quantity) -> bool | None:
    """A bare age against an age in years or months ("under 12" is "under 12 years", not "under 12 months") or
    a time in weeks or days (never the same); None against anything else, compared as written."""
    if other.dim == "months":
        return _close(_scaled(age.low, 12.0), other.low) and _close(_scaled(age.high, 12.0), other.high)
    return False if other.dim == "time" else None


def _rounded_ratio(a: Quantity, b: Quantity) -> bool:
    """One side is a share like "1 in 6" (more than one decimal place: no one writes 16.67%) and the other the
    same share rounded to a whole percent or a tenth. Not below 1%: 1 in 10,000 (0.01%) is not 1 in 1000."""
    x, y = a.low[0], b.low[0]
    single = a.low == a.high and b.low == b.high
    return single and (round(x, 1) != x or round(y, 1) != y) and abs(x - y) < 1 <= min(x, y)


def _close(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return len(a) == len(b) and all(
        abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y)) for x, y in zip(a, b, strict=False)
    )


# What ``normalize`` rewrites, in order, as (pattern, replacement). Compiled here, with the module: a pattern
# first compiled in an answer's middle costs its reader the time (17 of them were ~2% of an offline ask's
# time to its first text).
_Rewrites = tuple[tuple[re.Pattern[str], Any], ...]
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_VULGAR = re.compile(r"(?:(\d)\s?)?([½¼¾])")  # "1½ litres", "½ tablet"
_VULGAR_VALUES = {"½": ".5", "¼": ".25", "¾": ".75"}
# Spellings of one quantity a clinician writes in more than one way, put in one spelling before anything is read.
_SUPERSCRIPT = {"⁹": "9", "¹²": "12"}


def _undotted(m: re.Match[str]) -> str:
    """Dotted "b.d." as "bd.": its last stop stays, where a reader of sentences may take it for an end."""
    return f"{m[1]}{m[2] or ''}d{m[3] or ''}" + ("." if m[0].endswith(".") else "")


_SPELLINGS: _Rewrites = (
    # "greater than or equal to 7" is "at least 7": read as "greater than" alone it lost its direction.
    (re.compile(r"\b(?:(?:greater|more|higher) than or equal to|equal to or (?:greater|more|higher) than)\b"), "at least"),
    (re.compile(r"\b(?:(?:less|lower|fewer) than or equal to|equal to or (?:less|lower|fewer) than)\b"), "at most"),
    (re.compile(r"\binternational units?\b"), "iu"),  # "800 international units" of vitamin D
    (re.compile(r"(?<=\d)\s*mm hg\b"), " mmhg"),
    (re.compile(r"(?<=\d)(?:\s*°\s*|\s*degrees?\s+)(?:celsius|centigrade)\b|(?<=\d) degrees? c\b"), " °c"),
    (re.compile(r"-and-a-half\b"), " and a half"),  # "one-and-a-half tablets"
    # "1.0 × 10⁹/L", "1.0 x 10^9/l": a count per litre, one token, so that 10 and 9 are not numbers of their own
    (re.compile(r"\s*[x×*]\s*10\s*(?:\^\s*)?(9|⁹|12|¹²)\s*/\s*l\b"), lambda m: f" x10e{_SUPERSCRIPT.get(m[1], m[1])}/l"),
    # "125 mL an hour" is a rate, as "125 mL/hour" is; "over an hour" is not
    (re.compile(r"\b(ml|mg|mcg|micrograms?|units?|mmol|g)\s+an? (hour|minute)\b"), r"\1/\2"),
    (re.compile(r"(?<![\d.])(\d{2,3})\+(?=[\s,.;:)]|$)"), r"\1 or over"),  # "aged 65+"
    (re.compile(r"(?<=\d)[\u2009\u202f](?=\d{3}\b)"), ""),  # "1 000 000" with thin spaces: one number
    (re.compile(r"\b(\d+(?:\.\d+)?)\s*million\b"), lambda m: f"{float(m[1]) * 1e6:.0f}"),  # "2.4 million units"
    (re.compile(r"\b(?:up )?to a (?:maximum|max) of\b"), "a maximum of"),  # "up to a maximum of 1 g"
    (_WORD_UNIT_HYPHEN, r"\1 "),  # "a forty-milligram dose", "a two-litre bag"
    (re.compile(r"\s*/\s*24\s*(?:hours?|hrs?|h)\b"), " per 24 hours"),  # "4 g/24 hours"
    # "b.d.", "t.d.s.", "b.i.d.", "q.d.s.": the abbreviations with their stops ("b.d." read as no frequency at all)
    (re.compile(r"\b([obtq])\.(?:(i)\.)?d\.?(?:(s)\b\.?)?(?![a-z])"), _undotted),
    (re.compile(r"\b(once|twice|thrice|times)-(?=(?:daily|weekly|monthly|nightly|a-day|a-week)\b)"), r"\1 "),
    (re.compile(r"-times\b"), " times"),  # "three-times-daily", "a twice-daily dose"
    (re.compile(r"\bby (?:a |one )?half\b"), "by 50%"),  # "reduce the dose by half"
)  # fmt: skip
_ABBREVIATED_RANGE = re.compile(rf"\b({'|'.join(_ABBREVIATED)})\s*(?:-|to|or)\s*({'|'.join(_ABBREVIATED)})\b")
# "500 mg-1 g", "3 months-12 years"
_RANGE_UNITS = frozenset("mg g mcg microgram micrograms ml mmol units unit kg days weeks months".split())
_WORDING: _Rewrites = (
    # "CRB-65", "COVID-19": names, not numbers; but "500 mg-1 g" is a range of doses.
    (re.compile(r"([a-z]+)-(?=\d)"), lambda m: m[1] + (" to " if m[1] in _RANGE_UNITS else "")),
    (NAMED_NUMBER, r"\1"),  # "type 2": a name too (as the lexicon writes its phrases)
    (re.compile(r"\bfrom (\d+(?:\.\d+)?) up to (?=\d)"), r"from \1 to "),  # "from 2 up to 17 years": a band
    (re.compile(r"\bwithin the (?:previous|past|last) (hour|day|week|month|year)\b"), r"within 1 \1"),
    (re.compile(r"\b(up to|no more than|not more than|at most|a maximum of) a total of\b"), r"\1"),
    # "throughout the first year": a period of one ("after the first week" is not one)
    (
        re.compile(
            r"\b((?:during|throughout|in|within|for|over) (?:the|their|its|his|her)) first (year|month|week|day)\b"
        ),
        r"\1 first 1 \2",
    ),
    # "the first birthday", "their 15th birthday": an age in years
    (re.compile(r"\bfirst birthday\b"), "1st birthday"),
    (re.compile(r"\b(\d+)(?:st|nd|rd|th) birthday\b"), r"\1 years of age"),
    # "tds-qds": three or four times daily
    (_ABBREVIATED_RANGE, lambda m: f"{_ABBREVIATED[m[1]]:g} to {_ABBREVIATED[m[2]]:g} times daily"),
    (re.compile(r"\bper cent\b"), "percent"),  # one unit, not "per" and "cent"
    (re.compile(r"(?<=[a-z])-(?=(?:day|week|month|year|hour|minute)s?\b)"), " "),  # "one-week" → "one week"
    (re.compile(r"\s*(?:/|\bper\b)\s*(day|week)\b"), r" a \1"),  # "mg/day", "mL per day" are "a day"
    (re.compile(r"\b(\w+?)-?fold\b"), r"\1 times"),  # "fivefold" is five times
    (re.compile(r"\b(?:a )?single\b"), "one"),  # "a single dose" is one dose
    (re.compile(r"\bone (?=of (?:the|these|those|them|its|their|several|many)\b)"), "any "),  # not a count
    (re.compile(r"\bhalv(e|ed|es|ing)\b"), lambda m: f"reduc{m.group(1)} by 50%"),  # "halved" is by 50%
    (
        re.compile(r"\b(can|won|shan)[’']t\b"),
        lambda m: {"won": "will", "shan": "shall"}.get(m[1], m[1]) + " not",
    ),
    (re.compile(r"n[’']t\b"), " not"),  # "shouldn't" is "should not": the negation a reading looks for
)
_EVERY_OTHER_DAY = re.compile(r"\b(?:every other|alternate) days?\b")
# "3 consecutive weeks" is 3 weeks; "within the first hour" is within an hour.
_PERIODS: _Rewrites = (
    (re.compile(r"\b(?:consecutive|successive|further|additional)\s+(?=(?:hours?|days?|weeks?|months?|doses?)\b)"), ""),
    (
        re.compile(r"\b(within|during|in) the first (?=(?:\d+(?:\.\d+)? )?(?:hours?|days?|weeks?|months?|years?)\b)"),
        r"\1 ",
    ),
    (re.compile(r"\b(within|during|in) (hour|day|week|month|year)\b"), r"\1 1 \2"),
    (re.compile(r"\bat intervals of (?=\d)"), "every "),  # "repeated at intervals of 2-3 minutes"
    (re.compile(r"\b(under|over)[ -](\d+)s\b"), r"\1 \2 years"),  # "under 18s" are people, not seconds
    (re.compile(r"\b(?:in\s+)?(?:their|his|her|your|the)\s+([1-9])0s\b"), r"aged \g<1>0 to \g<1>9 years"),  # "in their 70s"
    (re.compile(r"\ban? (day|week|month|year) or two\b"), r"1-2 \1s"),  # "after a day or two"
    # Prescribers' shorthand for a course: "x 3/7" is 3 days, "for 2/52" 2 weeks, "x 6/12" 6 months.
    (re.compile(r"\b(x|for)\s*(\d{1,2})/7\b"), r"for \2 days"),
    (re.compile(r"\b(x|for)\s*(\d{1,2})/52\b"), r"for \2 weeks"),
    (re.compile(r"\b(x|for)\s*(\d{1,2})/12\b"), r"for \2 months"),
    (re.compile(r"\bannual(?:ly)?\b"), "yearly"),  # "the annual flu vaccine" is given yearly
    (re.compile(r"(?<=[a-z]) over 24 (?:hours|h)\b"), " a day"),  # "60-120 mg over 24 hours" via a driver
    # "The two should not be combined": both, no count ("the two risk factors" is one).
    (re.compile(r"\bthe two(?=\s+(?:should|must|can|may|are|were|is|do|does|together)\b|\s*[.,;]|$)"), "both"),
)  # fmt: skip
# "3 years 4 months of age" is one age, 40 months, not two numbers.
_FEW = r"\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
_YEARS_MONTHS = re.compile(rf"\b({_FEW}) years? (?:and )?({_FEW}) months?\b")


def _months(m: re.Match[str]) -> str:
    years, months = (int(g) if g.isdigit() else WORD_NUMBERS[g] for g in (m[1], m[2]))
    return f"{int(years * 12 + months)} months"


# "should not take more than 4 g" is "should take no more than 4 g": a limit, not a negation.
# So is "do not start TXA more than 3 hours after injury" ("start it no more than 3 hours after") and "should
# not be used for more than five days".
_LIMITS: _Rewrites = (
    (
        re.compile(
            r"\b(?:not|never)\s+((?:to\s+)?(?:take|give|use|exceed|be given|be used|be taken|receive|have|start|"
            r"be started|continue|be continued|prescribe|be prescribed|drink|eat|consume)\s+(?:(?!more\b|less\b|fewer\b|longer\b)[a-z]+\s+){0,2}?)"
            r"(more|less|fewer|longer) than\b"
        ),
        r"\1no \2 than",
    ),
    # "Avoid prescribing them for longer than 4 weeks": prescribe them for no longer than 4 weeks.
    (
        re.compile(
            r"\bavoid\s+((?:taking|giving|using|prescribing|continuing|starting)\s+"
            r"(?:(?!more\b|longer\b)[a-z]+\s+){0,2}?)(more|longer) than\b"
        ),
        r"\1no \2 than",
    ),
    (re.compile(r"\b(?:do|does|should|must) not exceed\b"), "no more than"),
)
_FAHRENHEIT = re.compile(r"(\d+(?:\.\d+)?)\s*°?\s*f\b")  # 100.4°F is 38 °C
_DAY_HYPHEN = re.compile(r"(?<=\d)-(?=[a-z])")  # "7-day" → "7 day"


def _rewritten(text: str, rewrites: _Rewrites) -> str:
    for pattern, replacement in rewrites:
        text = pattern.sub(replacement, text)
    return text


@lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """Lower case, one spelling for dashes, symbols and thousands separators. Positions in ``find`` refer to
    this text. Kept for the texts last read: one excerpt's sentences are normalised once per check, and a
    claim's ten or more times, by some 150 rewrites each."""
    t = (
        text.lower()
        .replace("–", "-")
        .replace("—", "-")
        .replace("µg", "mcg")
        .replace("\u00a0", " ")
        .replace("º", "°")
    )
    t = _VULGAR.sub(lambda m: (m[1] or "0") + _VULGAR_VALUES[m[2]], t)
    t = _THOUSANDS.sub("", t)
    t = (
        t.replace("≥", " at least ")
        .replace("≤", " at most ")
        .replace(">", " more than ")
        .replace("<", " less than ")
    )
    t = _rewritten(t, _SPELLINGS)
    t = _rewritten(t, _WORDING)
    t = _SPOKEN.sub(_spoken, t)
    t = _EVERY_OTHER_DAY.sub("every 2 days", t)
    t = t.replace("m²", "m2")  # "30 kg/m²" is a BMI, not 30 kg
    t = _rewritten(t, _PERIODS)
    t = _YEARS_MONTHS.sub(_months, t)
    t = _ONE_IN.sub(_as_percent, t)
    t = _FRACTION.sub(lambda m: _SHARES[m.group("f").replace("-", " ")], t)
    t = _rewritten(t, _LIMITS)
    t = _FAHRENHEIT.sub(_celsius, t)
    return _DAY_HYPHEN.sub(" ", t)


# "1 in 4 adults" is 25% of them. A share not exact to a tenth ("1 in 6", 16.67%) is written to four places, so
# that ``same_value`` knows it for a ratio, which a clinician rounds either way ("16%", "17%").
_COUNT_WORD = r"\d{1,7}|one|two|three|four|five|six|seven|eight|nine|ten|twenty|a hundred"
_ONE_IN = re.compile(
    rf"\b({_COUNT_WORD}) in ({_COUNT_WORD})\b(?!\s*(?:mg|ml|g|l|kg|mmol|micrograms?|mcg|units?)\b)"
    # "1:1000" adrenaline is "1 in 1000" (a strength, not a time: 1 part in 100 or more)
    r"|\b(1)\s*:\s*(\d{3,7})\b"
)


# "half of each dose", "less than half their usual feeds", "a third of patients": a share of a whole, as the
# percentage a source writes ("50% of"). Not "half a tablet" nor "a quarter of an hour" (amounts, read above).
_SHARE = r"(?:half|a third|one[ -]third|two[ -]thirds|a quarter|one[ -]quarter|three[ -]quarters)"
_FRACTION = re.compile(
    rf"\b(?P<f>{_SHARE})"
    r"(?=\s+(?:of\s+(?!an?\s+(?:hour|day|week|month|year|tablet|dose)\b)|the(?!\s+(?:tablet|dose|capsule|pill|"
    rf"sachet|amount)s?\b)|their|his|her|its|all|each|every|(?:to|or|and)\s+{_SHARE}\s+of)\b)"
)  # a range's first end too: "half to three-quarters of their usual feeds"
_SHARES = {"half": "50%", "a third": "33.3333%", "one third": "33.3333%", "two thirds": "66.6667%",
           "a quarter": "25%", "one quarter": "25%", "three quarters": "75%"}  # fmt: skip


def _count_of(word: str) -> float:
    return float(word) if word.isdigit() else WORD_NUMBERS[word.split()[-1]]


def _as_percent(m: re.Match[str]) -> str:
    n, d = _count_of(m.group(1) or m.group(3)), _count_of(m.group(2) or m.group(4))
    if not 0 < n < d:
        return m.group(0)
    share = 100 * n / d
    return f"{share:g}%" if round(share, 1) == share else f"{share:.4f}%"


def _spoken(m: re.Match[str]) -> str:
    if m.group("dozen"):
        return "12" if "dozen" in m.group("dozen") else "2"
    if m.group("k"):  # "two thousand five hundred": 2500
        return f"{_said(m['k']) * 1000 + _said(m['kh']) * 100 + _said(m['kr']):g}"
    if m.group("i"):  # "nought point five", "one point two five": decimals said aloud
        return f"{_said(m['i']):g}." + "".join(f"{_said(d):g}" for d in m["f"].split())
    if m.group("q"):  # "a quarter of an hour" is 15 minutes, "three quarters of a tablet" 0.75 tablet
        share = 0.75 if m.group("q").startswith("three") else 0.25
        return {"hour": f"{share * 60:g} minutes", "day": f"{share * 24:g} hours"}.get(
            m["qu"], f"{share:g} {m['qu']}"
        )
    if m.group("n"):
        return f"{(_number(m.group('n')) or (0.0,))[0] + 0.5:g}"
    return f"{_said(m['h']) * 100 + _said(m['r']):g}"


def _said(word: str | None) -> float:
    """A number said in words ("a", "nought", "forty-two"); 0 for none."""
    if not word or word == "nought":
        return 0.0
    return (_number(word) or (0.0,))[0]


def _celsius(m: re.Match[str]) -> str:
    return f"{(float(m.group(1)) - 32) * 5 / 9:.1f} °c"


def _number(word: str) -> tuple[float, ...] | None:
    word = word.strip()
    if word in ("a", "an"):
        return (1.0,)
    if word.startswith("half"):  # "half an hour"
        return (0.5,)
    if word in WORD_NUMBERS:
        return (WORD_NUMBERS[word],)
    tens = re.fullmatch(r"([a-z]+)[ -]([a-z]+)", word)
    if tens and tens.group(1) in _TENS:
        return (_TENS[tens.group(1)] + WORD_NUMBERS.get(tens.group(2), 0.0),)
    try:
        return tuple(float(p) for p in word.split("/"))
    except ValueError:
        return None


def _cmp(m: re.Match[str]) -> str | None:
    for d in (UP, DOWN):
        if m.groupdict().get(f"b{d}") or m.groupdict().get(f"a{d}"):
            return d
    return None


def _count(text: str) -> tuple[float, float]:
    text = text.strip()
    if text in ("once", "twice", "thrice"):
        v = {"once": 1.0, "twice": 2.0, "thrice": 3.0}[text]
        return v, v
    if text == "once or twice":
        return 1.0, 2.0
    nums = [_number(n) for n in re.findall(NUM, text.replace(" times", ""))]
    values = [n[0] for n in nums if n]
    return (values[0], values[-1]) if values else (1.0, 1.0)


def _scaled(values: tuple[float, ...], factor: float) -> tuple[float, ...]:
    return tuple(v * factor for v in values)


def find(text: str) -> list[Quantity]:
    """Every quantity in ``text`` (normalised with ``normalize`` first), in order of position."""
    t = normalize(text)
    taken = [False] * (len(t) + 1)
    out: list[Quantity] = []

    def claim(m: re.Match[str]) -> bool:
        if any(taken[m.start() : m.end()]):
            return False
        for i in range(m.start(), m.end()):
            taken[i] = True
        return True

    for m in _DOSE_A_DAY.finditer(t):  # "2 g a day": a dose per day, not a day's duration
        a, b = m.span("period")
        if not any(taken[a:b]):
            taken[a:b] = [True] * (b - a)
            days: float = {"day": 1, "week": 7}[m.group("period").split()[-1]]
            out.append(Quantity((1 / days,), (1 / days,), "per-day", None, a, b, m.group("period")))
    for m in _PER_DOSE.finditer(t):  # "4 g per dose" is not "4 g a day"
        if claim(m):
            out.append(Quantity((1.0,), (1.0,), "per-dose", None, m.start(), m.end(), m.group(0)))
    for m in _DIVIDED.finditer(t):  # "2 g daily in 2 divided doses" is 1 g twice daily, not 2 g twice daily
        if claim(m):
            out.append(_divided(m))
    for m in _EVERY.finditer(t):  # "every 12 hours", "q8h", "six-monthly": so many a day
        if claim(m):
            out.append(_every(m))
    for m in _FREQ.finditer(t):  # "twice daily", "three times a week", "bd", "daily"
        if not claim(m):
            continue
        lo, hi = (
            (_ABBREVIATED[m.group("abbr")],) * 2 if m.group("abbr") else _count(m.group("count") or "once")
        )
        days = _PERIOD_DAYS[(m.group("period") or m.group("bare") or "daily").strip()]
        out.append(
            Quantity((lo / days,), (hi / days,), "per-day", _cmp(m), m.start(), m.end(), m.group(0).strip())
        )
    for m in _TIMES.finditer(t):  # "twice the upper limit", "five times", "applied twice"
        if m.group("count") == "once" or not claim(m):
            continue
        lo, hi = _count(m.group("count"))
        out.append(Quantity((lo,), (hi,), "times", _cmp(m), m.start(), m.end(), m.group(0).strip()))
    for m in _QUANTITY.finditer(t):
        q = _quantity(m)
        if q is not None and claim(m):
            out.append(q)
    out += [_solution_mass(m) for m in _SOLUTION.finditer(t)]
    out = [replace(q, window=True) if _is_window(q, t) else q for q in out]
    if _GLUCOSE.search(t):
        out = [_as_glucose_molar(q) for q in out]
    return sorted(out, key=lambda q: q.start)


def _divided(m: re.Match[str]) -> Quantity:
    first = m.group("n") or m.group("d")
    lo = _number(first) or (1.0,)
    hi = _number(m.group("n2") or m.group("d2") or first) or lo
    return Quantity(lo, hi, "divided doses", None, m.start(), m.end(), m.group(0), written=(lo, hi))


_WINDOW_HOURS = (24.0, 168.0)


def _is_window(q: Quantity, text: str) -> bool:
    return (
        q.dim == "time"
        and q.cmp is None
        and q.low == q.high
        and any(_close(q.low, (h,)) for h in _WINDOW_HOURS)
        and bool(_WINDOW_BEFORE.search(text, max(0, q.start - 60), q.start))
    )


# "10 mL of 10% calcium gluconate" holds 1 g: a percentage solution is so many grams in 100 mL (w/v), as a
# prescriber reads it. The mass is added to what the text says, not put in place of the volume or percentage.
_SOLUTION = re.compile(r"\b(\d+(?:\.\d+)?)\s*(ml|l|litres?|liters?) of (?:[a-z]+ ){0,3}?(\d+(?:\.\d+)?)\s*%")


def _solution_mass(m: re.Match[str]) -> Quantity:
    millilitres = float(m.group(1)) * _UNITS[m.group(2)][1]  # "1 L of 0.9%" holds 9 g, as "1000 mL of" does
    grams = millilitres * float(m.group(3)) / 100
    mass = (grams * _UNITS["g"][1],)
    # Placed at the end of the words that say it, taking none of them: they are the volume's and the percentage's.
    return Quantity(mass, mass, "mass", None, m.end(), m.end(), f"{grams:g} g in {m.group(0)}")


# Blood glucose in mg/dL is mmol/L times 18 (glucose's molar mass, 180 g/mol): 126 mg/dL is 7.0 mmol/L.
_GLUCOSE = re.compile(r"\b(?:glucose|glycaemi|glycemi|hypoglycaem|hyperglycaem|blood sugar)")
_GLUCOSE_MG_PER_MMOL = 18.016


def _as_glucose_molar(q: Quantity) -> Quantity:
    """A glucose concentration in mg/dL as the mmol/L a clinician would read it as, to one decimal."""
    if q.dim != "mass/volume" or not re.search(r"mg\s*/\s*dl\b", q.text) or q.written is None:
        return q

    def molar(values: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(round(v / _GLUCOSE_MG_PER_MMOL, 1) / 1000 for v in values)

    low, high = q.written
    return replace(q, low=molar(low), high=molar(high), dim="amount/volume")


def _every(m: re.Match[str]) -> Quantity:
    if m.group("d") or m.group("d2"):  # every 2 days: half a dose a day; "six-monthly" once in 180 days
        n = (_number(m.group("d") or m.group("d2")) or (1.0,))[0]
        last = m.group("dr") or m.group("dr2")
        n2 = (_number(last) or (n,))[0] if last else n
        period = _PERIOD_OF[m.group("per") or m.group("per2")]
        # Every 6 to 8 weeks is once in 56 days at the least, once in 42 at the most.
        return Quantity(
            (1 / (n2 * period),), (1 / (n * period),), "per-day", None, m.start(), m.end(), m.group(0).strip()
        )
    first = m.group("n") or m.group("h") or m.group("q")
    last = m.group("n2") or m.group("h2") or m.group("q2") or first
    lo, hi = (_number(first) or (1.0,))[0], (_number(last) or (1.0,))[0]
    if m.group("min"):
        lo, hi = lo / 60, hi / 60
    # Every 4 to 6 hours is 6 down to 4 times a day.
    return Quantity((24 / hi,), (24 / lo,), "per-day", None, m.start(), m.end(), m.group(0).strip())


# What "a" or "an" counts one of: a time ("a week"), a gram or a litre spelled out, a tablet or a puff taken
# ("take a tablet" is one; "a tablet formulation" is none). Not "a second dose" (an ordinal), "a drop in blood
# pressure", "a unit" (a ward) nor "a dose".
_COUNTED_WITH_A = frozenset({"time", "months"})
_ONE_OF = frozenset("gram milligram microgram litre liter millilitre milliliter".split())
_TAKEN = re.compile(r"\b(?:take|takes|taking|took|taken|give|given|giving|chew|swallow|inhale|use|using)\s+$")


def _counted(word: str, unit: str | None, before: str) -> bool:
    if not unit:
        return False
    if word.startswith("half"):  # "half a tablet"
        return True
    if _UNITS[unit][0] in ("tablets", "puffs"):
        return bool(_TAKEN.search(before[-20:]))
    return (_UNITS[unit][0] in _COUNTED_WITH_A and unit not in ("s", "sec", "second")) or unit in _ONE_OF


def _per_dim(unit: str) -> str:
    """What a unit after "per" makes of a quantity's kind. A rate's time keeps its own size, as its number is
    kept as written: 30 mL/min is not 30 mL/hour."""
    dim, factor = _UNITS.get(unit, (unit, 1.0))
    return f"time*{factor:g}" if dim == "time" and factor != 1.0 else dim or unit


_HOURS_A_MONTH = 24 * _PERIOD_OF["month"]  # as "every month" is read


def _quantity(m: re.Match[str]) -> Quantity | None:
    unit = m.group("unit")
    word = m.group("num")
    if word.split()[-1] in ("a", "an") and not _counted(word, unit, m.string[: m.start()]):
        return None  # "a week", "a tablet" and "half a tablet" are quantities, "a dose" is not
    if unit and not word[-1].isdigit() and not m.group(0)[m.end("num") - m.start() :].startswith(" "):
        return (
            None  # only digits are written against their unit ("5mg"): "as" is not "a s", "ones" not "one s"
        )
    low = _number(word)
    if low is None or (word == "half" and not unit) or _pronoun(m):
        return None
    if m.group("half") or m.group("half2"):  # "two and a half hours", "an hour and a half"
        low = (low[0] + 0.5,)
    high = _number(m.group("num2")) if m.group("num2") else low
    if high is None:
        return None
    dim, factor = ("", 1.0)
    if unit and m.group("ordinal") is None:
        dim, factor = _UNITS[unit]
        if m.group("unit1"):  # the band's low end, written in its own unit, in the high end's
            dim1, factor1 = _UNITS[m.group("unit1")]
            scale = factor1 / _HOURS_A_MONTH if dim1 == "time" and dim == "months" else factor1
            low = (low[0] * scale / factor,)
        per = [
            p.replace(" ", "") for p in re.findall(rf"(?:/|\bper\b)\s*(1\.73\s*m2|m2|{_UNIT})", m.group(0))
        ]
        if per:
            dim += "/" + "/".join(_per_dim(p) for p in per)
            # Per litre is a thousandth per millilitre (30 ng/mL is 30 micrograms/L); a rate per minute
            # stays as written, as a bare "45" compares with "45 mL/min".
            for p in per:
                if _UNITS.get(p, ("", 1.0))[0] in ("volume", "mass"):
                    factor /= _UNITS[p][1]
    cmp = None if _over_a_period(m, dim) else _cmp(m)
    return Quantity(
        _scaled(low, factor),
        _scaled(high, factor),
        dim,
        cmp,
        m.start(),
        m.end(),
        m.group(0).strip(),
        written=(low, high),
        age=_is_age(m),
        case=cmp is None and _is_case(m, dim),
    )


# "Over" a time after a change or a giving is the period it happens in ("gains 2 kg over 3 days", "infused over
# 60 minutes"), not "more than"; after a word of lasting it is more than ("symptoms lasting over 3 days").
_OVER = re.compile(r"\bover\s")
_LASTING = re.compile(
    r"\b(?:for|lasting|lasts?|lasted|persist(?:s|ing|ed)?|of|aged?|than|is|are|was|were)\s+$"
)


def _over_a_period(m: re.Match[str], dim: str) -> bool:
    return (
        dim == "time"
        and bool(_OVER.match(m.group(0).lstrip()))
        and not _LASTING.search(m.string[: m.start()])
    )


# A bare number said of someone's age is in years, as a clinician reads it: "younger than 12", "aged 65 or
# over", "children under 5" (not "under 5 months"). It stays a bare number, compared with other bare numbers as
# before ("at 55 or over" is still the rival of "adults under 55"). Babies' and infants' ages are left alone.
_AGE_CUE = re.compile(
    r"(?:\b(?:aged?|ages)\s+(?:(?:between|from|over|under|above|below|at least|less than|more than|up to)\s+)?"
    r"|\b(?:older|younger) than\s+"
    r"|\b(?:children|adults|people|patients|women|men|girls|boys|adolescents|those|anyone|individuals|persons)"
    r"\s+(?:aged\s+)?(?:over|under|above|below)\s+)$"
)


# One patient's reading: "an 80-year-old", "a BMI of 28", "a potassium of 6.8 mmol/L", "saturation in air is
# 91%". Not a rule's own number ("a target of 140", "the maximum is 4 g"), nor a dose, a volume or a time.
# The reading is named by what is measured: "a risk of 10%" or "the dose is 2" is no patient's reading.
_MEASURED = (
    r"bmi|potassium|sodium|calcium|magnesium|glucose|sugar|temperature|saturation|sats|level|concentration|hba1c|"
    r"egfr|creatinine|inr|ferritin|ha?emoglobin|score|pressure|count|reading|weight|clearance|crp|troponin|lactate"
)
_CASE_BEFORE = re.compile(
    rf"(?:\b(?:a|an)\s+(?:[\w'-]+\s+){{0,4}}aged"
    rf"|\b(?:{_MEASURED})\b(?:\s+[\w'-]+){{0,3}}\s+(?:of|is|was|reads|measures|measured at))\s*$"
)
_CASE_AFTER = re.compile(r"^-?(?:year|month|week)s?-old\b")
_NOT_CASE = re.compile(
    r"\b(?:threshold|target|goal|aim|cut-?off|limit|max(?:imum)?|min(?:imum)?|dose|range|between)\b"
)
_CASE_DIMS = frozenset(
    {"", "percent", "celsius", "amount/volume", "mass/volume", "kg/m2", "mmhg", "kpa", "months"}
)


def _is_case(m: re.Match[str], dim: str) -> bool:
    before = m.string[max(0, m.start("num") - 50) : m.start("num")]
    if dim not in _CASE_DIMS or m.group("num2") or _NOT_CASE.search(before):
        return False
    if dim == "months":  # an age: "a 3-year-old", not "for 3 years" or "at 3 months"
        return bool(_CASE_AFTER.match(m.string[m.end("num") :].lstrip()))
    return bool(_CASE_BEFORE.search(before))


def _is_age(m: re.Match[str]) -> bool:
    if m.group("unit") or m.group("ordinal") is not None:
        return False
    return bool(_AGE_CUE.search(m.string, max(0, m.start("num") - 40), m.start("num")))


# "One" standing for a noun said before ("not started during one", "a new one,", "the previous one") is no
# number: "no one"; one after a word that marks a thing already named ("the first one was not diagnostic", "a
# new one every two days"); or a word that leads a noun, then the end of the clause. Nor is "one" of an option
# ("is one option" is an option, not a count of them).
_NO_ONE = re.compile(r"\bno$")
_NAMED_BEFORE = re.compile(r"\b(?:first|second|last|previous|next|other|another|each|new|same)$")
_LEADS_NOUN = re.compile(r"\b(?:any|each|every|this|that|which|another|new|the|a|during)$")
# "if one is truly essential": a subject after "if", "when" or "unless", standing for the thing named before.
_SUBJECT = (
    re.compile(r"\b(?:if|when|unless|where)$"),
    re.compile(r"^(?:is|are|was|should|must|can|may|has)\b"),
)
_IS_BEFORE, _AN_OPTION = (
    re.compile(r"\b(?:is|are|as)$"),
    re.compile(r"^(?:option|choice|alternative|way|approach)\b"),
)


def _pronoun(m: re.Match[str]) -> bool:
    if m.group("num") != "one" or m.group("unit") or m.group("num2"):
        return False
    before, after = m.string[: m.start("num")].rstrip(), m.string[m.end() :].lstrip()
    if (
        _NO_ONE.search(before)
        or _NAMED_BEFORE.search(before)
        or (_IS_BEFORE.search(before) and _AN_OPTION.match(after))
        or (_SUBJECT[0].search(before) and _SUBJECT[1].match(after))
    ):
        return True
    return bool(_LEADS_NOUN.search(before)) and (not after or after[0] in ".,;:)")


def describe(q: Quantity) -> str:
    return q.text
