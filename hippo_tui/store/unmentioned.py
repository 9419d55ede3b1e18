"""What a knowledge base lacks altogether: the question's words that no active passage contains in any form.

No passage can answer a question on a subject the knowledge base never names ("edoxaban"); a word the passages
a search found do not use, but others do, may just be the asker's way of saying it. A model is told which
words the whole knowledge base lacks (``prompts.UNMENTIONED``), so that it can tell the two apart.
"""

from __future__ import annotations

from hippo_tui.store.query import terms
from hippo_tui.store.slips import DocFrequencies, slippable, slips
from hippo_tui.store.wording import fold, fold_word, numbered


def _lexicon_forms(query: str) -> dict[str, list[str]]:
    """Each typed word the lexicon reads as another wording ("af" as "atrial fibrillation", the "baby" of "baby
    tooth" as "primary tooth") -> that wording folded, searched as a phrase: the index may hold it so."""
    from hippo_tui.verification.lexicon import lexicon, respell

    lex = lexicon()
    out: dict[str, list[str]] = {}
    for m in lex.replace.finditer(respell(query.lower())):
        if folded := fold(lex.replacements[m.group("p")]):
            for word in m.group("p").split():
                out.setdefault(word, []).append(folded)
    return out


async def unmentioned(query: str, doc_frequencies: DocFrequencies) -> list[str]:
    """The question's words (as typed, lower case) that no active passage contains in any form, nor as the
    word they are a slip of. Numbers are left out (a passage writes them in many ways); "hba1c" is a word."""
    from hippo_tui.verification.lexicon import lexicon

    lex = lexicon()
    typed = [w for w in terms(query) if not w.isdigit() and w not in lex.everyday]
    other = _lexicon_forms(query)
    forms = {w: [fold_word(w), *other.get(w, [])] for w in typed}
    dfs = await doc_frequencies(list(dict.fromkeys(f for fs in forms.values() for f in fs)))
    absent = [w for w in typed if not any(dfs.get(f, 0) for f in forms[w])]
    # A drug's name as the lexicon knows it is no slip of a source's typo ("prasugrel" of a card's "Prasugel"):
    # the answerer never reads it as one (``backends.spelling``), so the KB does not name that drug.
    slipped = [w for w in absent if slippable(w) and not lex.drug_classes(w)]
    fixed = await slips(slipped, doc_frequencies)
    return [w for w in absent if w not in fixed] + await _numbered(query, doc_frequencies)


async def _numbered(query: str, doc_frequencies: DocFrequencies) -> list[str]:
    """A word and the number that names which one ("type 1") that no passage says together: a knowledge base
    with "type" and "1" in its passages may still have nothing on type 1 diabetes."""
    pairs = numbered(query, names_only=True)
    if not pairs:
        return []
    dfs = await doc_frequencies(sorted(set(pairs.values())))
    return [said for said, folded in pairs.items() if dfs.get(folded, 0) == 0]
