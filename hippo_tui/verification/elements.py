"""Each content element of a claim, accounted for in the excerpt or not: the offline judge's checks.

Every check returns a ``Finding`` (what decided, and a reason that quotes what it compared) or None. A
conflict (the excerpt says otherwise) makes the claim *contradicted*; an element the excerpt does not give
makes it *not established*. Elements are looked for across the excerpt's sentences; the ones whose meaning
depends on what they are attached to (line of therapy, strength, population) are first compared in the
sentence most about the claim.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from hippo_tui.backends.spelling import is_slip
from hippo_tui.safe_text import clip
from hippo_tui.verification import thesaurus
from hippo_tui.verification.ages import ANY_AGE
from hippo_tui.verification.binding import agents, carries_it, said_of_another
from hippo_tui.verification.lexicon import SPELLED_WORD, lexicon, stem
from hippo_tui.verification.near_quote import turned
from hippo_tui.verification.opposites import opposite
from hippo_tui.verification.quantities import DOSE_KINDS, Quantity, find
from hippo_tui.verification.reading import (
    VETO_WORDS,
    Reading,
    as_quoted,
    has_concept,
    prepare,
    read,
    said_by_gloss,
    written_words,
)

Outcome = Literal["supported", "contradicted", "not_established"]
QUOTE = 60  # characters of text quoted in a reason
_STRENGTH = {1: "may", 2: "should", 3: "must"}


@dataclass(frozen=True)
class Finding:
    outcome: Outcome
    element: str  # which kind of element decided: "drug", "population", "number", "word", …
    reason: str


def _concepts_shared(claim: Reading, sentence: Reading) -> int:
    """How many of the claim's concepts ``sentence`` says, in any form."""
    return sum(has_concept(c, sentence.concepts) for c in claim.concepts)


@dataclass(frozen=True)
class Excerpt:
    whole: Reading
    sentences: tuple[Reading, ...]

    def named(self, i: int) -> frozenset[str]:
        """The medicines sentence ``i`` speaks of: its own, or after a leading "it" the sentence before's
        ("… It is not recommended for infants under 6 months")."""
        s = self.sentences[i]
        if i and not s.drugs and carries_it(s.text):
            return frozenset(self.sentences[i - 1].drugs)
        return frozenset(s.drugs)

    def about(self, claim: Reading) -> Reading:
        """The sentence that shares the most with the claim (drugs count twice), else the whole."""

        def score(i: int) -> tuple[int, int]:
            s = self.sentences[i]
            shared = _concepts_shared(claim, s)
            return shared + sum(2 for d in claim.drugs if d in self.named(i)), _groups(claim, s)

        quoted = self.quoted(claim)
        if quoted is not None:
            return quoted
        best = max(range(len(self.sentences)), key=score, default=None)
        return self.sentences[best] if best is not None and score(best)[0] > 0 else self.whole

    def quoted(self, claim: Reading) -> Reading | None:
        """The sentence the claim quotes: the claim is about that one, whatever the others share with it."""
        said = as_quoted(claim.source)
        return next((s for s in self.sentences if as_quoted(s.source) == said), None)

    def about_all(self, claim: Reading) -> list[Reading]:
        """Every sentence sharing at least two of the claim's concepts, or naming its medicine and its people
        ("Ondansetron … children …. It is not recommended for infants …"), or the one most about it."""
        picked: list[int] = []
        for i, s in enumerate(self.sentences):
            shared = _concepts_shared(claim, s)
            # "… Tetracyclines are deposited in growing bone. They should not be given to children": a sentence
            # going on about a chosen one ("they", "it") needs less of its own.
            goes_on = bool(picked) and picked[-1] == i - 1 and _GOES_ON.match(s.source) is not None
            if shared >= 2 or (set(claim.drugs) & self.named(i) and _groups(claim, s)):
                picked.append(i)
            elif goes_on and (shared or _groups(claim, s)):
                picked.append(i)
        return [self.sentences[i] for i in picked] or [self.about(claim)]


_GOES_ON = re.compile(r"(?i)(?:it|its|they|their|these|this|the same)\b")


def _groups(claim: Reading, s: Reading) -> int:
    """How many of the claim's people ("children under 2") the sentence names."""
    return sum(len(g & s.populations.get(axis, frozenset())) for axis, g in claim.populations.items())


def quote(text: str) -> str:
    return f"“{clip(text, QUOTE, flat=True)}”"


def _contradicted(element: str, reason: str) -> Finding:
    return Finding("contradicted", element, reason)


def _missing(element: str, reason: str) -> Finding:
    return Finding("not_established", element, reason)


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


def check_drugs(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A drug the claim names must be named: another of its class in its place is a contradiction."""
    for drug, classes in claim.drugs.items():
        if drug in excerpt.whole.drugs or has_concept(drug, excerpt.whole.concepts):
            continue
        if _example_of_said_class(drug, classes, claim, excerpt.whole):
            continue
        rivals = [d for d, c in excerpt.whole.drugs.items() if c & classes and d not in claim.drugs]
        if rivals:
            return _contradicted("drug", f"the claim names {drug}; the excerpt names {rivals[0]}")
        return _missing("drug", f"the excerpt does not mention {drug}")
    said = lexicon().with_wider(excerpt.whole.all_classes)
    for named in sorted(claim.classes):  # sorted: the same reason in every process
        if named not in said:
            return _missing("drug", f"the excerpt does not mention {_a(named)}")
        if named in claim.every and named not in excerpt.whole.classes:  # "statins" is all of them
            return _missing("drug", f"the claim speaks of every {named}; the excerpt names only some")
    return None


def _example_of_said_class(drug: str, classes: frozenset[str], claim: Reading, excerpt: Reading) -> bool:
    """The claim names ``drug`` as an example of a class it names too ("tetracyclines like doxycycline"), and
    the excerpt says it of that class: what is said of the class is said of its example."""
    named = classes & claim.classes & excerpt.classes
    example = re.search(
        rf"\b(?:like|such as|e\.?g\.?|including|for example),?\s+{re.escape(drug)}\b", claim.text
    )
    return bool(named) and example is not None


def _within(group: str, groups: frozenset[str]) -> bool:
    return group in groups or lexicon().within.get(group) in groups


# "the third trimester| of |pregnancy": the wider group named as part of the narrower one.
_OF = re.compile(r"\s+of\s+(?:the\s+)?")


def _narrower(groups: frozenset[str], near: Reading) -> str | None:
    """A group the excerpt's sentence names that falls within one the claim names, and the wider group only as
    part of it ("the third trimester of pregnancy"), where the claim names none of the narrower ones: "avoided
    in pregnancy" for "avoided in the third trimester". "Older adults … than younger adults" names adults too."""
    lex = lexicon()
    if any(lex.within.get(g) in groups for g in groups):
        return None
    found = [
        (m, lex.populations[m.group("p")][1]) for m in lex.population_pattern.finditer(prepare(near.source))
    ]
    narrow = [(m, g) for m, g in found if lex.within.get(g) in groups and g not in groups]
    for _, group in narrow:
        wider = [w for w, g in found if g == lex.within[group]]
        if all(any(_OF.fullmatch(w.string[n.end() : w.start()]) for n, _ in narrow) for w in wider):
            return group
    return None


def _part_about(claim: Reading, sentence: Reading) -> Reading | None:
    """Of a sentence cut by semicolons into parts for different people ("in infants, the thigh; in adults,
    the deltoid"), the one part clearly most about the claim's other words; None when no part stands out."""
    parts = [read(p) for p in sentence.source.split(";") if p.strip()]
    if len(parts) < 2:
        return None
    scores = sorted(
        ((sum(has_concept(c, p.concepts) for c in claim.concepts), i) for i, p in enumerate(parts))
    )
    (second, _), (best, at) = scores[-2], scores[-1]
    return parts[at] if best > second else None


def _people_of_another(claim: Reading, excerpt: Excerpt, axis: str, groups: frozenset[str]) -> str | None:
    """The claim's people are named only in sentences about other medicines than the claim's ("Flucloxacillin
    is first line. Use erythromycin in pregnancy."): the medicine said for them, else None."""
    mine = set(claim.drugs)
    holders = [i for i, s in enumerate(excerpt.sentences) if s.populations.get(axis, frozenset()) & groups]
    if not mine or not holders or not any(mine & excerpt.named(i) for i in range(len(excerpt.sentences))):
        return None
    theirs = [excerpt.named(i) for i in holders]
    if all(t and not mine & t for t in theirs):
        return ", ".join(sorted(theirs[0]))
    return None


def _of_either_sex(groups: frozenset[str], excerpt: Reading) -> bool:
    """Whether an excerpt that names no sex says it of the claim's: pregnancy and breastfeeding are women's;
    advice for adults is for men and women alike."""
    people = excerpt.populations
    womens = bool(people.get("pregnancy") or people.get("feeding")) and groups == {"women"}
    return womens or "adults" in people.get("age", ())


def check_populations(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """Who the claim is about must be who the excerpt is about: children are not adults, and where the
    excerpt gives different advice for different people, the advice the claim repeats is the one for its own."""
    sentence = excerpt.about(claim)
    near = _part_about(claim, sentence) if sentence is not excerpt.whole else None
    if near is None or not any(near.populations.get(axis) for axis in claim.populations):
        near = sentence
    for axis, groups in claim.populations.items():
        if axis == "age" and ANY_AGE.search(near.source):
            continue  # "everyone who has self-harmed, regardless of age": a teenager too
        other = _people_of_another(claim, excerpt, axis, groups)
        if other:
            people, mine = " and ".join(sorted(groups)), ", ".join(sorted(claim.drugs))
            return _missing(
                "drug", f"the excerpt says {people} of {other}, not of {mine}"
            )  # as check_binding
        said = near.populations.get(axis) or excerpt.whole.populations.get(axis) or frozenset()
        if axis == "sex" and not said and _of_either_sex(groups, excerpt.whole):
            continue
        if axis == "age" and not said:  # no age group named: the ages it states say who it is for
            said = near.aged or excerpt.whole.aged
        if all(_within(g, said) for g in groups):
            narrower = _narrower(groups, near)
            if narrower:
                return _missing("population", f"the excerpt says this of the {narrower} only")
            continue
        within = lexicon().within
        narrow = sorted(s for s in said if within.get(s) in groups)
        if narrow and all(_within(g, said) or any(within.get(s) == g for s in said) for g in groups):
            return _missing("population", f"the excerpt says this of the {narrow[0]} only")
        mine = " and ".join(sorted(groups))
        if said:
            theirs = " and ".join(sorted(said))
            return _contradicted("population", f"the claim is about {mine}; the excerpt about {theirs}")
        return _missing("population", f"the excerpt does not say this is for {mine}")
    return None


def _lined_agents(text: str) -> frozenset[str]:
    """The medicines named in the clauses of ``text`` that give a line of treatment."""
    clauses = (read(c) for c in re.split(r"[;,]|\band\b", text))
    return frozenset().union(*(agents(c) for c in clauses if c.lines))


def check_line(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """First-line is not second-line; an excerpt silent on the order of treatments does not give one."""
    if not claim.lines:
        return None
    # The sentences naming the claim's medicine say its line ("First choice: amoxicillin …"), whichever
    # sentence shares the most words with the claim.
    named = [s.lines for i, s in enumerate(excerpt.sentences) if set(claim.drugs) & excerpt.named(i)]
    if claim.drugs and claim.lines <= frozenset().union(*named):
        return None
    near = excerpt.about(claim)
    # The line a sentence gives another medicine, where the claim's is named only elsewhere ("offer an SSRI as
    # first choice. If it is not effective, consider … mirtazapine"), is not the claim's medicine's line.
    medicines, near_names = agents(claim), agents(near)
    elsewhere = any(medicines & agents(s) for s in excerpt.sentences if s is not near)
    # Or gives it to a treatment that is no medicine ("offer bladder training as first-line treatment"),
    # where the claim gives the line to its medicine in the same clause ("offer mirabegron as first-line").
    apart = near.lines and medicines and elsewhere and not medicines & near_names
    if apart and (near_names or near.all_classes or medicines & _lined_agents(claim.source)):
        lines, which = "/".join(sorted(claim.lines)), ", ".join(sorted(medicines))
        return _missing("line of therapy", f"the excerpt does not say {which} is {lines} line")
    said = near.lines or excerpt.whole.lines
    if claim.lines <= said and (near.lines or not excerpt.whole.lines - claim.lines):
        return None
    mine = ", ".join(sorted(claim.lines))
    if said - claim.lines:
        theirs = ", ".join(sorted(said - claim.lines))
        return _contradicted("line of therapy", f"the claim says {mine} line; the excerpt says {theirs}")
    return _missing("line of therapy", f"the excerpt does not say it is {mine} line")


# "Do not …", "never", "contraindicated": a prohibition is as strong as "must not".
_PROHIBITION = re.compile(r"\b(?:do not|don't|never|(?<!unless )contraindicated|must not|should not|avoid)\b")


# An instruction with an exception ("Unless contraindicated, give all patients …") is not one without: it
# bears out "should", never "must".
_EXCEPTED = re.compile(r"\b(?:unless|except|where possible|if possible|if tolerated|where tolerated)\b", re.I)


def _strength(sentence: Reading) -> int | None:
    strength = 3 if _PROHIBITION.search(sentence.text) else sentence.modality
    return min(strength, 2) if strength and _EXCEPTED.search(sentence.text) else strength


def _bears_out(claim: int, said: int | None) -> bool:
    # A plain statement of what to do ("Give X") bears out "should", not "must".
    return claim <= said if said is not None else claim < 3


def _strongest(reading: Reading) -> str:
    levels = lexicon().modality
    return max(reading.modality_words, key=lambda w: levels[w], default=_STRENGTH[reading.modality or 1])


def check_strength(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A claim may be weaker than its excerpt, never stronger: "may be considered" is not "must". Any
    sentence about the claim may bear its strength out."""
    if claim.modality is None:
        return None
    near = excerpt.about_all(claim)
    # A claim that keeps the exception is held to what the excerpt says with it.
    kept = _EXCEPTED.search(claim.source) is not None
    mine = min(claim.modality, 2) if kept else claim.modality
    if any(_bears_out(mine, _strength(s)) for s in near):
        return None
    word = _strongest(claim)
    said = [s for s in near if _strength(s) is not None]
    if not said:
        return _missing("modality", f"the claim says '{word}'; the excerpt does not say it is required")
    strongest = max(said, key=lambda s: _strength(s) or 0)
    theirs, excepted = _strongest(strongest), _EXCEPTED.search(strongest.source)
    if excepted and not kept:
        theirs += f"' with “{excepted.group(0)} …"
        return _contradicted("modality", f"the excerpt says '{theirs}”, the claim says '{word}' without")
    return _contradicted("modality", f"the excerpt says '{theirs}', the claim says '{word}'")


# More or less of something, in comparatives and in verbs of change ("more effective" is not "reduces the
# effectiveness"); "as … as" says neither.
# "The lower right side", "the upper limb": a place, not a comparison.
_PLACE = (
    r"(?!\s+(?:left|right|limbs?|legs?|arms?|abdomen|abdominal|back|lobes?|lips?|eyelids?|jaw|part|half|end|"
    r"quadrant|side|tract|airways?|gi|respiratory|urinary|gastrointestinal|segment|pole|border|third)\b)"
)
_MORE = re.compile(
    rf"\b(?:more|greater|higher{_PLACE}|larger|longer|superior|better|stronger|increases?|increased|raises?|enhances?|"
    r"boosts?|potentiates?)\b"
)
_LESS = re.compile(
    rf"\b(?:less|fewer|lower{_PLACE}|smaller|shorter|inferior|weaker|reduces?|reduced|decreases?|decreased|lowers|"
    r"impairs?|diminishes?|lessens?)\b"
)
_AS_MUCH = re.compile(r"\b(?:as \w+ as|at least as|equally|similar|comparable|no difference)\b")


def _sense(text: str) -> set[str]:
    return {k for k, p in (("more", _MORE), ("less", _LESS), ("as much", _AS_MUCH)) if p.search(text)}


@dataclass(frozen=True)
class Comparison:
    """ "A is more … than B": the sense (more, less, or the comparative itself, "safer") and its two sides."""

    sense: str
    left: frozenset[str]
    right: frozenset[str]
    named: bool = False  # the sides are the drugs or classes named, not every concept
    quality: str = ""  # "effective" in "more effective than" and "as effective as"; "safer" in "safer than"

    def of(self, other: Comparison) -> bool:
        """Whether both compare the same quality ("as safe as" and "safer than", not "better than")."""
        mine, theirs = stem(self.quality), stem(other.quality)
        return mine == theirs or theirs in (mine + "r", mine + "er") or mine in (theirs + "r", theirs + "er")


_THAN = re.compile(r"\bthan\b")
_COMPARATIVE = re.compile(r"\b(?:more|less|fewer|greater|lower|higher|\w{3,}er)\b")
_NOT_COMPARATIVES = frozenset("other either whether never however under over after water fever ever".split())


def _concepts(text: str) -> frozenset[str]:
    r = read(text)
    return (
        frozenset(r.concepts) | frozenset(r.drugs) | frozenset(g for v in r.populations.values() for g in v)
    )


def _named(text: str) -> frozenset[str]:
    r = read(text)
    return frozenset(r.drugs) | r.classes


def _sides(left: str, right: str) -> list[tuple[frozenset[str], frozenset[str], bool]]:
    """What is compared: every concept of each side, and also, when both sides name one, only their drugs or
    classes ("alteplase achieves higher rates than tenecteplase in stroke": "achieves" and "stroke" are
    shared by the swapped sentence too, and made it read as the same comparison)."""
    named = _named(left), _named(right)
    both = [(named[0], named[1], True)] if all(named) else []
    return [(_concepts(left), _concepts(right), False), *both]


# "Twice as potent as": a multiple is a comparison ("more potent than").
_MULTIPLE = re.compile(r"\b(?:twice|double|(?:two|three|four|five|ten|\d+) times) as (\w+) as\b")
# "A is preferred over B", "A in preference to B": a comparison ("A is more preferred than B").
_PREFERENCE = re.compile(r"\bpreferred (?:over|to)\b|\bin preference to\b")
# "The risk is higher with A than with B": what is compared stands between the comparative and "than".
_COMPARED_AFTER = re.compile(r"^\s+(?:with|in|for|among|on)\b")


# "A is as effective as B": a comparison saying neither is more; not "as soon as", "as well as", nor "at least
# as effective as" (which "more effective" bears out).
_AS_AS = re.compile(r"(?<!at least )(?<!no less )\bas (?P<q>[a-z]{4,}) as\b(?! possible| needed| required)")
_NOT_QUALITIES = frozenset("soon well long much many often quickly early late little needed".split())


def _equal(clause: str) -> list[Comparison]:
    m = _AS_AS.search(clause)
    if m is None or m.group("q") in _NOT_QUALITIES:
        return []
    sides = _sides(clause[: m.start()], clause[m.end() :].split(",")[0])
    q = m.group("q")
    return [Comparison("as much", left, right, named, q) for left, right, named in sides if left and right]


def comparisons(reading: Reading) -> list[Comparison]:
    out = []
    text = _PREFERENCE.sub("more preferred than", _MULTIPLE.sub(r"more \1 than", reading.source.lower()))
    # Clauses end at a semicolon or colon, not a comma: "higher with A, B or C than with D" is one comparison,
    # though its right side ends at the first comma after "than".
    for clause in re.split(r"[;:]|\bbut\b|\bso\b", text):
        than = _THAN.search(clause)
        if not than:
            out += _equal(clause)
            continue
        words = [
            m for m in _COMPARATIVE.finditer(clause[: than.start()]) if m.group() not in _NOT_COMPARATIVES
        ]
        if not words:
            continue
        word = words[-1]
        sense = next((k for k in ("more", "less") if _sense(word.group()) == {k}), word.group())
        between = clause[word.end() : than.start()]
        first = between if _COMPARED_AFTER.match(between) and _concepts(between) else clause[: word.start()]
        quality = (between.split() or [""])[0] if word.group() in ("more", "less") else word.group()
        for left, right, named in _sides(first, clause[than.end() :].split(",")[0]):
            if left and right:
                out.append(Comparison(sense, left, right, named, quality))
    return out


def _opposite(a: str, b: str) -> bool:
    return {a, b} == {"more", "less"}


# "Neither drug has been shown to be more effective than the other", "X is no more effective than Y": a
# comparison said not to hold (not "no more than 4 g": a number is no quality).
_COMPARED = r"\b(?:more|less)\s+(?P<quality>[a-z]{4,})\s+than\b"
_DENIED_COMPARISON = re.compile(rf"\b(?:neither|not|no|nor)\b(?:\s+[a-z]+){{0,6}}?\s+{_COMPARED}")
_CLAIMED_COMPARISON = re.compile(_COMPARED)


def _denied(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """The claim says one is more (or less) of something than another where the excerpt says neither is."""
    claimed = _CLAIMED_COMPARISON.search(claim.text)
    if claimed is None or _DENIED_COMPARISON.search(claim.text):
        return None
    for s in excerpt.sentences:
        m = _DENIED_COMPARISON.search(s.text)
        if m and stem(m.group("quality")) == stem(claimed.group("quality")):
            said = f"{claimed.group(0).split()[0]} {claimed.group('quality')}"
            return _contradicted(
                "comparison", f"the claim says {said}; the excerpt says not: {quote(s.source)}"
            )
    return None


def check_comparison(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """ "More" is not "fewer", nor "at least as"; and "A safer than B" is not "B safer than A"."""
    denied = _denied(claim, excerpt)
    if denied:
        return denied
    mine = comparisons(claim)
    ordered = _ordered(mine, excerpt) if mine else None
    if ordered or any(not c.named for c in mine):
        return ordered
    sense = _sense(claim.text) - {"as much"}
    if len(sense) != 1:
        return None
    said = [(s, k) for s, k in ((s, _sense(s.text)) for s in excerpt.about_all(claim)) if k]
    if said and all(not (sense & k) for _, k in said):
        theirs = sorted(said[0][1])[0]
        where = quote(said[0][0].source)
        return _contradicted(
            "comparison", f"the claim says {next(iter(sense))}; the excerpt says {theirs} in {where}"
        )
    return None


def _how_said(c: Comparison) -> str:
    return "neither is more (“as … as”)" if c.sense == "as much" else c.sense


def _ordered(mine: list[Comparison], excerpt: Excerpt) -> Finding | None:
    theirs = [c for s in excerpt.sentences for c in comparisons(s)]
    for c in mine:
        for t in (t for t in theirs if t.named == c.named):
            # Each side by what tells it from the other ("oral morphine" against "subcutaneous morphine").
            cl, cr = (c.left - c.right or c.left), (c.right - c.left or c.right)
            tl, tr = (t.left - t.right or t.left), (t.right - t.left or t.right)
            same = bool(cl & tl and cr & tr)
            swapped = bool(cl & tr and cr & tl) and not same
            # "As … as" has no order: either way round, it is not "more".
            equal = "as much" in (c.sense, t.sense) and c.sense != t.sense and (same or swapped) and c.of(t)
            if equal or (same and _opposite(c.sense, t.sense)):
                return _contradicted(
                    "comparison", f"the claim says {_how_said(c)}; the excerpt says {_how_said(t)}"
                )
            if swapped and (c.sense == t.sense):
                return _contradicted(
                    "comparison",
                    f"the claim compares the other way round: the excerpt says the opposite side is {t.sense}",
                )
    return None


def check_line_of_drugs(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """The line of therapy goes with its drug: "first-line" for metformin is not first-line for the drug
    the excerpt names as an alternative."""
    if not claim.lines or not (claim.drugs or claim.classes):
        return None
    # Read per clause: "topical treatment is first line; oral antibiotics such as lymecycline are added"
    # gives the first line to the topical treatment, not to lymecycline.
    clauses = [c for s in excerpt.sentences for c in s.source.split(";") if c.strip()]
    parts = [read(c) for c in _lead_ins_joined(clauses)]
    # A drug named is what the line goes with; a class only when no drug is named ("an antibiotic").
    if claim.drugs:
        mine = [s for s in parts if set(claim.drugs) & set(s.drugs)]
    else:
        mine = [s for s in parts if claim.classes & s.all_classes]
    if not mine or any(claim.lines <= s.lines for s in mine):
        return None
    lines = set().union(*(s.lines for s in mine))
    others = [s for s in parts if claim.lines <= s.lines and s not in mine]
    if lines - claim.lines or others:
        where = (others or mine)[0]
        return _contradicted(
            "line of therapy", f"the excerpt gives that line to another treatment: {quote(where.source)}"
        )
    return None


def _lead_ins_joined(clauses: list[str]) -> list[str]:
    """Each lead-in on a line of its own ("First line:") read with the line it introduces: the line of therapy
    it names goes with the drugs of the next line."""
    out: list[str] = []
    for c in clauses:
        if out and out[-1].rstrip().endswith(":"):
            out[-1] = f"{out[-1].rstrip()} {c.strip()}"
        else:
            out.append(c)
    return out


# How a drug is given; and the words that rule a route out where they stand before or after it.
_ROUTES = {
    "oral": r"oral|orally|by mouth|po", "intravenous": r"intravenous|intravenously|iv",
    "intramuscular": r"intramuscular|intramuscularly|im", "subcutaneous": r"subcutaneous|subcutaneously|sc|subcut",
    "intrathecal": r"intrathecal|intrathecally", "epidural": r"epidural|epidurally",
    "intraosseous": r"intraosseous|io", "rectal": r"rectal|rectally|pr", "topical": r"topical|topically",
    "inhaled": r"inhaled|nebulized|inhaler", "sublingual": r"sublingual|sublingually",
    "intranasal": r"intranasal|intranasally|nasal", "buccal": r"buccal|buccally", "vaginal": r"vaginal|vaginally",
}  # fmt: skip
_ROUTE_RES = {name: re.compile(rf"\b(?:{alts})\b") for name, alts in _ROUTES.items()}
_RULED_OUT = re.compile(
    r"\b(?:not|never|nothing|avoid|contraindicated|fatal|do not|must not|should not|other routes|not for)\b"
    r"[^.;:]{0,60}$"
)
_ONLY = re.compile(r"\bonly\b")


def _routes(text: str) -> set[str]:
    return {name for name, pattern in _ROUTE_RES.items() if pattern.search(text)}


def _ruled_out(route: str, text: str) -> bool:
    """Every mention of ``route`` in ``text`` follows a word that rules it out in the same clause."""
    return _only_ruled_out(_ROUTE_RES[route], text)


def _only_ruled_out(pattern: re.Pattern[str], text: str) -> bool:
    # A condition on the advice ("if IV access is not available, give glucagon IM", ``_CONDITION`` below)
    # rules nothing out: its "not" is read with the condition taken away.
    spans = [m.start() for m in pattern.finditer(text)]
    return bool(spans) and all(_RULED_OUT.search(_CONDITION.sub(" ", text[:i])) for i in spans)


# Where a medicine goes on the body that advice often rules out ("avoid the face", "not on broken skin").
_SITES = re.compile(
    r"\b(?:face|eyes?|eyelids?|lips?|mouth|genitals?|genital area|mucous membranes?|broken skin|scalp|nipples?|"
    r"groin|axillae?|ears?|nose)\b"
)


def check_site(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A place on the body the claim puts a medicine that the excerpt names only to rule out ("apply to the face"
    against "apply to the body …; avoid the face")."""
    if _NEGATED.search(claim.text):
        return None  # the claim rules something out itself: the negation check reads that
    for m in _SITES.finditer(claim.text):
        site = re.compile(rf"\b{re.escape(m.group())}\b")
        if _only_ruled_out(site, excerpt.whole.text):
            return _contradicted("body site", f"the excerpt names the {m.group()} only to rule it out")
    return None


# Places on the body, each spelling to one name ("facial" is the face).
_PLACES = {
    "face": "face", "facial": "face", "neck": "neck", "trunk": "trunk", "limbs": "limbs", "limb": "limbs",
    "scalp": "scalp", "hands": "hands", "hand": "hands", "feet": "feet", "foot": "feet", "thigh": "thigh",
    "deltoid": "deltoid", "buttock": "buttock", "buttocks": "buttock", "abdomen": "abdomen", "eyelids": "eyelids",
    "genitals": "genitals", "genital": "genitals", "flexures": "flexures", "palms": "palms", "soles": "soles",
}  # fmt: skip
_PLACE_WORD = re.compile(r"\b(?:" + "|".join(_PLACES) + r")\b")


def _places(r: Reading) -> frozenset[str]:
    return frozenset(_PLACES[w] for w in _PLACE_WORD.findall(r.text))


def check_site_row(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A place on the body the claim puts the advice of a sentence that names other places, where the claim's
    place has a sentence of its own ("potent steroids … on the face" against "Use mild ones on the face. Potent
    ones may be used on the trunk and limbs")."""
    mine, near = _places(claim), excerpt.about(claim)
    theirs = _places(near) if near is not excerpt.whole else frozenset()
    if not mine or not theirs or mine & theirs:
        return None
    if not any(mine & _places(s) for s in excerpt.sentences if s is not near):
        return None
    said, where = " and ".join(sorted(theirs)), " and ".join(sorted(mine))
    return _missing(
        "body site", f"the excerpt says this of the {said}, not the {where}: {quote(near.source)}"
    )


def _same_people(r: Reading, claim: Reading) -> bool:
    return all(r.populations.get(axis) == groups for axis, groups in claim.populations.items())


def check_site_people(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A place on the body the excerpt gives to other people, where the claim's own people have a sentence
    naming another place ("into the deltoid in infants" against "Adults and older children: the deltoid. In
    infants under 1 year, use the anterolateral thigh")."""
    mine = _places(claim)
    if not mine or not claim.populations:
        return None
    # Each clause its own: "the thigh in infants under 1 year; the deltoid in older children and adults".
    clauses = [read(c) if ";" in s.source else s for s in excerpt.sentences for c in s.source.split(";")]
    for s in clauses:
        theirs = _places(s)
        if not theirs or theirs & mine or not _same_people(s, claim):
            continue
        if any(mine & _places(o) and not _same_people(o, claim) for o in clauses if o is not s):
            said, people = (
                " and ".join(sorted(theirs)),
                " and ".join(sorted(set().union(*claim.populations.values()))),
            )
            return _missing("body site", f"the excerpt gives the {said} for {people}: {quote(s.source)}")
    return None


def _doses(r: Reading) -> list[Quantity]:
    return [q for q in find(r.source) if q.dim.split("/")[0] in DOSE_KINDS]


def check_dose_people(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A dose the excerpt gives without naming anyone, where a sentence naming the claim's own people gives
    them another ("aciclovir 10 mg/kg every 8 hours. In neonates, give 20 mg/kg": not 10 mg/kg for newborns)."""
    if not claim.populations:
        return None
    claimed = _doses(claim)
    said = [(s, _doses(s)) for s in excerpt.sentences] if claimed else []  # each sentence's doses, read once
    for q in claimed:
        homes = [s for s, doses in said if any(map(q.matches, doses))]
        if not homes or any(_same_people(s, claim) or s.populations for s in homes):
            continue
        for s, doses in said:
            rivals = [e for e in doses if e.dim == q.dim and not any(c.matches(e) for c in claimed)]
            if rivals and s not in homes and _same_people(s, claim):
                people = " and ".join(sorted(set().union(*claim.populations.values())))
                theirs = f"{rivals[0].text} for {people}"
                return _contradicted("population", f"the excerpt gives {theirs}: {quote(s.source)}")
    return None


# A route word in the name of a kind of drug is no route ("avoid direct oral anticoagulants").
_NAMED_BY_ROUTE = re.compile(
    r"\boral (?:anticoagulant|contraceptive|hypoglycemic|antidiabetic|rehydration|steroid|corticosteroid)s?\b"
)


# "Nil by mouth" is a patient's state, no route given; where an excerpt says it ("if NBM: paracetamol 1 g PR"),
# it rules the oral route out.
_NIL_BY_MOUTH = re.compile(r"\bnil (?:by mouth|oral|po)\b")


def check_route(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A route the excerpt rules out, or one where it says another route only."""
    mine, theirs = (_NAMED_BY_ROUTE.sub(" ", r.text) for r in (claim, excerpt.whole))
    mine, nil_by_mouth = _NIL_BY_MOUTH.sub(" ", mine), _NIL_BY_MOUTH.search(theirs)
    theirs = _NIL_BY_MOUTH.sub(" ", theirs)
    for route in _routes(mine):
        if _ruled_out(route, mine):
            continue  # the claim rules it out too: the negation check reads that
        said = _routes(theirs)
        if route == "oral" and nil_by_mouth and route not in said:
            return _contradicted("route", "the claim says oral; the excerpt says nil by mouth")
        if route in said and _ruled_out(route, theirs):
            return _contradicted("route", f"the excerpt names {route} only to rule it out")
        only = [r for r in said - {route} if _ONLY.search(theirs)]
        if route not in said and only:
            return _contradicted("route", f"the claim says {route}; the excerpt says {only[0]} only")
    return None


# When something is taken, relative to an event: "with breakfast" is not "before breakfast".
_PREP = r"(?:with|before|after|without|during|on)"
_RELATION = re.compile(
    rf"\b({_PREP}(?:\s+(?:or|and)\s+{_PREP})?)\s+(?:an?\s+|the\s+|their\s+|your\s+)?"
    r"(?:(?:evening|morning|midday|main|first|last|largest|fatty|light|next)\s+)?(\w+)"
)
_EVENTS = frozenset(
    "food meal meals breakfast lunch dinner supper bedtime surgery delivery birth sleep exercise".split()
)


def _relations(text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for preps, word in _RELATION.findall(text):
        if word in _EVENTS:
            out.setdefault(word, set()).update(re.findall(_PREP, preps))
    return out


def check_timing(claim: Reading, excerpt: Excerpt) -> Finding | None:
    said = _relations(excerpt.whole.text)
    for event, preps in _relations(claim.text).items():
        theirs = said.get(event)
        if theirs and not preps & theirs:
            return _contradicted(
                "timing",
                f"the claim says {'/'.join(sorted(preps))} {event}; the excerpt says {'/'.join(sorted(theirs))}",
            )
    return None


# A claim that sets no time limit ("whenever they present"), and an excerpt's limit ("within 48 hours",
# "not more than 3 hours after injury").
_ANY_TIME = re.compile(
    r"\b(?:whenever|at any time|at any stage|no matter when|however late|regardless of timing)\b"
)
_TIME_LIMIT = re.compile(
    r"(?i)\b(?:within|up to|no later than|not later than|more than|longer than)\s+(?:the\s+(?:first\s+)?)?"
    r"[\w.–-]+\s+(?:minutes?|hours?|days?|weeks?|months?)\b"
)


def check_any_time(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A claim that the advice holds at any time where the excerpt gives it a time limit."""
    said = _ANY_TIME.search(claim.text)
    if said is None or said.group(0) in excerpt.whole.text:  # none, or the excerpt says it too
        return None
    limit = _TIME_LIMIT.search(excerpt.whole.source)
    if limit is None or limit.group(0).lower() in claim.source.lower():
        return None
    return _missing("timing", f"the claim says “{said.group(0)}”; the excerpt says {quote(limit.group(0))}")


# "Doxycycline and minocycline are exceptions", "except for doxycycline", "apart from doxycycline".
_EXCEPTION = re.compile(
    r"(?i)(?P<before>[^.;:]*)\b(?:is|are)\s+(?:an\s+)?exceptions?\b"
    r"|\b(?:except(?:\s+for)?|apart from|other than|with the exception of)\s+(?P<after>(?:[\w-]+\W+){1,4})"
)


def check_exception(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A claim that gives its medicine the rule the excerpt names it an exception to ("Like other
    tetracyclines, doxycycline should be avoided" against "… Doxycycline and minocycline are exceptions")."""
    if not claim.drugs or re.search(r"(?i)\b(?:unlike|except|exceptions?)\b", claim.source):
        return None
    for s in excerpt.sentences:
        for m in _EXCEPTION.finditer(s.source):
            named = set(claim.drugs) & set(read(m.group("before") or m.group("after")).drugs)
            if named:
                return _contradicted(
                    "drug", f"the excerpt names {min(named)} as an exception: {quote(s.source)}"
                )
    return None


@cache
def _typed_words() -> frozenset[str]:
    """Words with a check of their own (line, strength, population, polarity, direction): a synonym never
    stands in for them ("initial" is not "first-line", "shorten" is not "reduce")."""
    lex = lexicon()
    phrases = [*lex.lines, *lex.modality, *lex.populations]
    return frozenset(w for p in phrases for w in p.split()) | VETO_WORDS


def _usable(words: tuple[str, ...]) -> frozenset[str]:
    typed = _typed_words()
    return frozenset(stem(w) for w in words if w not in typed and not _sense(w))


def _said(stems: frozenset[str], excerpt: Reading) -> bool:
    return any(has_concept(s, excerpt.stems) or has_concept(s, excerpt.concepts) for s in stems)


def _said_otherwise(word: str, excerpt: Reading) -> bool:
    """The excerpt says ``word`` in other everyday words: a synonym or derivation in its frequent senses."""
    if word in _typed_words() or _sense(word):
        return False
    return _said(_usable(thesaurus.related(word)), excerpt)


def _phrases_said(claim: Reading, excerpt: Reading) -> set[str]:
    """The words of the claim's two-word verbs the excerpt says in one ("bring down" as "reduce")."""
    words = SPELLED_WORD.findall(claim.text)
    out: set[str] = set()
    for first, second in itertools.pairwise(words):
        if _said(_usable(thesaurus.related_phrase(first, second)), excerpt):
            out |= {first, second}
    return out


def _misspelt(word: str, said: frozenset[str]) -> bool:
    """``word`` is a slip of one of ``said`` ("diarrohea", "haemorrage"), by the answerer's and search's rule:
    two neighbours swapped or a letter left out or added, never a letter changed ("dysphasia" is not
    "dysphagia"); the same first letter, and a longer word than they need, as a verdict rests on it."""
    w = word.lower()
    return len(w) >= _TYPO_MIN and any(s[:1] == w[:1] and s != w and is_slip(w, s) for s in said)


_TYPO_MIN = 7  # letters: a shorter word one letter off is too often another word
_FIRST = frozenset({"first", "firstly", "initial", "initially"})
# Another step of a course, or an episode that is not the first: where the excerpt names one, "first" tells
# the claim's apart.
_LATER_STEP = re.compile(
    r"\b(?:second|third|subsequent|further|repeat|repeated|booster|last|final|later|then|recurrent|recurrence|"
    r"previous|prior|again|history|established)\b"
)
# "First" as when something begins ("when first started", "the first dose"), not which one of a kind.
_FIRST_OF_TIME = re.compile(
    r"\b(?:when|at|is|are|was|were|be|been) first\b"
    r"|\bfirst (?:started|starting|start|starts|dose|appears?|appeared|noticed|seen|few|signs?|symptoms?)\b"
    r"|\bfirst \w+ dose\b"  # "the first antibiotic dose"
    r"|\bfirst (?:\w+ )?(?:hours?|days?|weeks?|months?|years?)\b"  # "the first day": a period, said as one
)


# "Started within 3 hours" says when to begin what the excerpt gives "within 3 hours": a time, not a line of
# treatment ("start with" may name one) nor a change of one.
_START = re.compile(r"start|started|starting|begin|begun|began|commence|commenced|initiate|initiated")
_STARTED_BY = re.compile(
    r"\b(?:start|started|begin|begun|commenced|initiated)\s+(?:\w+\s+){0,2}?"
    r"(?:within|as soon as|as early as|immediately|straight away|promptly|no later than|without delay)\b"
)
_GIVES = re.compile(r"\b(?:give|given|offer|offered|administer|administered|take|taken)\b")


def _said_as_such(word: str, claim: Reading, excerpt: Reading) -> bool:
    """What the excerpt says in other words than a thesaurus knows: a misspelling of its word, "first" where
    it names no other step ("especially when first started" of "especially at the start"), "contraindicated"
    said as a prohibition ("must not be used")."""
    lower = word.lower()
    if _START.fullmatch(lower):
        return bool(_STARTED_BY.search(claim.source.lower())) and _GIVES.search(excerpt.text) is not None
    if lower in _FIRST:
        framed = _FIRST_OF_TIME.search(claim.source.lower()) or lower.startswith("initial")
        return bool(framed) and not claim.lines and not _LATER_STEP.search(excerpt.text)
    if lower.startswith("contraindicat"):
        return _PROHIBITION.search(excerpt.text) is not None
    return _misspelt(word, frozenset(SPELLED_WORD.findall(excerpt.source.lower())))


# A claim may frame its point in a word or two of saying, thinking or relating that the excerpt does without
# ("the guidance explains", "evidence involving"), so long as its other words are there: at least this many.
_MAX_LIGHT, _MIN_FOUND = 2, 2


def _only_light(claim: Reading, missing: list[tuple[str, str]]) -> bool:
    found = len(claim.concepts) - len(missing)
    return (
        len(missing) <= _MAX_LIGHT and found >= _MIN_FOUND and all(thesaurus.is_light(w) for _, w in missing)
    )


def _says_concept(concept: str, claim: Reading, text: Reading) -> bool:
    """``text`` (a sentence or the whole excerpt) says the claim's ``concept``: as a word or stem of its own, or
    in a clinical word's definition."""
    return (
        has_concept(concept, text.concepts)
        or has_concept(concept, text.stems)
        or said_by_gloss(concept, claim, text)
    )


def check_words(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """Every other content word of the claim, in the excerpt in some form (spelling, stem, synonym, class)."""
    classes = excerpt.whole.all_classes
    missing = [
        (concept, word)
        for concept, word in claim.concepts.items()
        if word not in claim.drugs
        and not _says_concept(concept, claim, excerpt.whole)
        and word not in classes
        and not _said_otherwise(word, excerpt.whole)
        and not _said_as_such(word, claim, excerpt.whole)
    ]
    if missing:
        phrased = _phrases_said(claim, excerpt.whole)
        missing = [(concept, word) for concept, word in missing if word not in phrased]
    if not missing or _only_light(claim, missing):
        return None
    written = written_words(claim.source)
    said = dict.fromkeys(written.get(concept, word) for concept, word in missing)  # once each, in order
    shown = ", ".join(f"“{w}”" for w in list(said)[:3])
    return _missing("word", f"the excerpt does not mention {shown}")


# A drug given on its own, as a claim says it.
_ALONE = re.compile(r"\b(?:alone|on its own|monotherapy|by itself)\b")
_OPTIONS = re.compile(r";|,?\s+or\s+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _shared(claim: Reading, option: Reading) -> int:
    """Words in common, numbers counting twice: a number says which option a claim repeats."""
    numbers = set(_NUMBER.findall(claim.source)) & set(_NUMBER.findall(option.source))
    return sum(has_concept(c, option.concepts) for c in claim.concepts) + 2 * len(numbers)


def check_alone(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A drug "alone" is not the option that combines it with another ("3 months of isoniazid and
    rifampicin, or 6 months of isoniazid alone")."""
    if not claim.drugs or not _ALONE.search(claim.text):
        return None
    near = excerpt.about(claim)
    options = [read(o) for o in _OPTIONS.split(near.source) if o.strip()]
    mine = [o for o in options if set(claim.drugs) & set(o.drugs)]
    if len(mine) < 2:
        return None
    ranked = sorted(mine, key=lambda o: _shared(claim, o), reverse=True)
    best, runner = ranked[0], ranked[1]
    others = sorted(set(best.drugs) - set(claim.drugs))
    if _shared(claim, best) > _shared(claim, runner) and others and not _ALONE.search(best.text):
        drug = next(iter(claim.drugs))
        return _contradicted(
            "drug", f"the claim says {drug} alone; the excerpt gives it with {others[0]} there"
        )
    return None


# "Only" that makes the claim's advice or subject the sole one ("should only be offered …", "the only common
# cause"), not "only" of an amount or a side ("only half their feeds", "only in one ear").
_ONLY_SO = re.compile(
    r"\b(?:should|must|can|may|is|are|be|need|needs)\s+(?:\w+\s+)?only\b(?!\s+(?:half|a few|a little|one|two|some|\d))"
    r"|\bonly\s+(?:be|when|if|once|for|after|to)\b|\bthe only\b"
)
# How an excerpt says a thing is the sole one, or bounds it: any of these leaves the reading to other checks.
_SOLE = re.compile(
    r"\b(?:only|reserve[ds]?|sole(?:ly)?|exclusive(?:ly)?|alone|restrict\w*|unless|except|until|limited|not|no|never|otherwise|instead)\b"
)


def check_only(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A claim that its advice or subject is the only one, where the excerpt says nothing of the kind ("should
    only be offered within 48 hours" against "offer … within 48 hours, or later if severely unwell")."""
    m = _ONLY_SO.search(claim.source.lower())
    if m is None or _SOLE.search(excerpt.whole.source.lower()):
        return None
    return _missing(
        "condition", f"the claim says “{m.group().strip()}”; the excerpt does not say it is the only one"
    )


# A condition the excerpt puts on its advice: "if", "only if", "when", "unless", "provided", up to a break.
_CONDITION = re.compile(
    r"\b(?:only if|if|unless|provided(?: that)?|only when)\b([^;:()]*?)(?=\.(?:\s|$)|[;:()]|$)", re.I
)  # up to a full stop, not a decimal point ("1.73 m2")
# Advice said not to be given: its condition is when not to give it, which a claim about giving need not say.
_REFUSED = re.compile(r"\b(?:not|never|avoid)\b[^.;:,]*$", re.I)
# "Unless contraindicated" goes without saying.
_GOES_WITHOUT_SAYING = frozenset(
    stem(w) for w in "contraindicated contraindication unsuitable inappropriate clear absolute".split()
)


def _condition_said(said: Reading, claim: Reading, own: Sequence[str] = ()) -> bool:
    """The claim says the condition, or something of it, in any of its words (or only in its ``own``
    words, when given), drugs or classes."""
    words = own or said.concepts
    return (
        any(has_concept(c, claim.concepts) or has_concept(c, claim.stems) for c in words)
        or bool(set(said.drugs) & set(claim.drugs))
        or bool(said.all_classes & claim.all_classes)
    )


def _conditions(text: str) -> list[tuple[str, Reading, str]]:
    """The conditions ``text`` puts on its advice, each with the option it is put on, but for those in
    brackets (on a detail such as a dose), on advice not to give, or that go without saying."""
    out = []
    for m in _CONDITION.finditer(text):
        before = text[: m.start()]
        if before.count("(") > before.count(")") or _REFUSED.search(before):
            continue
        written, words = m.group(0), m.group(1)
        # A condition that opens its clause ends at its comma: "if the wound is high-risk, give …".
        if _OPENS.search(before) and "," in words:
            words = words[: words.index(",")]
            written = written[: len(written) - len(m.group(1)) + len(words)]
        said = read(words)
        if set(said.concepts) - _GOES_WITHOUT_SAYING:
            out.append((written.strip(), said, _OPTIONS.split(before)[-1]))
    return out


_OPENS = re.compile(r"(?:^|[;:]\s*)$")


def _own_words(written: str, said: Reading, sentence: str, claim: Reading) -> list[str]:
    """The words of an "only if" condition, or of one that opens its clause ("if the wound is high-risk,
    give …"), that its advice does not share: "give oxygen … only if oxygen saturation is below 94%" is not
    said by "oxygen". Empty (any word will do) for other conditions (whose advice may run on into them), for
    one with no words of its own, and for a claim that repeats the condition as written."""
    after = sentence[sentence.find(written) + len(written) :]
    opens = written.lower().startswith("only") or after.lstrip().startswith(",")
    if not opens or " ".join(written.lower().split()) in claim.source.lower():
        return []
    advice = read(sentence.replace(written, " "))
    return [c for c in said.concepts if not has_concept(c, advice.concepts)]


def check_condition(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """Advice the excerpt gives only under a condition is not established by a claim that leaves the
    condition out ("all children with a squint" against "refer … if its onset is sudden"). Every sentence about
    the claim is read, not only the nearest: "AKI" alone shares three words with a sentence that is not the one
    giving "IV fluids only if hypovolaemic". A claim repeating sentences is about those it repeats."""
    said = as_quoted(claim.source)
    repeated = [s for s in excerpt.sentences if (q := as_quoted(s.source)) and q in said]
    for near in repeated or excerpt.about_all(claim):
        if near is not excerpt.whole and (found := _condition_left_out(claim, near)) is not None:
            return found
    return None


def _condition_left_out(claim: Reading, near: Reading) -> Finding | None:
    """A condition of ``near`` that the claim's advice is under and the claim does not say."""
    for written, said, owner in _conditions(near.source):  # as written: the reason quotes it
        # Another drug's option keeps its condition ("nitrofurantoin …, or trimethoprim if low risk").
        drugs = set(read(owner).drugs)
        if drugs and claim.drugs and not drugs & set(claim.drugs):
            continue
        after = near.source[near.source.find(written) + len(written) :]
        opened = _OPENED.match(after)
        if opened and not any(has_concept(c, claim.concepts) for c in read(opened.group(1)).concepts):
            continue  # "…; if weight is not known, use the age bands": the age bands' condition
        either = _OR_ELSE.match(after)  # "if eGFR falls by 25% or more, or creatinine rises by 30% or more"
        if either and _condition_said(read(either.group(1)), claim):
            continue
        if not _condition_said(said, claim, _own_words(written, said, near.source, claim)):
            return _missing("condition", f"the excerpt says this only {quote(written)}")
    return None


# What a condition that opens its clause is put on: the advice after its comma, to the clause's end.
_OPENED = re.compile(r",(?:\s*or\s+[^,;.]*,)?\s*([^;]*?)(?:[;]|\.(?:\s|$)|$)")
_OR_ELSE = re.compile(r",\s*or\s+(?:if\s+)?([^,;]+)")


def check_near_quote(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A sentence of the excerpt repeated with its sense turned ("is not needed" for "is needed")."""
    found = turned(claim.source, [s.source for s in excerpt.sentences])
    return _contradicted(found.element, found.reason) if found is not None else None


def _opposite_in(claim: Reading, sentence: Reading, excerpt: Excerpt) -> tuple[str, str] | None:
    others = [s.source for s in excerpt.sentences if s is not sentence]
    return opposite(claim.source, sentence.source, others)


def check_opposite(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """One side of a quality where the excerpt's sentence about the claim says the other ("the same day" for
    "a different day")."""
    near = excerpt.about(claim)
    found = _opposite_in(claim, near, excerpt) if near is not excerpt.whole else None
    # A claim joining sentences may take the quality from another than the nearest ("… every two weeks
    # until stable, and folic acid on the same day" against "… taken on a different day"): that sentence's
    # word counts when the excerpt nowhere says the claim's.
    for s in excerpt.sentences if found is None else ():
        elsewhere = _opposite_in(claim, s, excerpt) if s is not near else None
        if elsewhere is not None and not re.search(rf"\b{elsewhere[0]}\b", excerpt.whole.source.lower()):
            found, near = elsewhere, s
            break
    if found is None:
        return None
    word, other = found
    return _contradicted(
        "opposite", f"the claim says “{word}”; the excerpt says “{other}”: {quote(near.source)}"
    )


# Advice given ("is recommended", "should be used") and the same advice withheld ("is not recommended").
_ADVISED = r"(?:(?:is|are)\s+(?:{neg})(recommended|advised|indicated)|should\s+(?:{neg})be\s+(used|given|offered|prescribed))\b"
_GIVEN = re.compile(r"\b" + _ADVISED.format(neg=""))
_WITHHELD = re.compile(r"\b" + _ADVISED.format(neg=r"not\s+"))
_NEGATED = re.compile(r"\b(?:not|never|no|avoid|don't|cannot|contraindicated)\b")


def check_withheld(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """Advice the claim says is given that the excerpt's sentence about it withholds ("St John's wort is
    recommended for mild depression" against "… might be of benefit in mild depression, but it is not
    recommended …"), when that sentence does not also give it."""
    given = _GIVEN.search(claim.text)
    if given is None or _NEGATED.search(claim.text):
        return None
    near = excerpt.about(claim)
    word = given.group(1) or given.group(2)
    withheld = [m for m in _WITHHELD.finditer(near.text) if word in m.groups()]
    if not withheld or any(word in m.groups() for m in _GIVEN.finditer(near.text)):
        return None
    return _contradicted("negation", f"the excerpt says “{withheld[0].group(0)}”: {quote(near.source)}")


# "Any acute illness", "all patients with stroke": a claim about every one of a kind.
_ANY = re.compile(r"\b(?:any|all|every)\s+([a-z-]+(?:\s+[a-z-]+){0,2})")
# What narrows a kind where the excerpt names it: "an acute illness with dehydration", "patients who …".
# An age's tail may stand between ("people aged 50 and over who are severely immunosuppressed").
_NARROWED = (
    r"\b{kind}(?:\s+(?:years?(?: old)?|and over|or over|and older|or older|or more))*"
    r"(?:\s+[a-z]+)?(?:\s+in\s+(?:patients|people|those|adults|children|women))?"  # "contrast media in patients"
    r"\s+(with|who|that|in whom|at high risk|at increased risk|at risk|born to)\s+([a-z0-9-]+(?:\s+[a-z0-9-]+){{0,2}})"
)


# A kind narrowed to some people by the word before it or an age after it ("child household contacts under 5").
_AGED_KIND = (
    r"\b(?:(?P<who>\w+)\s+)?{kind}(?P<age>\s+(?:aged|under|over|younger than|older than)\s+\d[^,;.]*)?"
)


# Words before a kind that make it a narrower one ("distal ureteric stones" are not any ureteric stone).
_NARROWING = frozenset(
    "distal proximal bilateral unilateral recurrent persistent refractory severe complicated uncomplicated".split()
)


def _narrowed_kind(kinds: Sequence[str], near: Reading, claim: Reading) -> Finding | None:
    """Where the excerpt names the claim's "all" kind only of some (people named before it or an age after
    it, where the claim names no people; or a narrowing word before it): those words as written."""
    texts = (near.source.lower(), near.text)  # the ages are read out of its text: as written first
    for kind, text in ((k, t) for k in kinds for t in texts):
        for m in re.finditer(_AGED_KIND.format(kind=re.escape(kind)), text):
            who = m.group("who") or ""
            people = bool(m.group("age") or (who and read(who).populations))
            if people and not claim.populations and not claim.aged:
                return _missing("population", f"the excerpt says this only of {quote(m.group(0).strip())}")
            if who in _NARROWING and who not in claim.text:
                return _missing("condition", f"the excerpt says this only of {quote(m.group(0).strip())}")
    return None


def check_any(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A claim about any one of a kind that the excerpt narrows ("paused during any acute illness" against
    "… during an acute illness with dehydration"), when the claim does not say the narrowing words."""
    near = excerpt.about(claim)
    for m in _ANY.finditer(claim.text):
        words = m.group(1).split()
        # The kind as named ("adults aged 50", "adults"), or its age alone ("aged 50": "people aged 50").
        kinds = [" ".join(words[:n]) for n in range(len(words), 0, -1)]
        kinds += [" ".join(words[1:])] if len(words) > 1 and words[1] in ("aged", "over", "under") else []
        kinds = [k for k in kinds if len(k) > 3]
        narrowed_kind = _narrowed_kind(kinds, near, claim)
        if narrowed_kind is not None:
            return narrowed_kind
        found = (re.search(_NARROWED.format(kind=re.escape(k)), near.text) for k in kinds)
        narrowed = next((f for f in found if f is not None), None)
        if narrowed is None or narrowed.group(2) in claim.text:
            continue
        said = read(narrowed.group(2))
        if said.concepts and not _condition_said(said, claim):
            narrowing = f"{narrowed.group(1)} {narrowed.group(2)}"
            return _missing("condition", f"the excerpt says this only of those {quote(narrowing)}")
    return None


# Words that narrow a condition to some of its cases ("bilateral acute otitis media", "recurrent urinary tract
# infection"): advice for those cases is not advice for every case. Of ``_NARROWING``'s words (which narrow an
# "any" claim's kind), those that hold for every claim: "severe", "persistent" and "chronic" were tried here and
# refused supported claims. Read after the lexicon, which makes "long-term" chronic.
_NARROWED_CASES = re.compile(r"\b(bilateral|recurrent|refractory)((?:\s+[a-z-]+){1,3})")


def check_narrowed(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A claim about a condition that the excerpt's sentence about it says only of some cases ("children under
    2 with bilateral acute otitis media" for "children under 2 with acute otitis media")."""
    near, said = excerpt.about(claim), claim.text
    for m in _NARROWED_CASES.finditer(near.text):
        if m.group(1) in said or stem(m.group(1)) in claim.stems:
            continue
        if any(stem(w) in claim.concepts for w in m.group(2).split() if len(w) > 3):
            return _missing(
                "subset", f"the excerpt says this only of {m.group(1)} cases: {quote(near.source)}"
            )
    return None


# How many a statement is said of: most or some of a group ("most children"), or all of it ("all children",
# or "children" alone).
_MOST = re.compile(r"\b(most|many|some)\s+(?:of\s+(?:the\s+|these\s+|those\s+)?)?([a-z-]{3,})")
_FEW = re.compile(r"\b(?:most|many|some|several|few|majority|minority|proportion)\b")


def check_all(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A claim about a group ("All children with croup can be managed at home", "Children who have had a
    febrile seizure do not have another") where the excerpt's sentence says it of most or some of them."""
    if _FEW.search(claim.text):
        return None
    near = excerpt.about(claim)
    # Another sentence, not said of most, as much about the claim: that one may be what it says ("Most
    # febrile seizures last less than 5 minutes. Call 999 if the seizure lasts longer than 5 minutes").
    rivals = (s for s in excerpt.sentences if s is not near and not _FEW.search(s.text))
    if any(_concepts_shared(claim, s) >= _concepts_shared(claim, near) for s in rivals):
        return None
    for m in _MOST.finditer(near.source.lower()):
        if re.search(rf"\b{re.escape(m.group(2))}\b", claim.source.lower()):
            said = near.source[m.start() : m.end()]  # as written
            return _missing("subset", f"the excerpt says {quote(said)}; the claim says it of all")
    return None


# An effect said as certain ("causes", "leads to") and as possible ("may cause").
_EFFECT = r"(caus|lead|result|increas|reduc|prevent|improv|worsen|trigger)"
_CERTAIN = re.compile(r"\b(?<!to )" + _EFFECT + r"(?:es|s)\b")
_HEDGED = r"\b(?:may|might|could|can)\s+(?:also\s+|sometimes\s+)?{verb}e?\b"


# An outcome said as sure to come ("anyone who takes it will develop a cough").
_SURE = re.compile(r"\b(?:will|always)\s+(?:develop|get|have|cause|lead|experience|become|need|suffer)\b")
_MAYBE = re.compile(r"\b(?:may|might|can|could|sometimes|some)\b")
_SURE_TOO = re.compile(r"\b(?:will|always|all|every|invariably)\b")


def check_hedge(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """An effect the claim says happens that the excerpt's sentence says may happen ("Metformin causes
    diarrhoea" against "Metformin may cause … diarrhoea"; "will develop" against "can cause")."""
    near = excerpt.about(claim)
    sure, maybe = _SURE.search(claim.text), _MAYBE.search(near.text)
    if sure and maybe and not _SURE_TOO.search(near.text) and not _MAYBE.search(claim.text):
        return _missing("modality", f"the claim says “{sure.group(0)}”; the excerpt says “{maybe.group(0)}”")
    for m in _CERTAIN.finditer(claim.text):
        hedged = re.search(_HEDGED.format(verb=m.group(1)), near.text)
        if hedged is not None and not re.search(rf"\b{m.group(1)}(?:es|s)\b", near.text):
            return _missing(
                "modality", f"the claim says “{m.group(0)}”; the excerpt says “{hedged.group(0)}”"
            )
    return None


def check_binding(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """A word the claim says of its medicine that the excerpt says only of another ("binding")."""
    found = said_of_another(claim, excerpt.sentences)
    if found is None:
        return None
    word, other, mine = found
    return _missing("drug", f"the excerpt says {word} of {other}, not of {mine}")


_SUPERLATIVE = re.compile(r"\bmost (common|frequent|effective|likely|important|serious)\b")


def check_superlative(claim: Reading, excerpt: Excerpt) -> Finding | None:
    """ "X is the most common …" where the excerpt says "most common" of something else and "less common" of
    what the claim names ("breathlessness on exertion is the most common …; orthopnoea … less common")."""
    m = _SUPERLATIVE.search(claim.text)
    if m is None:
        return None
    most = [x for x in excerpt.sentences if re.search(rf"\bmost {m.group(1)}\b", x.text)]
    compared = [
        (x, c) for x in excerpt.sentences if (c := re.search(rf"\b(?:less|more) {m.group(1)}\b", x.text))
    ]
    if not most or not compared:
        return None
    for x, said in compared:
        own = [c for c in claim.concepts if _says_concept(c, claim, x)]
        if any(not any(_says_concept(c, claim, y) for y in most) for c in own):
            reason = f"the claim says {m.group(0)}; the excerpt says {said.group(0)} in {quote(x.source)}"
            return _contradicted("comparison", reason)
    return None


CHECKS = (
    check_near_quote,
    check_opposite,
    check_drugs,
    check_populations,
    check_line,
    check_line_of_drugs,
    check_strength,
    check_comparison,
    check_route,
    check_site,
    check_site_row,
    check_site_people,
    check_dose_people,
    check_timing,
    check_any_time,
    check_condition,
    check_withheld,
    check_any,
    check_all,
    check_narrowed,
    check_hedge,
    check_alone,
    check_only,
    check_binding,
    check_superlative,
    check_exception,
)


def first_finding(
    claim: Reading, excerpt: Excerpt, checks: Sequence = CHECKS, *, quoted: bool = False
) -> Finding | None:
    """The finding that decides, if any. A claim ``quoted`` word for word from the excerpt is not contradicted
    by it (a check that says so misread the sentence), but may still leave out what the excerpt requires."""
    found = [f for f in (check(claim, excerpt) for check in checks) if f is not None]
    if quoted:
        found = [f for f in found if f.outcome != "contradicted"]
    # A contradiction is the stronger finding, whichever check made it.
    return next((f for f in found if f.outcome == "contradicted"), found[0] if found else None)
