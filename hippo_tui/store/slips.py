"""A tired clinician's typos in a search: a word the index has never seen, read as the one indexed word it is
a slip of ("varenicilne" finds "varenicline").

The answerer's rule (``backends/spelling.py``): two neighbouring letters swapped, or, in a word of six letters
or more, one letter left out or added; never the first letter, and only when one indexed word is that close, or
one far commoner than the others (their typos). And here, in a word of six letters or more, one vowel typed for
another ("delerium", "paracetomol", "ibuprofin"), the commonest misspelling; never another letter changed
("arteritis" is not "arthritis"). A word the index knows is searched as it is, and also as the word it is a slip
of only when it is in fewer than DOMINANT passages and that word in DOMINANT times more: the knowledge base's own
typo ("pregancy", 5 passages of the real corpora, "pregnancy" thousands) found those passages alone. Candidates
are folded as the index is (``wording.fold_word``) and looked up in one query of the backend's own document
frequencies.
"""

from __future__ import annotations

import string
from collections.abc import Awaitable, Callable, Mapping

from hippo_tui.store.query import terms, typed_words
from hippo_tui.store.wording import fold, fold_word, other_wordings, search_terms

MIN_LETTERS = 5  # shorter words are too easily another word ("dose"/"nose")
INDEL_LETTERS = 6  # a letter left out or added only in a longer typed word ("stent" is not "sent")
MAX_CORRECTED = 3  # words per question: a question of typos is not worth hundreds of lookups
# Of several indexed words one slip away, the one in this many times more passages than all the others is
# the word meant: the others are the knowledge base's own typos ("comunity" is one slip from "community",
# in 2,244 passages of the real corpora, and from "comunit", in one).
DOMINANT = 20

_VOWELS = "aeiouy"  # one typed for another is a slip (the module's docstring)

DocFrequencies = Callable[[list[str]], Awaitable[dict[str, int]]]


def candidates(word: str) -> set[str]:
    """Every word one slip from ``word`` (lower case), its first letter kept."""
    out = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(1, len(word) - 1)}
    if len(word) >= INDEL_LETTERS:
        out |= {word[:i] + word[i + 1 :] for i in range(1, len(word))}
        out |= {word[:i] + c + word[i:] for i in range(1, len(word) + 1) for c in string.ascii_lowercase}
        out |= {
            word[:i] + v + word[i + 1 :] for i in range(1, len(word)) if word[i] in _VOWELS for v in _VOWELS
        }
    out.discard(word)
    return out


async def slips(typed: list[str], doc_frequencies: DocFrequencies) -> dict[str, str]:
    """Each typed word (lower case) that is a slip of one indexed word -> that word, folded."""
    return {w: fold_word(word) for w, word in (await slipped_words(typed, doc_frequencies)).items()}


async def slipped_words(
    typed: list[str], doc_frequencies: DocFrequencies, seen: Mapping[str, int] | None = None
) -> dict[str, str]:
    """Each typed word (lower case) that is a slip of one indexed word -> that word, spelt as meant. A word
    the index holds (``seen``: its count of passages) is one only when that word is DOMINANT times commoner."""
    spelt = {w: {fold_word(c): c for c in sorted(candidates(w))} for w in typed[:MAX_CORRECTED]}
    for w, fs in spelt.items():
        fs.pop(fold_word(w), None)
    if not spelt:
        return {}
    known = await doc_frequencies(sorted(set().union(*spelt.values())))
    close = {w: sorted((known[f], f) for f in fs if known.get(f, 0) > 0) for w, fs in spelt.items()}
    own = seen or {}
    return {
        w: spelt[w][c[-1][1]]
        for w, c in close.items()
        if c and c[-1][0] >= DOMINANT * (own.get(w, 0) + sum(n for n, _ in c[:-1]))
    }


def slippable(word: str) -> bool:
    return len(word) >= MIN_LETTERS and word.isalpha()


async def with_slips_read(query: str, words: list[str], doc_frequencies: DocFrequencies) -> list[str]:
    """``words`` (the query's search terms) and, for each typed word the index lacks or holds only as a typo of
    its own, the one indexed word it is a slip of, or, for a medicine it never names, the medicine's class
    (``classes_of``); for a thing the index never names in the lexicon's wording, its other wordings
    (``wording.other_wordings``)."""
    dfs = await doc_frequencies(words)
    # A thing the knowledge base names only in another of the lexicon's wordings ("C. difficile").
    unnamed = [
        f for full, others in other_wordings(query).items() if full in dfs and not dfs[full] for f in others
    ]
    words = words + [f for f in dict.fromkeys(unnamed) if f not in words]
    counted = {w: dfs[fold_word(w)] for w in terms(query) if slippable(w) and fold_word(w) in dfs}
    unknown = [w for w, n in counted.items() if n == 0]
    # A word the knowledge base holds only as its own typo ("pregancy", in 5 passages against thousands).
    seldom = [w for w, n in counted.items() if 0 < n < DOMINANT]
    if not unknown and not seldom:
        return words
    meant = await slipped_words(unknown + seldom, doc_frequencies, counted)
    # The question as meant, read again: the corrected words may make a phrase the lexicon knows ("comunity
    # acquired pnemonia" is "CAP").
    found = [*search_terms(_respelt(query, meant)), *classes_of([w for w in unknown if w not in meant])]
    return words + [f for f in dict.fromkeys(found) if f not in words]


def _respelt(query: str, meant: dict[str, str]) -> str:
    """``query``'s words with each slip (``slipped_words``) as the word meant."""
    return " ".join(meant.get(w, w) for w in typed_words(query))


def classes_of(medicines: list[str]) -> list[str]:
    """The classes (folded) of the medicines among ``medicines``: a knowledge base that never names lisinopril
    may still say what to do about an ACE inhibitor."""
    from hippo_tui.verification.lexicon import lexicon

    lex = lexicon()
    out = []
    for w in medicines:
        names = lex.drug_classes(w)
        wider = {c for n in names for c in lex.with_wider(frozenset({n})) - {n}}
        out += [fold(name) or "" for name in sorted(names - wider)]
    return out
