"""When and what the answerer asks ``search_kb`` for: a subject's missing facet, a subject alone, a part."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippo_tui.backends.extractive.parts import Part, _aspect, _needs, _query, treatment
from hippo_tui.backends.extractive.words import as_sources_say, content_words
from hippo_tui.verification.lexical import STOP, WORD

if TYPE_CHECKING:
    from hippo_tui.backends.extractive.context import Context


FACET_QUERY = {"dose": "dose", "long": "duration"}  # each answer type as a source heads it


def _facet_query(ctx: Context, part: Part) -> str | None:
    """A search for what the part asks of its subject, for when the sources on the subject do not give it
    ("pertussis dose treatment" when the card's passages given are on its phases): the part's most telling
    subject (``_telling``) and the facet as a source heads it."""
    needs = _needs(part)
    subjects = {w for w in part.want if not _aspect(w) and w not in treatment()}
    # Only where a source names the whole subject, and only the facet is missing.
    if not needs or not subjects or not any(subjects <= s.words for s in ctx.sources):
        return None
    named = _telling(ctx, part, subjects)
    facets = [FACET_QUERY[n] for n in sorted(needs)] + (["treatment"] if part.own & treatment() else [])
    return " ".join(dict.fromkeys(named + facets))[:120] if named else None


def _subject_query(ctx: Context, part: Part) -> str | None:
    """A search for the part's most telling subject alone, for a part no source covers whose own words were
    already searched (the whole question), where no source given names that subject: "glucosamine" finds the
    card that a search on "do glucosamine tablets help knee arthritis" ranks below the first few."""
    if _query(part.text) != _query(ctx.question):
        return None
    subjects = {w for w in part.own if not _aspect(w) and w not in treatment()}
    named = _telling(ctx, part, subjects) if subjects else []
    # Only for a subject no source here names: one they do name is not what the search missed.
    if not named or any(content_words(w) & s.words for w in named for s in ctx.sources):
        return None
    return " ".join(dict.fromkeys(named))[:120]


def _telling(ctx: Context, part: Part, subjects: set[str]) -> list[str]:
    """The part's subjects that tell its sources apart best (the rarest among them), as the question names
    them: not "pneumonia" beside "legionnaires", as a search for both finds the passages that name both."""
    top = max(ctx.weight(w) for w in subjects)
    best = {w for w in subjects if ctx.weight(w) >= top}
    text = as_sources_say(f"{part.subject} {part.text}" if part.subject else part.text)
    return [w for w in WORD.findall(text) if w not in STOP and content_words(w) & best]


def _circumstance(query: str) -> bool:
    """Whether a search's words are all participles ("arriving", "travelling", "bitten"): what the asker is
    doing, which may be context. A noun ("gastric bypass") is what the question is about, and stays required:
    dropped, "vitamins after gastric bypass" was answered with vitamin D in kidney disease."""
    said = [w for w in WORD.findall(query.lower()) if w not in STOP]
    return bool(said) and all(w.endswith(("ing", "ed")) or w in _EN_PARTICIPLES for w in said)


# Participles in "-en" ("bitten", "swollen"); the ending alone would take in nouns ("oxygen", "children").
_EN_PARTICIPLES = frozenset(
    "bitten taken given eaten fallen broken swollen stolen beaten frozen driven".split()
)


# A word the search found under this many titles, none on the part's other subjects, is one the knowledge base
# uses of everything ("home"); under fewer it names a thing of its own ("gastric bypass" in a theatre list).
EVERYDAY_TITLES = 3


def searched_alone(ctx: Context, part: Part) -> tuple[set[str], set[str]]:
    """The words of the part that a search asked for on their own: a query of fewer than half the part's
    own words and nothing else (``_subject_query``), unless the search found them only in passages on something
    else, none naming another of the part's subjects ("arriving" in an audit of waiting times, for "pain relief
    … arriving with a sickle cell crisis"): such a word is the asker's context, not the subject. A word the
    search found nowhere stays required ("loading" of a vitamin D dose, where only vitamin B12's is given).
    And, of the words it returns, those that are the asker's own where a source says all the rest of the part
    (``answering._says_alone``): nouns found only off the subject, under many titles ("home" of "admit or send
    home")."""
    subjects = {w for w in part.own if not _aspect(w)}
    strict: set[str] = set()
    loose: set[str] = set()
    for q in ctx.searched:
        words = content_words(q)
        if words and words <= part.own and 2 * len(words) < len(part.own):
            named = [s for s in ctx.sources if words <= s.words]
            if not named or any((subjects - words) & s.words for s in named):
                strict |= words
            elif not _circumstance(q):
                everyday = len({s.title for s in named}) >= EVERYDAY_TITLES
                (loose if everyday else strict).update(words)
    return strict | loose, loose - strict


def was_searched(ctx: Context, part: Part) -> bool:
    want = content_words(part.query())
    return any(want and len(want & content_words(q)) >= max(1, len(want) // 2) for q in ctx.searched)
