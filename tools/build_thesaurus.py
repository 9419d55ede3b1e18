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
    return 0


if __name__ == "__main__":
    sys.exit(main())
