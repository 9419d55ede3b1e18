"""Which medicine a sentence speaks of, so that a claim takes nothing of one medicine for another.

An excerpt that gives two medicines in two sentences ("Magnesium sulfate is first line for eclamptic
seizures. In severe pre-eclampsia, labetalol is used to control blood pressure.") has every word of a claim
that joins them wrongly ("magnesium sulfate … is also used to control blood pressure"): counted over the whole
excerpt, each word is found. A word the claim says of its medicine must be found where that medicine is
spoken of, or where no medicine is named; found only in sentences about other medicines, it is theirs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache, lru_cache

from hippo_tui.verification.lexicon import SPELLED_WORD, lexicon
from hippo_tui.verification.quantities import Quantity, find
from hippo_tui.verification.reading import Reading, has_concept, read, said_by_gloss, same, sentences

# "measles vaccine", "pertussis vaccine" (after the lexicon's "vaccination" -> "vaccine"): each its own agent.
_VACCINE = re.compile(r"\b([a-z][a-z0-9-]*)\s+vaccines?\b")


@cache
def _phrases() -> tuple[str, ...]:
    """Medicines of more than one word that the classes list ("magnesium sulfate", "tranexamic acid")."""
    return tuple(sorted({m for c in lexicon().classes for m in c.members if " " in m}))


def agents(r: Reading) -> frozenset[str]:
    """The medicines ``r`` names: the lexicon's classes' and list's, any word with an INN stem's ending, and
    vaccines."""
    named = set(r.drugs) | {p for p in _phrases() if re.search(rf"\b{re.escape(p)}\b", r.text)}
    named |= {w for w in SPELLED_WORD.findall(r.text) if lexicon().names_agent(w)}
    named |= {f"{m.group(1)} vaccine" for m in _VACCINE.finditer(r.text)}
    return frozenset(named)


def _names(sentence: Reading, theirs: frozenset[str], mine: frozenset[str], claim: Reading) -> bool:
    """The sentence (naming ``theirs``) speaks of one of the claim's medicines: by name, or by a class one of
    them is in."""
    if any(same(a, b) or a in b.split() or b in a.split() for a in mine for b in theirs):
        return True
    claim_classes = claim.classes.union(*claim.drugs.values()) if claim.drugs else claim.classes
    return bool(claim.classes & sentence.all_classes) or bool(claim_classes & sentence.classes)


# "It" ("this medicine") before a sentence names a medicine of its own is most often the medicine of the
# sentence before ("Lamotrigine can cause rashes. The risk is higher if it is taken with valproate.").
_IT = re.compile(r"\b(?:it|its|(?:this|the) (?:medicine|drug))\b")
# A sentence's lead-in up to a colon is a heading for what follows ("Uncomplicated chlamydia: doxycycline …").
_LABEL = re.compile(r"^([^:]{3,80}):\s")


def carries_it(text: str) -> bool:
    """The sentence says "it" before it names a medicine of its own ("… if it is taken with valproate"; not
    "Apixaban is an alternative, as it is …")."""
    m = _IT.search(text)
    return m is not None and not any(
        lexicon().names_medicine(w) for w in SPELLED_WORD.findall(text[: m.start()])
    )


def _own(
    sentences: tuple[Reading, ...], named: list[frozenset[str]], mine: frozenset[str], claim: Reading
) -> list[bool]:
    """For each sentence, whether it speaks of the claim's medicine, by name or as "it" after one that does."""
    own: list[bool] = []
    for s, theirs in zip(sentences, named, strict=True):
        own.append(_names(s, theirs, mine, claim) or (bool(own) and own[-1] and carries_it(s.text)))
    return own


def _in_label(concept: str, sentence: Reading) -> bool:
    m = _LABEL.match(sentence.source)
    return m is not None and has_concept(concept, read(m.group(1)).concepts)


def _agent_words(named: frozenset[str]) -> frozenset[str]:
    return frozenset(w for a in named for w in a.split())


def said_of_another(claim: Reading, sentences: tuple[Reading, ...]) -> tuple[str, str, str] | None:
    """A word of the claim (quoted), a number, or its line of therapy found only in sentences about other
    medicines, the medicine it is said of and the claim's; None when each is found where the claim's medicine
    is, or where none is named. Medicines the claim names together ("aspirin and clopidogrel are both …") are
    each held to every word: what the excerpt says of one of them alone is not said of the other."""
    every = agents(claim)
    if not every:
        return None
    sentences, named = _pieces(sentences)  # and each one's medicines, read once
    if len(sentences) < 2:
        return None
    for mine, part in ((every, claim), *_each(claim, every)):
        own = _own(sentences, named, mine, part)
        if any(own) and (found := _unbound(part, sentences, named, own, every)):
            return found[0], found[1], sorted(mine)[0]
    return None


def _pieces(sentences: tuple[Reading, ...]) -> tuple[tuple[Reading, ...], list[frozenset[str]]]:
    """The sentences, each that gives two medicines in semicolon-separated pieces split into them
    ("Tenecteplase is given as a single bolus; alteplase is infused over 60 minutes"), with each one's
    medicines."""
    out: list[Reading] = []
    named: list[frozenset[str]] = []
    for s in sentences:
        parts = [read(p) for p in s.source.split(";") if p.strip()] if ";" in s.source else []
        theirs = [agents(p) for p in parts]
        if sum(map(bool, theirs)) >= 2:
            out += parts
            named += theirs
        else:
            out.append(s)
            named.append(agents(s))
    return tuple(out), named


def _unbound(
    claim: Reading,
    sentences: tuple[Reading, ...],
    named: list[frozenset[str]],
    own: list[bool],
    every: frozenset[str],
) -> tuple[str, str] | None:
    """The first of the claim's words, numbers or lines said only in sentences that are not ``own``, and the
    medicine that sentence names."""
    names = _agent_words(every)
    for concept, word in claim.concepts.items():
        if word in names or word in claim.drugs or any(same(concept, n) for n in names):
            continue
        holders = [
            i
            for i, s in enumerate(sentences)
            if has_concept(concept, s.concepts)
            or has_concept(concept, s.stems)
            or said_by_gloss(concept, claim, s)
        ]
        if any(_in_label(concept, sentences[i]) for i in holders):
            continue  # a heading's word is said of all that follows
        if _theirs(holders, named, own):
            return f"“{word}”", sorted(named[holders[0]])[0]
    for q in find(claim.source):  # "for 12 months" is said of a medicine as much as any word
        holders = [i for i, s in enumerate(sentences) if any(map(q.matches, _quantities(s.source)))]
        if _theirs(holders, named, own):
            return f"“{q.text}”", sorted(named[holders[0]])[0]
    for line in sorted(claim.lines):  # "first-line" too
        holders = [i for i, s in enumerate(sentences) if line in s.lines]
        if _theirs(holders, named, own):
            return f"{line} line", sorted(named[holders[0]])[0]  # a reading
    return None


@lru_cache(maxsize=4096)  # an excerpt's sentences, read again for each claim citing it; bounded for a server
def _quantities(text: str) -> tuple[Quantity, ...]:
    return tuple(find(text))


def _each(claim: Reading, every: frozenset[str]) -> list[tuple[frozenset[str], Reading]]:
    """Each medicine the claim names together with another ("aspirin and clopidogrel", "A, B or C"), alone,
    with the sentence of the claim that joins them (what other sentences say is said of whom they name)."""
    out = []
    for text in sentences(claim.source):
        part = read(text)
        joined: set[str] = set()
        for a in every:
            for b in every - {a}:
                if re.search(rf"\b{re.escape(a)}\b{_JOINER}\b{re.escape(b)}\b", part.text):
                    joined |= {a, b}
        out += [(frozenset({a}), _only(part, frozenset({a}))) for a in sorted(joined)]
    return out


# What joins medicines named together: "and", "or", "plus", a comma, "as well as".
_JOINER = r"\s*(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or|plus|&|as well as)\s+)"


def _only(claim: Reading, mine: frozenset[str]) -> Reading:
    """The claim as if it named only ``mine`` of its medicines, for which sentences speak of that one."""
    return replace(claim, drugs={d: c for d, c in claim.drugs.items() if d in mine})


def _theirs(holders: list[int], named: list[frozenset[str]], own: list[bool]) -> bool:
    """Every sentence that says it speaks of another medicine (and there is one)."""
    return bool(holders) and all(not own[i] and named[i] for i in holders)
