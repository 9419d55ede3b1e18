"""What a clinical term says by definition: the lexicon's gloss of it ("nocturia": night, urine), read for its
adjective too, and the words of a compound of a combining form ("ototoxic": ear, hearing, toxic). The judge
(``reading``) and the offline answerer read terms so; this module loads only the lexicon, not the checks.
"""

from __future__ import annotations

from hippo_tui.verification.lexicon import lexicon, stem

# Words of a definition that say something only with the rest of it: a direction or a degree ("low" blood
# pressure, "increase" in potassium, "short" of breath) and words of two senses ("discharge", "home").
IN_COMPANY_WORDS = """low high raised raise increase decrease reduced reduce drop fall rise short long fast slow
more less big small large heavy discharge home hospital"""


def gloss(word: str) -> tuple[str, ...]:
    """The everyday words that define ``word`` ("nocturia": "night", "urine"), if any; an adjective is defined
    as its noun ("neutropenic" as "neutropenia", "ketotic" as "ketosis")."""
    glosses = lexicon().glosses
    return glosses.get(stem(word)) or next(
        (
            glosses[stem(word[: -len(a)] + n)]
            for a, n in _ADJECTIVE
            if word.endswith(a) and stem(word[: -len(a)] + n) in glosses
        ),
        (),
    )


# An adjective's ending and its noun's: "-ic" of "-ia" ("hypoxic"), "-otic" of "-osis" ("ketotic").
_ADJECTIVE = (("otic", "osis"), ("ic", "ia"))


def compounded(word: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each combining form ``word`` is a compound of, as the word it joins and the form's words ("ototoxic":
    "toxic", and "ear", "hearing")."""
    return [
        (word[len(form) :], words)
        for form, words in lexicon().combining.items()
        if word.startswith(form) and len(word) - len(form) >= 4
    ]
