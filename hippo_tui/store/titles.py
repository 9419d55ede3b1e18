"""A document's title as evidence of what it is about: a passage scores more when the question says the
words of its document's title ("Anaphylaxis", "Bell's Palsy Treatment", "Diarrhoea and Vomiting in Children").

BM25 weighs a passage's own words. A long general book ("Standard Treatment Guidelines and Essential Medicines
List") has a section on most subjects, each written with many of the question's words, and its passages
outrank the short card whose title names the very subject asked about. The share of the document title's
folded words that the question holds (not of the question's words the title holds: a general title naming
"treatment" or "guidelines" says little) raises each of its passages' scores; a document's passages keep
their order among themselves. Plain Python over the candidates, both backends.

Real corpora, kb search (development / held-back half, 245 / 222 answerable): hit@1 182/137 -> 189/148,
hit@3 225/186 -> 227/190, MRR .831/.735 -> .855/.773; hit@10 unchanged. The answerer does not use it
(``Store.search``'s ``titles``): given this order, its answers cited the right document less often on the
held-back half (of 198 then: 115 -> 113 at this weight, 110 at a weight of 1; 112 with a boost by the
question's share that the title holds instead), though more often on the development half.

A question may say a title in other words (``asked_words``): a child's age says "Children" and "Paediatric", a
"chest infection" says "Pneumonia" (the lexicon's definition of a title's term, half of it or more), and
"gastro" says "Diarrhoea and Vomiting" (the definition of the question's own term). Development / held-back:
hit@1 190/151 -> 194/153, hit@3 226/191 -> 230/193, MRR .856/.782 -> .868/.788. Reading a question's word for
a child ("toddler", "baby") as every name of children as well cost a held-back question: only a typed age is.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import TypeVar

from hippo_tui import cache_files
from hippo_tui.store.query import typed_text
from hippo_tui.store.wording import fold, fold_word

# A passage of a document whose title's words the question all says scores this much more (a share of it for a
# share of them). Development half, hit@3 by weight: 0.25 -> 203, 0.5 -> 205, 0.75 -> 204, 1 -> 203, 2 -> 203.
# With titles said in other words (asked_words), of 245: hit@3 (hit@1) 0.35 -> 228 (193), 0.5 -> 230 (194),
# 0.75 -> 230 (197), 1 -> 230 (201), 1.5 -> 232 (196), 2 -> 231 (192). At 1 the held-back half's hit@1, hit@3
# and MRR were as at 0.5, but a passage with the fact among the top 3 fell (136 -> 134 of 222): kept at 0.5.
TITLE_WEIGHT = 0.5
R = TypeVar("R")
_PARTS = " › "  # a passage's title is its document's, then its sections' (ingest)


@lru_cache(maxsize=8192)
def _title_words(title: str) -> tuple[str, ...]:
    """The folded words of a passage's document title, numbers aside ("PC 101", "2019")."""
    head = title.split(_PARTS, 1)[0]
    return tuple(dict.fromkeys(w for w in (fold(head) or "").split() if not w.isdigit()))


def said(title: str, asked: frozenset[str]) -> float:
    """The share (0 to 1) of ``title``'s document title words that are among ``asked`` (folded words).

    Short words count too: a long title's "and" and "of" dilute it, so a short specific title counts more
    (measured: leaving them out cost development hit@3 205 -> 204)."""
    own = _title_words(title)
    return sum(w in asked or _defined(w, asked) for w in own) / len(own) if own else 0.0


# An age as a question types it ("a 3 year old", "4 yo", "8 month old", "6-week-old"; typed_text has split "4yo"),
# not a time ("5 days ago", "for 7 days"): a child's in days, weeks or months, or in years under CHILD_YEARS.
_AGE = re.compile(r"\b(\d{1,3})[\s-]*(?:(?:(day|week|wk|month|mo)|year|yr)s?[\s-]*old\b|yo\b|y/o\b)")
CHILD_YEARS = 16
_LETTERS = re.compile(r"[a-z]+")


@cache
def _children() -> frozenset[str]:
    """The lexicon's one-word names of children, folded ("child", "paediatric", "infant", "toddler")."""
    from hippo_tui.verification.lexicon import lexicon

    named = lexicon().populations.items()
    return frozenset(fold_word(p) for p, (_axis, group) in named if group == "children" and " " not in p)


@cache
def _in_company() -> frozenset[str]:
    """A definition's words that say nothing alone ("low", "high": ``definitions.IN_COMPANY_WORDS``), folded."""
    from hippo_tui.verification.definitions import IN_COMPANY_WORDS

    return frozenset(fold_word(w) for w in IN_COMPANY_WORDS.split())


@cache
def _definitions() -> dict[str, frozenset[str]]:
    """Each clinical term the lexicon defines (folded) -> its defining everyday words, folded, of two or more
    ("pneumonia": lung, chest, infection). Folding them all is 14 ms, a tenth of a search process's time: they
    are kept in the cache folder, under a name that changes with the lexicon and the code that folds."""
    path = _definitions_file()
    kept = cache_files.read(path) if path is not None else None
    if isinstance(kept, dict):
        return {term: frozenset(words) for term, words in kept.items()}
    out = _folded_definitions()
    if path is not None:
        cache_files.write(path, {term: sorted(words) for term, words in out.items()})
    return out


def _definitions_file() -> Path | None:
    from hippo_tui.verification.lexicon_cache import cache_file

    folder = cache_files.cache_dir()
    lexicon_file = cache_file(folder)
    if lexicon_file is None:
        return None
    digest = hashlib.sha256(lexicon_file.name.encode())
    package = resources.files("hippo_tui")
    try:
        for name in ("store/titles.py", "store/wording.py", "verification/definitions.py"):
            digest.update(package.joinpath(name).read_bytes())
    except OSError:
        return None
    return folder / f"title-definitions-{digest.hexdigest()[:24]}.bin"


def _folded_definitions() -> dict[str, frozenset[str]]:
    from hippo_tui.verification.lexicon import lexicon

    out = {}
    for term, words in lexicon().glosses.items():
        own = frozenset(fold_word(w) for w in words) - _in_company()
        if len(own) >= 2:
            out[fold_word(term)] = own
    return out


def _defined(word: str, asked: frozenset[str]) -> bool:
    """A title's clinical term said in everyday words: ``asked`` holds half its definition or more (a "chest
    infection" says "Pneumonia")."""
    own = _definitions().get(word)
    return own is not None and 2 * len(own & asked) >= len(own)


def asked_words(query: str, words: Sequence[str]) -> frozenset[str]:
    """The folded words a question says of a title: its search ``words`` (a phrase's words each), the names of
    children when it types a child's age ("a 3 year old": "children", "paediatric"), and the everyday words that
    define its clinical terms (the lexicon's glosses: "gastro" says "diarrhoea", "vomiting")."""
    from hippo_tui.verification.definitions import gloss
    from hippo_tui.verification.lexicon import lexicon, respell

    text = respell(typed_text(query))
    child = any(m[2] or int(m[1]) < CHILD_YEARS for m in _AGE.finditer(text))
    defining = {fold_word(w) for t in _LETTERS.findall(lexicon().replaced(text)) for w in gloss(t)}
    return (
        frozenset(p for w in words for p in w.split())
        | (_children() if child else frozenset())
        | (defining - _in_company())
    )


def by_title(
    rows: Sequence[R],
    scores: Sequence[float],
    titles: Sequence[str],
    documents: Sequence[str | None],
    words: Sequence[str],
    query: str = "",
) -> list[tuple[float, R]]:
    """``rows`` with their ``scores`` (higher is better) each raised by ``1 + TITLE_WEIGHT * said(title)``, best
    first (stable: a document's passages keep their order). ``words`` are the search terms of ``query`` (folded),
    read with it as ``asked_words``. A row of no ``documents`` entry is its own document, a hand-written card
    whose title BM25 already weighs as its own: it is not raised."""
    asked = asked_words(query, words)
    raised = [
        s * (1 + TITLE_WEIGHT * said(t, asked)) if d else s
        for s, t, d in zip(scores, titles, documents, strict=True)
    ]
    return sorted(zip(raised, rows, strict=True), key=lambda x: -x[0])
