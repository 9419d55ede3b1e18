"""A dose worked out for one patient's weight: "a 20 kg child should get a 200 mL bolus" is what "10 mL/kg" says
for a child of 20 kg. A clinician does that sum; the judge reads the claim's amount as the excerpt's rate per
kilogram when the sum comes out, and the patient as the one the rate is for.
"""

from __future__ import annotations

import re

_NUMBER = r"\d+(?:\.\d+)?"
_UNIT = r"(?:mg|g|micrograms?|mcg|ml|units?|mmol)"
# "a 20 kg child", "a 70-kg adult", "a child weighing 20 kg", "a child of 20 kg".
_WEIGHED = re.compile(
    rf"(?i)\b(?:(?P<art>an?)\s+(?P<w1>{_NUMBER})[\s-]?kg\s+(?P<who>[a-z]+)"
    rf"|(?P<who2>[a-z]+)\s+(?:weighing|of)\s+(?P<w2>{_NUMBER})\s*kg)\b"
)
# "10 mL/kg", "15 mg per kg", "0.5 mL/kg/hour", "10 to 20 mg/kg".
_RATE = re.compile(
    rf"(?i)\b(?P<lo>{_NUMBER})(?:\s*(?:to|–|-)\s*(?P<hi>{_NUMBER}))?\s*(?P<unit>{_UNIT})\s*(?:/|per\s+)kg"
    r"(?P<per>/(?:hour|h|day|dose)\b)?"
)
_PERIOD = re.compile(r"(?i)\s+(?:an?|per|each|every)\s+(?:hour|day)\b")
_AMOUNT = re.compile(rf"(?i)\b(?P<n>{_NUMBER})\s*(?P<unit>{_UNIT})\b(?!\s*(?:/|per\s+)kg)")


def _unit(u: str) -> str:
    u = u.lower().rstrip("s")
    return {"mcg": "microgram"}.get(u, u)


def worked_out(claim: str, excerpt: str) -> str:
    """``claim`` with an amount it works out for its patient's weight said as the excerpt's rate per kilogram
    ("a 20 kg child … 200 mL" against "10 mL/kg": "a child … 10 mL/kg"); unchanged when no sum comes out."""
    weighed = _WEIGHED.search(claim)
    rates = list(_RATE.finditer(excerpt)) if weighed else []
    if weighed is None or not rates:
        return claim
    weight = float(weighed.group("w1") or weighed.group("w2"))
    out, done = claim, False
    for amount in _AMOUNT.finditer(claim):
        per_kg = float(amount.group("n")) / weight
        for r in rates:
            lo, hi = float(r.group("lo")), float(r.group("hi") or r.group("lo"))
            if _unit(r.group("unit")) == _unit(amount.group("unit")) and lo * 0.98 <= per_kg <= hi * 1.02:
                at = out.find(amount.group(0))
                rest = out[at + len(amount.group(0)) :]
                if r.group("per"):  # "35 mL of urine an hour" as "0.5 mL/kg/hour of urine"
                    rest = _PERIOD.sub("", rest, count=1)
                out, done = out[:at] + r.group(0) + rest, True
                break
    if not done:
        return claim
    if weighed.group("w1"):  # "A 70 kg adult": "An adult"
        who = weighed.group("who")
        art = "an" if who[0].lower() in "aeiou" else "a"
        said = (art.capitalize() if weighed.group("art")[0].isupper() else art) + f" {who}"
    else:
        said = weighed.group("who2")
    return out.replace(weighed.group(0), said, 1)
