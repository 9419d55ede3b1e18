"""Numbers as a clinician reads them: doses, durations, frequencies, thresholds, in words or digits.

``find`` turns "five days", "a fortnight", "twice daily", "1 g", "more than 5 times the upper limit" and
"below 45 mL/min" into ``Quantity`` values that compare across spellings: 1 g is 1000 mg, 48 hours is 2 days,
"a week" is 7 days, "twice the upper limit" is 2 times. Months and years stay apart from weeks (3 months is not
12 weeks). A comparator ("over", "or more", "below", "within") travels with its number. The veto and the
offline model's reading of text both use this module, so a number means the same thing to both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
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
    ("g gram grams gm", "mass", 1e3),
    ("mg milligram milligrams", "mass", 1.0),
    ("mcg microgram micrograms ug µg", "mass", 1e-3),
    ("ng nanogram nanograms", "mass", 1e-6),
    ("l litre litres liter liters", "volume", 1e3),
    ("ml millilitre millilitres milliliter milliliters", "volume", 1.0),
    ("dl decilitre decilitres deciliter deciliters", "volume", 100.0),  # haemoglobin in g/dL is 10 x g/L
    ("mmol millimole millimoles", "amount", 1.0),
    ("micromol µmol umol micromoles", "amount", 1e-3),
    ("s sec secs second seconds", "time", 1 / 3600),
    ("min mins minute minutes", "time", 1 / 60),
    ("h hr hrs hour hours", "time", 1.0),
    ("day days", "time", 24.0),
    ("week weeks wk wks", "time", 168.0),
    ("fortnight fortnights", "time", 336.0),
    ("month months", "months", 1.0),
    ("year years yr yrs", "months", 12.0),
    ("% percent per cent", "percent", 1.0),
    ("iu unit units", "units", 1.0),
    ("mmhg", "mmhg", 1.0),
    ("mm millimetre millimetres millimeter millimeters", "length", 1.0),  # an induration, a wound, a lesion
    ("cm centimetre centimetres centimeter centimeters", "length", 10.0),
    ("°c degrees", "celsius", 1.0),
    ("dose doses", "doses", 1.0),
    ("tablet tablets", "tablets", 1.0),
    ("puff puffs", "puffs", 1.0),
    ("drop drops", "drops", 1.0),
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
}
_PERIOD = r"(?:" + "|".join(sorted((re.escape(p) for p in _PERIOD_DAYS), key=len, reverse=True)) + r")"
_BARE_PERIOD = (  # "a week" is a duration
    r"(?:daily|weekly|monthly|yearly|annually|every day|each day|every week|every morning|each morning|"
    r"every evening|every night|each night|nightly)"
)
_COUNT = rf"(?:once|twice|thrice|{NUM}\s+times|{NUM}\s+or\s+{NUM}\s+times|{NUM}\s+to\s+{NUM}\s+times)"
_ABBREVIATED = {"od": 1.0, "bd": 2.0, "bid": 2.0, "tds": 3.0, "tid": 3.0, "qds": 4.0, "qid": 4.0}
# "every 8 hours", "8-hourly", "q8h": a frequency, 24 / N a day (a range "every 4 to 6 hours" is 4 to 6 a day).
_EVERY_RE = (
    rf"\b(?:every\s+(?P<n>{NUM})(?:\s*(?:-|to)\s*(?P<n2>{NUM}))?\s*(?:hours?|hrs?|h)\b"
    rf"|(?P<h>{NUM})[ -]hourly\b|q(?P<q>\d+)(?:-(?P<q2>\d+))?h\b"
    rf"|every\s+(?P<d>{NUM})\s+(?P<per>day|week|month|year)s?\b|(?P<d2>{NUM})[ -](?P<per2>week|month|year)ly\b)"
)
_PERIOD_OF = {"day": 1, "week": 7, "month": 365 / 12, "year": 365}

UP, DOWN = "up", "down"
_CMP_BEFORE = {
    UP: "no less than|not less than|no fewer than|not fewer than|more than|greater than|higher than|at least|"
    "over|above|beyond|exceeding|exceeds|older than|a minimum of|minimum of|in excess of|longer than",
    DOWN: "less than|fewer than|lower than|at most|no more than|not more than|up to|under|below|within|"
    "no later than|not later than|not beyond|younger than|a maximum of|maximum of|a max of|max of|not exceeding|"
    "no longer than|shorter than",
}
_CMP_AFTER = {
    UP: "or more|or over|or higher|or above|or greater|or larger|or longer|or older|and over|and above|and older|plus",
    DOWN: "or less|or fewer|or lower|or below|or under|or smaller|or shorter|or younger|and under|and below|"
    "and younger",
}
_BEFORE_RE = "|".join(f"(?P<b{d}>{p})" for d, p in _CMP_BEFORE.items())
_AFTER_RE = "|".join(f"(?P<a{d}>{p})" for d, p in _CMP_AFTER.items())

_FREQ_RE = (
    rf"(?:(?:{_BEFORE_RE})\s+)?\b(?:(?P<count>{_COUNT})\s+(?:a\s+|per\s+|every\s+|each\s+)?(?P<period>{_PERIOD})"
    rf"|(?P<abbr>{'|'.join(_ABBREVIATED)})|(?P<bare>{_BARE_PERIOD}))\b"
)
_AMOUNT_UNITS = sorted(
    (
        u
        for u, (dim, _) in _UNITS.items()
        if dim in ("mass", "volume", "amount", "units", "tablets", "puffs", "drops")
    ),
    key=len,
    reverse=True,
)
_DOSE_A_DAY_RE = (
    r"\b(?:"
    + "|".join(re.escape(u) for u in _AMOUNT_UNITS)
    + r")\s+(?P<period>(?:a|per|each)\s+(?:day|week))\b"
)
_PER_DOSE_RE = r"\bper (?:dose|administration)\b"
_TIMES_RE = rf"(?:(?:{_BEFORE_RE})\s+)?\b(?P<count>{_COUNT})(?!\w)"
_QUANTITY_RE = (
    rf"(?:(?:{_BEFORE_RE})\s+)?(?:between\s+)?(?<![\w.])(?P<num>half\s+an?|{NUM}|an?)"
    rf"(?P<half>\s+and\s+a\s+half)?"
    rf"(?:(?:st|nd|rd|th)\b(?P<ordinal>))?"
    rf"(?:\s*(?:-|to|and|or)\s*(?P<num2>{NUM}))?"
    rf"(?:\s*(?P<unit>{_UNIT}){_PER}(?P<half2>\s+and\s+a\s+half)?)?(?![\w])"
    rf"(?:\s+(?:{_AFTER_RE})\b)?"
)
# "two hundred and fifty", "one and a half", "a dozen": a number said in words, written as digits first.
_UNIT_WORD = "|".join(sorted([*_SMALL, *_TENS], key=len, reverse=True))
_SPOKEN_RE = (
    rf"\b(?:(?P<h>{_UNIT_WORD})\s+hundred(?:\s+and)?(?:\s+(?P<r>(?:{'|'.join(_TENS)})(?:[ -](?:{_UNIT_WORD}))?|{_UNIT_WORD}))?"
    rf"|(?P<n>{_UNIT_WORD}) and a half|(?P<dozen>a dozen|a couple of)|(?P<q>a quarter of an?)\s+(?P<qu>hour|day))\b"
)
# Compiled once per install (compiled_patterns): together they are most of the cost of importing this module.
_EVERY, _FREQ, _DOSE_A_DAY, _PER_DOSE, _TIMES, _QUANTITY, _SPOKEN = compiled_patterns.kept(
    "quantities",
    [
        (p, 0)
        for p in (_EVERY_RE, _FREQ_RE, _DOSE_A_DAY_RE, _PER_DOSE_RE, _TIMES_RE, _QUANTITY_RE, _SPOKEN_RE)
    ],
)


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

    def same_value(self, other: Quantity) -> bool:
        if self.dim and other.dim and self.dim != other.dim:
            return False
        if (not self.dim or not other.dim) and self.written and other.written:
            a, b = self.written, other.written
            return (_close(a[0], b[0]) and _close(a[1], b[1])) or (_close(a[0], a[1]) and _close(a[0], b[1]))
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
        return self.same_value(other) and not (self.cmp and other.cmp and self.cmp != other.cmp)


def _rounded_ratio(a: Quantity, b: Quantity) -> bool:
    """One side is a share like "1 in 6" (more than one decimal place: no one writes 16.67%) and the other the
    same share rounded to a whole percent or a tenth."""
    x, y = a.low[0], b.low[0]
    single = a.low == a.high and b.low == b.high
    return single and (round(x, 1) != x or round(y, 1) != y) and abs(x - y) < 1


def _close(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return len(a) == len(b) and all(
        abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y)) for x, y in zip(a, b, strict=False)
    )


# What ``normalize`` rewrites, in order, as (pattern, replacement). Compiled here, with the module: a pattern
# first compiled in an answer's middle costs its reader the time (17 of them were ~2% of an offline ask's
# time to its first text).
_Rewrites = tuple[tuple[re.Pattern[str], Any], ...]
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_WORDING: _Rewrites = (
    (re.compile(r"(?<=[a-z])-(?=\d)"), ""),  # "CRB-65", "COVID-19": names, not numbers
    (NAMED_NUMBER, r"\1"),  # "type 2": a name too (as the lexicon writes its phrases)
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
)  # fmt: skip
# "should not take more than 4 g" is "should take no more than 4 g": a limit, not a negation.
_LIMITS: _Rewrites = (
    (
        re.compile(
            r"\b(?:not|never)\s+((?:take|give|use|exceed|be given|be used|receive|have)\s+)(more|less|fewer) than\b"
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


def normalize(text: str) -> str:
    """Lower case, one spelling for dashes, symbols and thousands separators. Positions in ``find`` refer to
    this text."""
    t = text.lower().replace("–", "-").replace("—", "-").replace("µg", "mcg").replace("\u00a0", " ")
    t = _THOUSANDS.sub("", t)
    t = (
        t.replace("≥", " at least ")
        .replace("≤", " at most ")
        .replace(">", " more than ")
        .replace("<", " less than ")
    )
    t = _rewritten(t, _WORDING)
    t = _SPOKEN.sub(_spoken, t)
    t = _EVERY_OTHER_DAY.sub("every 2 days", t)
    t = t.replace("m²", "m2")  # "30 kg/m²" is a BMI, not 30 kg
    t = _rewritten(t, _PERIODS)
    t = _ONE_IN.sub(_as_percent, t)
    t = _FRACTION.sub(lambda m: _SHARES[m.group("f").replace("-", " ")], t)
    t = _rewritten(t, _LIMITS)
    t = _FAHRENHEIT.sub(_celsius, t)
    return _DAY_HYPHEN.sub(" ", t)


# "1 in 4 adults" is 25% of them. A share not exact to a tenth ("1 in 6", 16.67%) is written to four places, so
# that ``same_value`` knows it for a ratio, which a clinician rounds either way ("16%", "17%").
_COUNT_WORD = r"\d{1,4}|one|two|three|four|five|six|seven|eight|nine|ten|twenty|a hundred"
_ONE_IN = re.compile(
    rf"\b({_COUNT_WORD}) in ({_COUNT_WORD})\b(?!\s*(?:mg|ml|g|l|kg|mmol|micrograms?|mcg|units?)\b)"
)


# "half of each dose", "less than half their usual feeds", "a third of patients": a share of a whole, as the
# percentage a source writes ("50% of"). Not "half a tablet" nor "a quarter of an hour" (amounts, read above).
_FRACTION = re.compile(
    r"\b(?P<f>half|a third|one[ -]third|two[ -]thirds|a quarter|one[ -]quarter|three[ -]quarters)"
    r"(?=\s+(?:of\s+(?!an?\s+(?:hour|day|week|month|year|tablet|dose)\b)|the(?!\s+(?:tablet|dose|capsule|pill|"
    r"sachet|amount)s?\b)|their|his|her|its|all|each|every)\b)"
)
_SHARES = {"half": "50%", "a third": "33.3333%", "one third": "33.3333%", "two thirds": "66.6667%",
           "a quarter": "25%", "one quarter": "25%", "three quarters": "75%"}  # fmt: skip


def _count_of(word: str) -> float:
    return float(word) if word.isdigit() else WORD_NUMBERS[word.split()[-1]]


def _as_percent(m: re.Match[str]) -> str:
    n, d = _count_of(m.group(1)), _count_of(m.group(2))
    if not 0 < n < d:
        return m.group(0)
    share = 100 * n / d
    return f"{share:g}%" if round(share, 1) == share else f"{share:.4f}%"


def _spoken(m: re.Match[str]) -> str:
    if m.group("dozen"):
        return "12" if "dozen" in m.group("dozen") else "2"
    if m.group("q"):
        return {"hour": "15 minutes", "day": "6 hours"}[m.group("qu")] + m.group(0)[m.end("qu") - m.start() :]
    if m.group("n"):
        return f"{(_number(m.group('n')) or (0.0,))[0] + 0.5:g}"
    rest = (_number(m.group("r")) or (0.0,))[0] if m.group("r") else 0.0
    return f"{(_number(m.group('h')) or (0.0,))[0] * 100 + rest:g}"


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
    if _GLUCOSE.search(t):
        out = [_as_glucose_molar(q) for q in out]
    return sorted(out, key=lambda q: q.start)


# "10 mL of 10% calcium gluconate" holds 1 g: a percentage solution is so many grams in 100 mL (w/v), as a
# prescriber reads it. The mass is added to what the text says, not put in place of the volume or percentage.
_SOLUTION = re.compile(r"\b(\d+(?:\.\d+)?)\s*ml of (?:[a-z]+ ){0,3}?(\d+(?:\.\d+)?)\s*%")


def _solution_mass(m: re.Match[str]) -> Quantity:
    grams = float(m.group(1)) * float(m.group(2)) / 100
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
        days = n * _PERIOD_OF[m.group("per") or m.group("per2")]
        return Quantity((1 / days,), (1 / days,), "per-day", None, m.start(), m.end(), m.group(0).strip())
    first = m.group("n") or m.group("h") or m.group("q")
    last = m.group("n2") or m.group("q2") or first
    lo, hi = (_number(first) or (1.0,))[0], (_number(last) or (1.0,))[0]
    # Every 4 to 6 hours is 6 down to 4 times a day.
    return Quantity((24 / hi,), (24 / lo,), "per-day", None, m.start(), m.end(), m.group(0).strip())


def _quantity(m: re.Match[str]) -> Quantity | None:
    unit = m.group("unit")
    word = m.group("num")
    if word.split()[-1] in ("a", "an") and not (unit and _UNITS[unit][0] in ("time", "months")):
        return None  # "a week" is a quantity, "a dose" is not
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
        per = re.findall(rf"(?:/|\bper\b)\s*(1\.73\s*m2|m2|{_UNIT})", m.group(0))
        if per:
            dim += "/" + "/".join(_UNITS.get(p, (p, 1.0))[0] or p for p in per)
            # Per litre is a thousandth per millilitre (30 ng/mL is 30 micrograms/L); a rate per minute
            # stays as written, as a bare "45" compares with "45 mL/min".
            for p in per:
                if _UNITS.get(p, ("", 1.0))[0] in ("volume", "mass"):
                    factor /= _UNITS[p][1]
    return Quantity(
        _scaled(low, factor),
        _scaled(high, factor),
        dim,
        _cmp(m),
        m.start(),
        m.end(),
        m.group(0).strip(),
        written=(low, high),
    )


# "One" standing for a noun said before ("not started during one", "a new one,") is no number: "no one", or a
# word that leads a noun, then the end of the clause.
_NO_ONE = re.compile(r"\bno$")
_LEADS_NOUN = re.compile(r"\b(?:any|each|every|this|that|which|another|new|the|a|during)$")


def _pronoun(m: re.Match[str]) -> bool:
    if m.group("num") != "one" or m.group("unit") or m.group("num2"):
        return False
    before, after = m.string[: m.start("num")].rstrip(), m.string[m.end() :].lstrip()
    if _NO_ONE.search(before):
        return True
    return bool(_LEADS_NOUN.search(before)) and (not after or after[0] in ".,;:)")


def describe(q: Quantity) -> str:
    return q.text
