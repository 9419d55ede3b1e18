"""Build hippo_tui/data/thesaurus.tsv.gz from a WordNet 3.0 database: the everyday English the offline judge
must know to read a paraphrase ("cessation" says "stop", "sudden" says "abrupt").

    python -m tools.build_thesaurus /usr/share/wordnet     # Debian: apt-get install wordnet-base

Kept from WordNet, for each single-word lemma (formal ones too: "cessation" is the register of guidance):
- the other lemmas of its most frequent senses (``SENSES`` per part of speech: rarer senses are where
  "discharge" means "fire"), and
- two-word lemmas too ("bring down" -> "reduce", "stay off", "take place"), keyed by both words' stems;
- the lemmas the derivation pointers of those senses name ("cessation" -> "cease"; and, from the synset
  {stop, cease, discontinue}, "stop" -> "cessation", "discontinuation"), with their own synonyms in the
  target's frequent senses ("cease" -> "stop", "discontinue").
Hypernyms are never followed: "limb" is not "arm", "drug" is not "aspirin".

Also ``light_words.txt.gz``: the words (lemmas and their regular and listed inflections) whose three most
frequent senses, in every part of speech, are all in WordNet's lexicographer files of relations, states of
being, speech, thought, social acts, possession and abstract relations (``LIGHT``): "explain", "discuss",
"mention", "report", "evidence", "information", "involve". None of them names a drug, a condition, a body
part, a substance, a time, a manner or an amount, and the few that state a verdict are left out
(``NOT_LIGHT``); a claim may add one or two the excerpt does not say (``elements.check_words``).

Each line: ``stem<TAB>lemma<TAB>related words`` (space separated), sorted. The stem is the project's own
(``verification.lexicon.stem``), precomputed so that a look-up is a search of the text with nothing to
build first; a test checks that the stored stems still match the stemmer. WordNet's licence travels with the file (the header lines).
"""

from __future__ import annotations

import argparse
import gzip
import sys
from collections import defaultdict
from pathlib import Path

from hippo_tui.verification.lexicon import stem

SENSES = 3
# Lemmas of those files that state a verdict, a permission or a proof: a claim that adds one says more than its
# excerpt ("X prevents Y" from "X reduces Y", "contraindicated" from "use with caution"), so none is light.
NOT_LIGHT = frozenset("""allow permit forbid prohibit contraindicate indicate prove establish prevent require
    recommend advise diagnose exclude confirm refer prescribe continue warn approve license""".split())
# Lexicographer files (data.* field 2) whose synsets say how things stand, are said, thought, done between
# people or owned: relations and states of being, not things, bodies, substances, times, manners or amounts.
LIGHT = frozenset({
    "noun.cognition", "noun.communication", "noun.relation", "verb.cognition", "verb.communication",
    "verb.possession", "verb.social", "verb.stative",
})  # fmt: skip
LEXNAMES = {4 + i: n for i, n in enumerate("""noun.act noun.animal noun.artifact noun.attribute noun.body
    noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive
    noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity
    noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change verb.cognition
    verb.communication verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion
    verb.perception verb.possession verb.social verb.stative verb.weather""".split())}
# Regular inflections, tried in this order to find a form's lemma: (ending, what replaces it).
_ENDINGS = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"), ("ly", ""))
POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
LICENCE = """\
# Derived from WordNet 3.0 (Princeton University): synonyms and derivations of common English words.
# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
# THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR
# WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES NO
# REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE
# OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS,
# COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.
# Permission to use, copy, modify and distribute this database for any purpose and without fee or royalty
# is granted provided this notice appears on all copies. Built by tools/build_thesaurus.py.
"""

Synset = tuple[str, int]  # (pos letter, offset)


def _word(lemma: str) -> str | None:
    w = lemma.lower().split("(")[0]
    return w if w.isalpha() and len(w) >= 3 else None


def read_data(folder: Path) -> tuple[dict[Synset, list[str]], dict[Synset, list[tuple[Synset, int]]]]:
    """Every synset's lemmas, and its derivation pointers (target synset, target word number)."""
    lemmas: dict[Synset, list[str]] = {}
    derived: dict[Synset, list[tuple[Synset, int]]] = defaultdict(list)
    for name, pos in POS.items():
        for line in (folder / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith(" "):
                continue
            f = line.split(" | ")[0].split()
            key = (pos, int(f[0]))
            n = int(f[3], 16)
            lemmas[key] = [f[4 + 2 * i] for i in range(n)]
            at = 4 + 2 * n
            for i in range(int(f[at])):
                sym, off, tpos, st = f[at + 1 + 4 * i : at + 5 + 4 * i]
                if sym == "+":
                    target = ("a" if tpos == "s" else tpos, int(off))
                    derived[key].append((target, int(st[2:], 16)))
    return lemmas, derived


def read_index(folder: Path) -> dict[str, list[Synset]]:
    """Each lemma's synsets, most frequent first."""
    senses: dict[str, list[Synset]] = defaultdict(list)
    for name, pos in POS.items():
        for line in (folder / f"index.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith(" "):
                continue
            f = line.split()
            count = int(f[2])
            offsets = f[-count:]
            senses[f[0]] += [("a" if pos == "s" else pos, int(o)) for o in offsets[:SENSES]]
    return senses


def related(lemma: str, senses, lemmas, derived) -> set[str]:
    out: set[str] = set()
    for synset in senses.get(lemma, []):
        words = lemmas.get(synset, [])
        out.update(w for w in map(_word, words) if w)
        for target, index in derived.get(synset, []):
            target_words = lemmas.get(target, [])
            target_lemma = target_words[index - 1].lower() if 0 < index <= len(target_words) else None
            if target_lemma and target in senses.get(target_lemma, []):
                out.update(w for w in map(_word, target_words) if w)
    out.discard(lemma)
    return out


def build(folder: Path) -> list[str]:
    senses = read_index(folder)
    lemmas, derived = read_data(folder)
    lines = []
    for lemma in sorted(senses):
        key = _key(lemma)
        words = related(lemma, senses, lemmas, derived) if key else set()
        if key and words:
            lines.append(f"{key}\t{lemma.replace('_', ' ')}\t{' '.join(sorted(words))}")
    return sorted(lines)


def read_lexfiles(folder: Path) -> dict[Synset, int]:
    """Each synset's lexicographer file number."""
    out: dict[Synset, int] = {}
    for name, pos in POS.items():
        for line in (folder / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if not line.startswith(" "):
                offset, lexfile = line.split(maxsplit=2)[:2]
                out[(pos, int(offset))] = int(lexfile)
    return out


def read_exceptions(folder: Path) -> dict[str, str]:
    """Irregular forms to their lemma ("went" -> "go"), the first listed."""
    out: dict[str, str] = {}
    for name in POS:
        for line in (folder / f"{name}.exc").read_text(encoding="latin-1").splitlines():
            form, lemma = line.split()[:2]
            out.setdefault(form, lemma)
    return out


def _lemma_of(form: str, senses: dict[str, list[Synset]], exceptions: dict[str, str]) -> str | None:
    if form in senses:
        return form
    if form in exceptions:
        return exceptions[form]
    return next((form[: -len(e)] + r for e, r in _ENDINGS if form.endswith(e) and form[: -len(e)] + r in senses), None)


def _forms(lemma: str) -> set[str]:
    """A lemma's regular inflections (a few impossible ones too: they never occur in text, so cost nothing)."""
    if lemma.endswith("e"):
        return {lemma, lemma + "s", lemma + "d", lemma[:-1] + "ing", lemma[:-1] + "y"}
    forms = {lemma, *(lemma + e for e in ("s", "es", "ed", "ing", "ly"))}
    if lemma.endswith("y"):
        forms |= {lemma[:-1] + "ies", lemma[:-1] + "ied"}
    return forms


def light_words(folder: Path) -> list[str]:
    """The forms whose lemma's frequent senses are all of the ``LIGHT`` lexicographer files."""
    senses, files, exceptions = read_index(folder), read_lexfiles(folder), read_exceptions(folder)
    light = {
        lemma
        for lemma, synsets in senses.items()
        if lemma.isalpha() and lemma not in NOT_LIGHT and synsets and all(LEXNAMES.get(files[s]) in LIGHT for s in synsets)
    }
    forms = {f for lemma in senses if lemma.isalpha() for f in _forms(lemma)} | set(exceptions)
    return sorted(f for f in forms if f.isalpha() and _lemma_of(f, senses, exceptions) in light)


def _key(lemma: str) -> str | None:
    """A lemma's look-up key: its stem, or for a two-word verb or phrase ("bring_down", "take_place") the
    stems of both words."""
    parts = [_word(p) for p in lemma.split("_")]
    if len(parts) > 2 or not all(parts):
        return None
    return " ".join(stem(p) for p in parts if p)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wordnet", type=Path, help="the folder of WordNet's data.* and index.* files")
    parser.add_argument("--out", type=Path, default=Path("hippo_tui/data/thesaurus.tsv.gz"))
    args = parser.parse_args(argv)
    lines = build(args.wordnet)
    text = (LICENCE + "\n".join(lines) + "\n").encode("utf-8")
    args.out.write_bytes(gzip.compress(text, compresslevel=9, mtime=0))  # the same bytes on every build
    print(f"{len(lines)} lemmas -> {args.out} ({args.out.stat().st_size:,} bytes)")
    light = light_words(args.wordnet)
    out = args.out.with_name("light_words.txt.gz")
    out.write_bytes(gzip.compress((LICENCE + "\n".join(light) + "\n").encode("utf-8"), compresslevel=9, mtime=0))
    print(f"{len(light)} light words -> {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
