"""The deterministic veto: what a medical reader cannot forgive, checked without a model.

Any judge (the server's model or the offline one) may call a claim grounded; before that stands, each claim is
read against the excerpt for the things a judge most often waves through:

- numbers: every dose, duration, frequency and threshold of a claim clause appears in ONE sentence of the
  excerpt, in any spelling (``quantities``), attached to the same thing: "stop below 45" is not supported by
  "stop below 30 and review the dose below 45", nor "100 mg for 3 to 6 months" by a list that gives 50 mg for
  3 to 6 months and 100 mg for 1 to 4 years;
- comparators: "over 80" is not "under 80", "more than" is not "less than";
- direction: "lowers the INR" is not "raises the INR", "before surgery" is not "after surgery";
- negation: "give" is not "do not give", "avoid" or "contraindicated";
- route: "intravenously" is not "oral", "intramuscular" is not "subcutaneous".

It only ever vetoes on evidence: a claim the excerpt does not mention at all is the judge's call, and a
difference it cannot place (two equally good readings) is left alone, so that honest paraphrase stands.
A source is vetoed when every one of its claims is (a judge passes a source that supports at least one).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from hippo_tui.safe_text import clip, sanitize
from hippo_tui.verification.ages import ANY_AGE
from hippo_tui.verification.lexical import judge_words, stem
from hippo_tui.verification.lexicon import as_written, lexicon
from hippo_tui.verification.markers import ABBREVIATIONS, split_sentences, strip_markers
from hippo_tui.verification.quantities import DOSE_KINDS, Quantity, find, normalize

# Clause boundaries: a claim's numbers must all be found together within one of its clauses.
# "A and B together" is one thing (two drugs used together), not two: "do not use A and B together" negates B too.
# Not "the second and third trimesters": one group of ordinals, one piece with what they name.
_AND = r"and(?!\s+[\w-]+(?:\s+[\w-]+)?\s+together\b)(?!\s+(?:second|third|fourth|fifth)\b)"
# A claim of two sentences is two clauses ("… within 48 hrs. 50 % rise over 7 days"); not after an abbreviation
# that the sentence splitter also reads on ("e.g.", "approx.", "(max. 6 mg daily)"). The stop is matched first
# and the abbreviations looked behind it, so they are tried at a full stop only, not at every character.
SENTENCE_STOP = r"\." + "".join(rf"(?<!\b{re.escape(a)}\.)" for a in sorted(ABBREVIATIONS)) + r"\s+"
_CLAUSE = re.compile(
    rf"{SENTENCE_STOP}|;|,?\s+(?:{_AND}|or|but|then|whereas|while|although)\s+|,\s*(?:then|so|because)\s+|,?\s+(?=unless\b)"
)
# Finer pieces, for what a number or a direction word is attached to.
# "unless" stays with its clause: "unless it would delay" is "if it would not delay" (a negation).
_PIECE = re.compile(
    rf"{SENTENCE_STOP}|[,;:()]|\s+(?:{_AND}|or|but|then|whereas|while|although|because|so)\s+|\s+(?=unless\b)"
)
# "Without delay" is "at once", not a negation. A negative word ("intolerable", "ineffective") says "not" as
# "cannot be tolerated" does.
_NEGATION = re.compile(
    r"\b(?:not|no|never|without(?! delay)|avoid|avoided|avoiding|avoidance|contraindicated|contraindication|cannot|"
    r"unless|unable|unsafe|unsuitable|unnecessary|inappropriate|inadvisable|neither|nor|none|non|unexplained|"
    r"intolerable|ineffective|inadequate|insufficient|unsuccessful|"
    r"rather than|instead of|in preference to|"
    r"wait(?:s|ing)?(?=[^.;]*\bbefore\b))\b"  # "wait until … before driving": do not drive until …
)
# Making something longer or shorter ("prolongs the QT interval"): a direction, and also what an excerpt may say
# is not so ("did not shorten the length of stay"), which ``_check_said_not`` reads.
_LENGTHS = {"prolong": ("amount", 1), "lengthen": ("amount", 1), "shorten": ("amount", -1)}
# Direction words (after stemming): an axis and a sign.
_DIRECTIONS = {
    **dict.fromkeys(
        "increase increas rais raise rise rose elevat boost high higher more greater".split(), ("amount", 1)
    ),
    **dict.fromkeys(
        "reduce reduc decrease decreas low lower fall fell drop declin less fewer".split(), ("amount", -1)
    ),
    **dict.fromkeys("give given start continu offer administ prescrib".split(), ("action", 1)),
    **dict.fromkeys("stop withhold withheld omit omitt discontinu pause paus".split(), ("action", -1)),
    **_LENGTHS,
    **dict.fromkeys("before prior earlier".split(), ("time", 1)),
    **dict.fromkeys("after following later".split(), ("time", -1)),
}
_DIRECTION_WORDS = frozenset(w for word in _DIRECTIONS for w in judge_words(word))
_NOT_SAID_NOT = _DIRECTION_WORDS - {w for word in _LENGTHS for w in judge_words(word)}
# Amount and time words say how a number is reached; an action word (stop, give) is what the number is for.
_NOT_ANCHORS = frozenset(
    w for word, (axis, _) in _DIRECTIONS.items() if axis != "action" for w in judge_words(word)
)
_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
MIN_SHARED = 2  # words a claim clause and an excerpt piece must share before their difference means anything
QUOTE = 90  # characters of the excerpt quoted in a reason
MAX_ASSIGNMENTS = 256  # ways to match a clause's numbers to a sentence's, tried before giving up


@dataclass(frozen=True)
class Span:
    """A piece of normalised text, with its quantities and its words (numbers and their comparators blanked)."""

    text: str
    start: int
    end: int
    quantities: tuple[Quantity, ...]
    words: frozenset[str]


def _blank(text: str, quantities: Sequence[Quantity], offset: int = 0) -> str:
    chars = list(text)
    for q in quantities:
        for i in range(max(q.start - offset, 0), min(q.end - offset, len(chars))):
            chars[i] = " "
    return "".join(chars)


_RANGE_OPEN = re.compile(r"\bbetween\s+\d[^,;]*$")


def _spans(text: str, offset: int, qs: Sequence[Quantity], boundary: re.Pattern[str]) -> list[Span]:
    """``text`` (a sentence at ``offset`` of the normalised whole) cut at ``boundary``, never inside a quantity."""
    cuts = [0]
    for m in boundary.finditer(text):
        a, b = m.start() + offset, m.end() + offset
        if _RANGE_OPEN.search(text, cuts[-1], m.start()) and m.group().strip() == "and":
            continue  # "between 6 months and 5 years" is one range
        if not any(q.start < b and a < q.end for q in qs):
            cuts += [m.start(), m.end()]
    cuts.append(len(text))
    out = []
    for a, b in zip(cuts[::2], cuts[1::2], strict=False):
        inside = tuple(q for q in qs if a + offset <= q.start < b + offset)
        piece = text[a:b]
        a += len(piece) - len(piece.lstrip())
        piece = piece.strip()
        out.append(
            Span(
                piece.strip(),
                a + offset,
                b + offset,
                inside,
                frozenset(judge_words(_blank(piece, inside, a + offset))),
            )
        )
    return [s for s in out if s.text]


@dataclass(frozen=True)
class Sentence:
    text: str
    quantities: tuple[Quantity, ...]
    clauses: tuple[Span, ...]
    pieces: tuple[Span, ...]
    words: frozenset[str]


def _sentences(text: str, split: bool = True) -> list[Sentence]:
    out = []
    for raw in (split_sentences(strip_markers(text)) if split else [text]) or [text]:
        t = _prepared(raw)
        qs = tuple(find(t))
        out.append(
            Sentence(
                t,
                qs,
                tuple(_spans(t, 0, qs, _CLAUSE)),
                tuple(_spans(t, 0, qs, _PIECE)),
                frozenset(judge_words(_blank(t, qs))),
            )
        )
    return out


# A sentence that goes on about the one before ("… should receive a single dose of dexamethasone. The
# recommended dose is 0.15 mg/kg.") gives its numbers to what that one says.
_GOES_ON = re.compile(
    r"^(?:the|this|these|that|its|it|their|they|each)\b(?!\s+(?:other|next)\b)"
    r"|\b(?:the same|this) (?:dose|regimen|course|drug|treatment)\b"
    r"|\b(?:a|the) (?:second|further|repeat|subsequent) (?:dose|course)\b|\banother (?:dose|course)\b"
)


def _with_sequels(sentences: Sequence[Sentence]) -> list[Sentence]:
    """The sentences, and each sentence read with the sentence after it when that one goes on about it."""
    out = list(sentences)
    for a, b in itertools.pairwise(sentences):
        if _GOES_ON.search(b.text):
            # One statement: what the second says of the first ("This should start before conception and
            # continue until 12 weeks") is attached to it, in whichever of its clauses it stands.
            (s,) = _sentences(f"{a.text.rstrip('.')} {b.text}", split=False)
            out.append(dataclasses.replace(s, clauses=(Span(s.text, 0, len(s.text), s.quantities, s.words),)))
    return out


def _compatible(a: Quantity, b: Quantity) -> bool:
    return not a.dim or not b.dim or a.dim == b.dim


def _piece_of(sentence: Sentence, q: Quantity) -> Span:
    """The piece of sentence holding q; a bare number ("adults and children aged 10 and over, 1.2 g; …") with
    the item of the list it ends, back to the semicolon or colon before it, or with its label ("Children: 5 mg")."""
    pieces = sentence.pieces
    piece = next((p for p in pieces if q in p.quantities), pieces[0])
    if piece.words:
        return _under_label(sentence, piece)
    start = max(sentence.text.rfind(";", 0, piece.start), sentence.text.rfind(":", 0, piece.start)) + 1
    item = [p for p in pieces if start <= p.start <= piece.start]
    if item == [piece] and start and sentence.text[start - 1] == ":":  # the number right after its label
        item = [p for p in pieces if p.end < start][-1:] + item
    elif ";" not in sentence.text:
        return piece
    words = frozenset().union(*(p.words for p in item))
    return Span(sentence.text[item[0].start : piece.end], item[0].start, piece.end, piece.quantities, words)


_LABEL_WORDS = 8  # a label ends its sentence's first words with a colon ("Major trauma with haemorrhage:")


def _under_label(sentence: Sentence, piece: Span) -> Span:
    """``piece`` with the words of the label that opens its sentence ("Oesophageal candidiasis: fluconazole …
    for 14–21 days"): what the label names is what the piece's numbers are for."""
    text = sentence.text
    colon = text.rfind(":", 0, piece.start)
    if colon < 0 or ";" in text:  # a list's items each have their own ("adults, 500 micrograms; children, …")
        return piece
    # A short label of words: a caption ("Table 1.2: … Eastern Cape 48,512 …") does not head each row after it.
    head = text[: colon + 1]
    label = [p for p in sentence.pieces if p.end <= colon + 1 and p is not piece]
    if not label or len(head.split()) > _LABEL_WORDS or any(c.isdigit() for c in head):
        return piece
    words = piece.words.union(*(p.words for p in label))
    return Span(piece.text, piece.start, piece.end, piece.quantities, words)


def _plain(words: frozenset[str]) -> frozenset[str]:
    return words - _DIRECTION_WORDS


def _anchors(words: frozenset[str]) -> frozenset[str]:
    return words - _NOT_ANCHORS


def _anchor_conflict(
    q: Quantity, clause: Span, sentences: Sequence[Sentence], claimed: Sequence[Quantity] = ()
) -> tuple[Quantity, Span] | None:
    """An excerpt number of q's kind attached more closely to what the claim talks about than any match is:
    its own piece of sentence counts most, its sentence half as much, a comparator like the claim's one more."""
    want = _anchors(clause.words)
    scored = []
    for s in sentences:
        for e in s.quantities:
            # Rivals are numbers of the very same kind: "under 80" (an age) does not compete with 140/90 mmHg.
            if q.matches(e) or e.dim == q.dim:
                piece = _piece_of(s, e)
                score = len(want & _anchors(piece.words)) + len(want & _anchors(s.words)) / 2
                scored.append((score + (1 if q.cmp and e.cmp == q.cmp else 0), e, piece))
    matches = [(n, e, p) for n, e, p in scored if q.matches(e)]
    # A rival the claim gives itself elsewhere ("within a day and not beyond 72 hours") is not one it mistook.
    others = [(n, e, p) for n, e, p in scored if not q.matches(e) and not any(c.matches(e) for c in claimed)]
    if not matches or not others:
        return None
    best_match, m, m_piece = max(matches, key=lambda x: x[0])
    contrasted = _contrasted(want, m_piece, others)
    if contrasted is not None:
        return contrasted
    # A rival in the row of the claim's grade, the match in another's ("48 hours before a high-risk one").
    graded = next(((e, p) for _, e, p in others if _graded(clause, p, m_piece)), None)
    if graded is not None:
        return graded
    n, e, piece = max(others, key=lambda x: x[0])
    if n <= best_match:
        return None
    # Only on evidence that the match is about something else: words of its own ("review the dose below 45"),
    # a rival piece that shares clearly more with the claim, or the claim's comparator where the match has none.
    if (
        _borne_out(m_piece.quantities, piece.quantities, claimed)
        or _own_words(want, m, e, sentences)
        or _graded(clause, m_piece, piece)
        or _stepped(want, m_piece, piece)
    ):
        return None
    own = _anchors(m_piece.words) - clause.words
    closer = len(want & _anchors(piece.words)) >= len(want & _anchors(m_piece.words)) + MIN_SHARED
    return (e, piece) if own or closer or (q.cmp and not m.cmp and e.cmp == q.cmp) else None


# Words that tell apart the steps of one course, each excluding the others: "the first dose … at 12 months, the
# second at 3 years" gives the second dose no 12 months; "review if below 45; stop if below 30" gives stopping
# no 45.
_CONTRASTS = tuple(
    frozenset(w for word in group.split() for w in judge_words(word))
    for group in (
        "first second third fourth fifth final last",
        "stop review reduce start continue increase withhold refer repeat",
    )
)


# Grades that tell apart the rows of one rule ("24 hours before a low-bleeding-risk procedure, 48 hours before a
# high-bleeding-risk one"): direction words elsewhere, so not anchors, but a row's name here.
_GRADES = tuple(
    frozenset(w for word in group.split() for w in judge_words(word))
    for group in ("low high", "mild moderate severe", "minor major")
)


def _graded(clause: Span, match: Span, rival: Span) -> bool:
    """The match's piece has the claim's grade and the rival's another of the same scale."""
    return any(
        word in match.words and word not in rival.words and rival.words & group
        for group in _GRADES
        for word in clause.words & group
    )


def _contrasted(
    want: frozenset[str], match: Span, rivals: list[tuple[float, Quantity, Span]]
) -> tuple[Quantity, Span] | None:
    """A rival number whose piece has a step word of the claim that the match's piece has not, where the
    match's piece names another step of the same kind instead."""
    for group in _CONTRASTS:
        for word in want & group:
            if word in match.words or not (match.words & group):
                continue
            for _n, e, piece in rivals:
                if word in piece.words:
                    return e, piece
    return None


def _stepped(want: frozenset[str], match: Span, rival: Span) -> bool:
    """The match's piece names the claim's step ("the second and third trimesters" for "the third"), the
    rival's another one only ("the first trimester"): the match is the number meant."""
    for group in _CONTRASTS:
        mine = want & group
        if mine and mine <= match.words and rival.words & group and not mine & rival.words:
            return True
    return False


# Words of the claim that only one sentence says, for that sentence's number to be the one meant.
_OWN_WORDS = 3


def _says_more(want: frozenset[str], sentence: Sentence, other: Sentence) -> bool:
    """``sentence`` says enough of the claim's words (``want``) that ``other`` does not (its people, its
    condition) for its number to be the one the claim means."""
    said, theirs = want & _anchors(sentence.words), want & _anchors(other.words)
    # Two words of its own do, where it says twice as much of the claim ("urgent … admission" of a score's row).
    own = len(said - other.words)
    return own >= _OWN_WORDS or (own >= 2 and len(said) >= 2 * len(theirs))


def _own_words(want: frozenset[str], match: Quantity, rival: Quantity, sentences: Sequence[Sentence]) -> bool:
    """The match's sentence says more of the claim than the rival's (``_says_more``): the match is the number
    meant, whatever the rival's piece shares with the claim."""
    home = next((s for s in sentences if match in s.quantities), None)
    other = next((s for s in sentences if rival in s.quantities), None)
    return home is not None and other is not None and home is not other and _says_more(want, home, other)


def _said_of_others(
    q: Quantity, clause: Span, sentences: Sequence[Sentence], claimed: Sequence[Quantity]
) -> tuple[Quantity, Span] | None:
    """The claim's number is one sentence's, its people or condition another's, which gives them a number of
    its own: "patients at risk of hypercapnic failure: 94–98%" of "In acutely ill patients, aim for 94–98%. In
    patients at risk of hypercapnic respiratory failure, aim for 88–92%"."""
    want = _anchors(clause.words)
    home = [s for s in sentences if any(map(q.matches, s.quantities))]
    if len(home) != 1:
        return None
    # A limit the claim gives as the excerpt does ("up to 300 mg in a day", "Max. 300 mg in 24 hours") is not
    # a dose the next sentence gives plainly ("Sumatriptan 50 mg …"): the two say different things.
    bound = bool(q.cmp) and any(e.cmp == q.cmp for e in home[0].quantities if q.matches(e))
    for s in sentences:
        rivals = [e for e in s.quantities if e.dim == q.dim and not q.matches(e)]
        rivals = [e for e in rivals if not any(c.matches(e) for c in claimed)]
        rivals = [e for e in rivals if not bound or e.cmp == q.cmp]
        if s is home[0] or not rivals or any(map(q.matches, s.quantities)):
            continue
        # The claim's other numbers where the match is, and not here, put it with the match ("300 mg in a day"
        # of "Max. 300 mg in 24 hours").
        if _borne_out(home[0].quantities, s.quantities, claimed):
            continue
        if _says_more(want, s, home[0]):
            return rivals[0], _piece_of(s, rivals[0])
    return None


def _borne_out(match: Sequence[Quantity], rival: Sequence[Quantity], claimed: Sequence[Quantity]) -> bool:
    """Another of the claim's numbers is among the match's (its piece's or sentence's) and not the rival's: the
    claim's numbers go together where the match is ("aged 50 to 64 … every five years" of "… every 3 years to
    people aged 25 to 49, and every 5 years to those aged 50 to 64"), whatever words the rival shares with it."""
    return any(any(map(c.matches, match)) and not any(map(c.matches, rival)) for c in claimed)


def _between(chosen: Sequence[Quantity], claim: Sequence[Quantity], sentence: Sentence) -> Quantity | None:
    """A number lying between the matched ones that belongs to one of the claim's kinds but to no claim value."""
    lo, hi = min(e.start for e in chosen), max(e.end for e in chosen)
    for e in sentence.quantities:
        if e in chosen or not lo < e.start < hi:
            continue
        if any(q.dim and q.dim == e.dim for q in claim) and not any(q.matches(e) for q in claim):
            return e
    return None


def _numbers_in(clause: Span, sentence: Sentence) -> str | None:
    """None when the clause's numbers are all in ``sentence``, attached right; else what is wrong."""
    options = []
    for q in clause.quantities:
        found = [e for e in sentence.quantities if q.matches(e)]
        # A number with a unit is a bare number's only where the sentence gives none in that unit ("under 1%"
        # is not the score "0 or 1" of "… 0 or 1 (mortality less than 3%)").
        if q.dim and any(e.dim == q.dim for e in sentence.quantities):
            found = [e for e in found if e.dim]
        if not found:
            return _says(q, _closest(q, clause, sentence))
        options.append(found)
    if len(clause.quantities) < 2:
        return None
    apart = _apart(clause, options, sentence)
    if apart is not None:
        return f"claim puts {apart[0].text} with {apart[1].text}; the excerpt does not"
    intruder = None
    for chosen in itertools.islice(itertools.product(*options), MAX_ASSIGNMENTS):
        intruder = _between(chosen, clause.quantities, sentence)
        if intruder is None:
            return None
    assert intruder is not None
    kin = next(q for q in clause.quantities if q.dim == intruder.dim)
    return f"claim says {kin.text} with {_others(clause, kin)}; the excerpt gives {intruder.text} there"


def _apart(
    clause: Span, options: Sequence[Sequence[Quantity]], sentence: Sentence
) -> tuple[Quantity, Quantity] | None:
    """Two numbers of different kinds the claim joins ("100 mg … for 3 to 6 months") that the excerpt only
    ever gives in different clauses. Numbers of a kind the claim has twice (200 mg, then 100 mg) are a list,
    and may be apart."""
    where = [{c for c in sentence.clauses for e in found if e in c.quantities} for found in options]
    qs = clause.quantities
    # A strength ("5% cream") names the product, and goes with whatever is said of it.
    single = [
        i for i, q in enumerate(qs) if q.dim not in ("", "percent") and [o.dim for o in qs].count(q.dim) == 1
    ]
    for i, j in itertools.combinations(single, 2):
        if not where[i] & where[j]:
            return qs[i], qs[j]
    return None


def _others(clause: Span, q: Quantity) -> str:
    return ", ".join(o.text for o in clause.quantities if o is not q)


def _closest(q: Quantity, clause: Span, sentence: Sentence) -> Quantity | None:
    rivals = [e for e in sentence.quantities if _compatible(q, e) and (not q.dim or e.dim)]

    def score(e: Quantity) -> int:
        same = (1 if q.cmp and e.cmp == q.cmp else 0) + (1 if e.dim == q.dim else 0)  # a bare 2 for a bare 2
        return len(clause.words & _piece_of(sentence, e).words) + same

    return max(rivals, key=score, default=None)


def _says(q: Quantity, e: Quantity | None, where: str = "") -> str:
    if e is None:
        return f"claim says {q.text}; the excerpt does not give {q.text}"
    return f"claim says {q.text}, excerpt says {e.text}" + (f" for {_quote(where)}" if where else "")


def _check_numbers(
    clauses: Sequence[Span], pieces: Sequence[Span], sentences: Sequence[Sentence]
) -> str | None:
    claimed = [q for clause in clauses for q in clause.quantities]
    for clause in clauses:
        if not clause.quantities:
            continue
        for q in clause.quantities:
            cap = _tighter_cap(q, sentences)
            if cap is not None:
                return _says(q, cap)
            # With one number of its kind in the clause, what it is attached to can be told apart.
            if sum(o.dim == q.dim for o in clause.quantities) == 1:
                others = [c for c in claimed if c is not q]
                rival = _anchor_conflict(q, clause, sentences, others) or _said_of_others(
                    q, clause, sentences, others
                )
                if rival is not None:
                    return _says(q, rival[0], rival[1].text)
        # A strength the excerpt gives anywhere ("clotrimazole 1% cream") names the product: it need not
        # stand in the sentence that gives the dose.
        strengths = [
            q
            for q in clause.quantities
            if _strength_given(q, sentences)
            or _any_age(q, clause, sentences)
            or _each_dose(q, clause, sentences)
        ]
        groups = [_without(g, strengths) for g in _groups(clause, pieces)]
        groups = [g for g in groups if g.quantities]
        # The sentences most about this clause first: their complaint is the one worth reporting.
        ranked = sorted(sentences, key=lambda s: len(clause.words & s.words), reverse=True)
        needed = [q for q in clause.quantities if q not in strengths]
        whole = [s for s in ranked if all(any(q.matches(e) for e in s.quantities) for q in needed)]
        if whole:  # one sentence has every number: they must be attached there as the claim attaches them
            problems = [next((p for p in (_numbers_in(g, s) for g in groups) if p), None) for s in whole]
            if all(problems):
                return problems[0]
            continue
        # A claim that joins sentences ("180 mg for 2 to 4 years, repeated every 4 to 6 hours"): each group of
        # numbers it attaches to one another comes from one sentence.
        for group in groups:
            problems = [_numbers_in(group, s) for s in ranked]
            if all(problems):
                return problems[0]
    return None


# A maximum as such: "no more than", "a maximum of", "do not exceed" (not "within" or "up to", which also
# bound a time the advice falls in).
_MAXIMUM = re.compile(r"\b(?:no more than|not more than|maximum|max|at most|not exceeding|do not exceed)\b")


def _tighter_cap(q: Quantity, sentences: Sequence[Sentence]) -> Quantity | None:
    """A most-times-a-day the excerpt sets below the claim's ("up to six times a day" against "every 4 to 6
    hours, but no more than 3 times a day"): the claim allows what the excerpt forbids, whatever range it gives
    elsewhere. ("4 doses in 24 hours" is not read as times a day: read so, it cost held-back pairs.)"""
    if q.dim != "per-day" or q.cmp != "down" or q.low != q.high:
        return None
    caps = (e for s in sentences for e in s.quantities if e.dim == q.dim and e.cmp == "down")
    return next((e for e in caps if e.low == e.high and e.high < q.high and _MAXIMUM.search(e.text)), None)


def _strength_given(q: Quantity, sentences: Sequence[Sentence]) -> bool:
    """A strength as written ("1% cream"): a percentage with no comparator, given as such in the excerpt."""
    return (
        q.dim == "percent"
        and q.cmp is None
        and any(
            e.dim == "percent" and e.cmp is None and q.matches(e) for s in sentences for e in s.quantities
        )
    )


_OLD_AFTER = re.compile(r"\s*-?\s*old\b")
_AGED_BEFORE = re.compile(r"\b(?:aged|age)\s*$")


def _any_age(q: Quantity, clause: Span, sentences: Sequence[Sentence]) -> bool:
    at, end = q.start - clause.start, q.end - clause.start
    age = _OLD_AFTER.match(clause.text, end) or _AGED_BEFORE.search(clause.text, 0, max(at, 0))
    return bool(age) and any(ANY_AGE.search(s.text) for s in sentences)


# How often a dose is given ("every 6 hours", "four times a day", "bd"), not a day's total ("4 g a day").
_HOW_OFTEN = re.compile(r"\b(?:every|times|twice|once|hourly|bd|bid|tds|tid|qds|qid|q\d+h)\b")


def _each_dose(q: Quantity, clause: Span, sentences: Sequence[Sentence]) -> bool:
    """ "500 mg to 1 g per dose" where the excerpt gives the amount with how often, and never as a day's total
    ("maximum 4 g per day" is no 4 g dose): each amount is a dose's."""
    if q.dim != "per-dose":
        return False
    amounts = [c for c in clause.quantities if c.dim.split("/")[0] in _DOSES]
    for s in sentences:
        for e, after in itertools.zip_longest(s.quantities, s.quantities[1:]):
            daily = after is not None and after.dim == "per-day" and not _HOW_OFTEN.search(after.text)
            if daily and after.start - e.end <= 2 and any(c.matches(e) for c in amounts):
                return False
    return any(e.dim == "per-day" and _HOW_OFTEN.search(e.text) for s in sentences for e in s.quantities)


def _without(span: Span, quantities: Sequence[Quantity]) -> Span:
    return dataclasses.replace(span, quantities=tuple(q for q in span.quantities if q not in quantities))


def _check_numbers_read_on(
    clauses: Sequence[Span], pieces: Sequence[Span], sentences: Sequence[Sentence]
) -> str | None:
    """The numbers checked sentence by sentence, and failing that with each sentence that goes on about the
    one before read with it."""
    reason = _check_numbers(clauses, pieces, sentences)
    joined = _with_sequels(sentences)
    if reason is None or len(joined) == len(sentences):
        return reason
    return reason if _check_numbers(clauses, pieces, joined) else None


# A piece opening like this ("For children aged 3 to 6 months, give …") belongs with the piece after it.
_INTRO = re.compile(r"^(?:for|in|if|when|after|before|during|from|at|aged|with|once|until)\b")


def _groups(clause: Span, pieces: Sequence[Span]) -> list[Span]:
    """The clause's pieces, each introductory piece joined to the one it introduces."""
    inside = [p for p in pieces if clause.start <= p.start < clause.end] or [clause]
    out: list[Span] = []
    joined = False  # the last group already has the piece its introduction introduces
    for p in inside:
        if out and not joined and _INTRO.match(out[-1].text) and not out[-1].text.endswith(":"):
            a = out.pop()
            p = Span(f"{a.text}, {p.text}", a.start, p.end, a.quantities + p.quantities, a.words | p.words)
            joined = True
        else:
            joined = False
        out.append(p)
    return out


@dataclass(frozen=True)
class Direction:
    axis: str
    sign: int
    word: str
    head: str  # what goes up or down, or what comes before or after
    before: frozenset[str]  # the words of its piece before it, and after it
    after: frozenset[str]
    than: bool = False  # "more … than": a comparison, whose two sides may be given either way round


_HABITS = frozenset({"smoking", "drinking", "vaping"})
# Verbs of weighing or giving a treatment are not what comes before or after: "a topical NSAID before
# considering an oral one" orders the two NSAIDs.
_FRAMING = frozenset(
    "considering trying using giving offering prescribing starting attempting performing undergoing having "
    "doing".split()
)  # "before attempting reduction" orders the reduction


def _directions(span: Span) -> list[Direction]:
    """The direction words of ``span`` outside its quantities, each with what it is about."""
    tokens = _WORD.findall(_blank(span.text, span.quantities, span.start))
    # "Stop smoking" is giving up a habit, not stopping a treatment.
    kinds = [
        None if nxt in _HABITS else _DIRECTIONS.get(stem(t))
        for t, nxt in itertools.zip_longest(tokens, tokens[1:], fillvalue="")
    ]
    heads = [
        None if k or t in _FRAMING else next(iter(sorted(judge_words(t))), None)
        for t, k in zip(tokens, kinds, strict=True)
    ]
    out = []
    for i, kind in enumerate(kinds):
        if kind is None:
            continue
        # What goes up or down: the next word that means something, else (it "rises") the one before.
        after = [h for h in heads[i + 1 :] if h]
        before = [h for h in heads[:i] if h]
        head = after[0] if after else (before[-1] if before else None)
        if head:
            than = "than" in tokens[i + 1 :]
            out.append(
                Direction(kind[0], kind[1], tokens[i], head, frozenset(before), frozenset(after), than)
            )
    return out


def _converse(claim: Direction, said: Direction) -> bool:
    """ "B causes more bleeding than A" said as "A causes less bleeding than B": each side on the other's."""
    if not (claim.than and said.than):
        return False
    return bool((claim.before - said.before) & said.after and (said.before - claim.before) & claim.after)


def _opposed(claim: Direction, said: Direction) -> bool:
    """Opposite directions, or the same word with its two sides swapped ("glucose before thiamine")."""
    if claim.axis == "amount" and _converse(claim, said):
        return claim.sign == said.sign
    if claim.sign != said.sign:
        return True
    # Only for what orders two things: "X rises with Y" is "Y raises X", not a swap. Nor is the same thing
    # after the word ("the birth dose … soon after birth" in both).
    return (
        claim.axis == "time"
        and claim.head != said.head
        and bool(claim.after and said.after)
        and claim.head in said.before
        and said.head in claim.before
    )


def _rejected(said: Span, claim: Span) -> bool:
    return said.text.startswith(_REJECTING) and not _polarity(claim)


# A level in the blood is one in the serum or plasma ("lower blood calcium", "raise serum calcium").
_BLOOD = frozenset({"blood", "serum", "plasma"})


def _same_head(a: str, b: str) -> bool:
    return a == b or (a in _BLOOD and b in _BLOOD)


def _check_directions(pieces: Sequence[Span], sentences: Sequence[Sentence]) -> str | None:
    excerpt = [(p, s, d) for s in sentences for p in s.pieces for d in _directions(p)]
    for piece in pieces:
        want = _plain(piece.words)
        for mine in _directions(piece):
            # The excerpt's direction words about the same thing, scored by how much else they share.
            found = [
                (len(want & _plain(p.words)) + len(want & _plain(s.words)) / 2, d, p)
                for p, s, d in excerpt
                if d.axis == mine.axis and any(_same_head(mine.head, w) for w in p.words)
            ]
            # One about the very same thing ("potassium is low" for "potassium is high") outranks its neighbours.
            found = [f for f in found if _same_head(f[1].head, mine.head)] or found
            if not found:
                continue
            best = max(n for n, _, _ in found)
            top = [(d, p) for n, d, p in found if n == best]
            # The alternative "rather than" rejects ("before incision, not after clamping") says the opposite.
            if best >= MIN_SHARED and all(_opposed(mine, d) != _rejected(p, piece) for d, p in top):
                d, p = top[0]
                if _rejected(p, piece):
                    return f"claim says {mine.word}; the excerpt rejects it: {_quote(p.text)}"
                if mine.sign == d.sign:  # the same word, its two sides swapped
                    return (
                        f"claim puts the two sides of “{mine.word}” the other way round from {_quote(p.text)}"
                    )
                return f"claim says {mine.word}, excerpt says {d.word} for {_quote(p.text)}"
    return None


# "… gradually to avoid adrenal crisis" says what the advice is for (to prevent it), not what not to do; but
# "advise them to avoid waxing" is advice not to.
# "To avoid" gives a purpose ("taper it to avoid adrenal crisis"), except after a verb of need ("do not need to
# avoid grapefruit": what is needed is the avoiding).
_PURPOSE = re.compile(
    r"(?<!\bneed )(?<!\bneeds )(?<!\bhave )(?<!\bhas )\b(?:to|so as to|in order to)\s+avoid\b"
)
_TOLD = re.compile(
    r"\b(?:advise|advised|tell|told|ask|asked|encourage|instruct|remind|counsel|warn|inform|informed)\b"
)


def _negatable(span: Span) -> str:
    """The span's text with its numbers blanked and "n't" as "not": where its negations are read."""
    text = _blank(span.text, span.quantities, span.start).replace("n't", " not")
    return _UNCONTROLLED.sub("not controlled", _NOT_A_NEGATION.sub(" ", text))


# People named by what they are not ("non-pregnant women", "women (not pregnant)"): a group, which the
# population check reads, not a denial of the advice.
_NOT_A_NEGATION = re.compile(r"\b(?:non-?pregnant|not pregnant)\b")
# An uncontrolled condition is one "not controlled" ("asthma that is not controlled on low-dose ICS"), as
# "controlled" is not.
_UNCONTROLLED = re.compile(r"\buncontrolled\b")


def _polarity(span: Span) -> int:
    text = _negatable(span)
    if not _TOLD.search(text):
        text = _PURPOSE.sub("to prevent", text)
    return len(_NEGATION.findall(text)) % 2


def _labelled(sentence: Sentence) -> list[Span]:
    """The sentence's pieces, a label ("Paracetamol 500 mg tablets: do not take more than 8") lending its words
    to the statement it heads: what is said under a label is said of it. The polarity stays the statement's
    ("if doxycycline is contraindicated: azithromycin 1 g" does not negate azithromycin)."""
    out: list[Span] = []
    for p in sentence.pieces:
        # A statement before the colon ("Codeine is not recommended …: some mothers are …") is no label.
        if out and sentence.text[out[-1].end : p.start].strip() == ":" and not _VERB.search(out[-1].text):
            p = Span(p.text, p.start, p.end, p.quantities, out[-1].words | p.words)
        out.append(p)
    return out


# A piece that starts with one of these is what a list before it is said to be; an item has none of these.
_AUXILIARIES = "is|are|was|were|should|must|may|can|cannot|do|does"
_PREDICATE = re.compile(rf"^(?:{_AUXILIARIES})\b")
_VERB = re.compile(rf"\b(?:{_AUXILIARIES}|be|been|will|has|have)\b")
_ITEM_WORDS = 3  # a piece this short with no verb of its own is an item of a list


def _listed(pieces: list[Span], text: str, predicates: bool = True) -> list[Span]:
    """Items of a list said of together ("Live vaccines, including MMR, varicella and yellow fever, are
    contraindicated in pregnancy") each read with the predicate that follows them, so an item's polarity is
    the list's. An item with its own negation keeps it ("red flags: no urine output, mottled skin")."""
    out = list(pieces)
    run: list[int] = []
    lead = None  # a negated statement that opens a list ("… are contraindicated in heart disease, …")
    for i, p in enumerate(pieces):
        if predicates and _PREDICATE.match(p.text) and run:
            for j in run:
                item = pieces[j]
                out[j] = Span(f"{item.text} {p.text}", item.start, item.end, (), item.words)
        short = len(p.words) <= _ITEM_WORDS and not _NEGATION.search(p.text) and not _VERB.search(p.text)
        if short and lead is not None and _LIST_SEPARATOR.fullmatch(text[pieces[i - 1].end : p.start]):
            out[i] = Span(f"{lead.group(1)} {p.text}", p.start, p.end, (), p.words)  # said of as the first
        elif not short:
            lead = _list_lead(p)
        run = [*run, i] if short else []
    return out


def _list_lead(p: Span) -> re.Match[str] | None:
    """``p`` opens a list its negation is said of ("… are contraindicated in heart disease"): the negation
    in its predicate, a few words before the list, not in its subject ("women without immunity … should be
    assessed for immunoglobulin")."""
    m = _LEADS_LIST.match(p.text) if _polarity(p) and _VERB.search(p.text) else None
    if m is None:
        return None
    cues = list(_NEGATION.finditer(m.group(1)))
    return m if cues and len(m.group(1)[cues[-1].end() :].split()) <= _LEAD_WORDS else None


_LEAD_WORDS = 4  # words at most between a list's negation and its first item ("are not recommended for")
_LIST_SEPARATOR = re.compile(r"\s*(?:,|,?\s+(?:and|or))\s*")  # "A, B and C": not "because", "if", ";"
_LEADS_LIST = re.compile(
    r"^(?!(?:if|unless|when)\b)(.*\b(?:in|with|for|including|such as))\s+[\w-]+(?:\s+[\w-]+){0,2}\W*$"
)


def _nearest_pieces(piece: Span, excerpt: Sequence[Span]) -> list[Span]:
    """The excerpt's pieces that share the most with ``piece``, if they share enough for its negation to
    matter."""
    scored = [(len(piece.words & c.words), c) for c in excerpt]
    best = max((n for n, _ in scored), default=0)
    if not piece.words or best < max(MIN_SHARED, len(piece.words) / 2):
        return []
    return [c for n, c in scored if n == best]


def _statements(sentences: Sequence[Sentence]) -> list[Span]:
    """The excerpt's pieces as what they state: a label's words lent to what it heads, a list's items read with
    the predicate they share. Pieces, not whole clauses: "no urine output" in a list of red flags does not
    negate the list."""
    return [c for s in sentences for c in _listed(_labelled(s), s.text)]


def _check_negation(pieces: Sequence[Span], excerpt: Sequence[Span]) -> str | None:
    # Each claim piece read against one excerpt piece: of those closest to it, one it agrees with if any.
    matched = []
    for piece in pieces:
        top = _nearest_pieces(piece, excerpt)
        matched.append(next((c for c in top if _polarity(c) == _polarity(piece)), top[0]) if top else None)
    for piece, c in zip(pieces, matched, strict=True):
        if c is None:
            continue
        # Read with the claim's other pieces matched to the same excerpt piece: "in patients without ACS,
        # consider transfusion" puts in two pieces what "consider transfusion in patients without ACS" says in one.
        joined = [p for p, m in zip(pieces, matched, strict=True) if m is c]
        if sum(map(_polarity, joined)) % 2 == _polarity(c) or _restated(joined, c):
            continue
        if _polarity(c) and (_denied_elsewhere(joined, c, pieces) or _denied_in_condition(joined, c)):
            continue
        return f"claim {'negates' if _polarity(piece) else 'drops the negation of'} {_quote(c.text)}"
    return None


def _restated(joined: Sequence[Span], c: Span) -> bool:
    """Whether the claim's pieces each deny, as the excerpt piece does, and one says it closer than any other:
    two denials are two statements, not a double negative ("do not delay surgery to obtain imaging; … it will
    not delay surgery")."""
    if len(joined) < 2 or not _polarity(c) or not all(map(_polarity, joined)):
        return False
    shared = sorted(len(p.words & c.words) for p in joined)
    return shared[-1] > shared[-2]


def _denied_elsewhere(joined: Sequence[Span], c: Span, pieces: Sequence[Span]) -> bool:
    """Whether pieces without a negation, matched to a negated excerpt piece, are only a part of it ("hysterotomy
    (caesarean section)" of "… must be performed if resuscitation is not successful") whose denial the claim
    says in another piece of its own: they hold none of the words denied, and the claim denies them."""
    denied = _negated_words(c)
    if set().union(*(p.words for p in joined)) & denied:
        return False
    return any(_negated_words(p) & denied for p in pieces if _polarity(p))


# A clause that sets the condition of a statement ("… by subcutaneous injection when laxatives have not worked").
_CONDITION_LEAD = re.compile(r"\b(?:when|if|once|after|until|because|since|where)\b")


def _denied_in_condition(joined: Sequence[Span], c: Span) -> bool:
    """Whether the excerpt piece's only negation is in a condition the claim does not restate: the claim
    leaves the condition out (another check's business), it does not deny the statement."""
    text = _negatable(c)
    cues = list(_NEGATION.finditer(text))
    lead = _CONDITION_LEAD.search(text)
    if len(cues) != 1 or lead is None or lead.start() == 0 or lead.end() > cues[0].start():
        return False
    return not set().union(*(p.words for p in joined)) & set(judge_words(text[lead.end() :]))


def _negated_words(c: Span) -> set[str]:
    """The words a piece's negation is said of: those after it and not before ("is not encouraged",
    "contraindicated in pregnancy", "in calculating % burn, do not include 1st degree burns"), or, when none
    are, all of the piece's."""
    text = _negatable(c)
    m = _NEGATION.search(text)
    if m is None:
        return set(c.words)
    after = set(judge_words(text[m.end() :]))
    return (after - set(judge_words(text[: m.start()]))) or after or set(c.words)


# The word a "not" is said of ("did not shorten the stay", "should not drive until …"), past the verbs and
# adverbs between them.
_SAID_NOT = re.compile(
    r"\b(?:not|never|cannot)\s+(?:(?:be|been|being|to|have|has|had|usually|routinely|always|yet|the|a|an)\s+)*"
    r"([a-z]{3,})"
)

# What is said not to be needed ("do not need an EEG"): the thing, not only the need.
_NEED_NOT = re.compile(
    r"\b(?:not|never)\s+(?:need|needs|require|requires)\s+(?:to\s+(?:have|be|take|get)\s+)?"
    r"(?:an?\s+|the\s+|any\s+)?([a-z][a-z0-9]{2,})"
)


# An instruction not to do something ("Do not apply the gel to the breasts"): its words are what is not done,
# unless it goes on to say when it is ("do not give IV fluids unless the child shows signs of shock").
_TOLD_NOT = re.compile(r"^(?:do not|don't|never|avoid)\b")
_SAVE_WHEN = re.compile(r"\b(?:unless|except|other than|apart from|until)\b")


def _medicine_words(text: str) -> frozenset[str]:
    """The words (as compared) that name a medicine in ``text``."""
    names = [w for w in re.findall(r"[a-z][a-z-]+", text) if lexicon().names_medicine(w)]
    return frozenset(judge_words(" ".join(names)))


def _forbidden(sentences: Sequence[Sentence]) -> list[tuple[str, frozenset[str]]]:
    """The excerpt's instructions not to do something, each with its own words (not a heading's, nor the
    medicine it is about: "do not inject adrenaline into the buttock" forbids the buttock, not adrenaline)."""
    return [
        (p.text, frozenset(judge_words(_negatable(p))) - _medicine_words(p.text))
        for s in sentences
        for p in s.pieces
        if _polarity(p) and _TOLD_NOT.match(p.text) and not _SAVE_WHEN.search(s.text, p.start)
    ]


def _check_said_not(
    pieces: Sequence[Span], sentences: Sequence[Sentence], excerpt: Sequence[Span]
) -> str | None:
    """A claim that asserts what the excerpt only ever says is not so: "high-flow oxygen shortened the stay"
    against "… reduced escalation of care, but did not shorten the length of stay"."""
    negated: dict[str, str] = {}
    for s in sentences:
        blanked = _blank(s.text, s.quantities)
        for m in (*_SAID_NOT.finditer(blanked), *_NEED_NOT.finditer(blanked)):
            for w in judge_words(m.group(1)):
                negated.setdefault(w, m.group(0))
    told_not = _forbidden(sentences)
    if not negated and not told_not:
        return None
    asserted = {w for p in excerpt if not _polarity(p) for w in p.words}
    for piece in pieces:
        if _polarity(piece):
            continue
        # A piece that says most of what an instruction forbids, as allowed ("the gel can be applied to the
        # breasts"), says its words of what is not done.
        said = dict(negated)
        for text, words in told_not:
            if len(piece.words & words) >= max(MIN_SHARED, len(words) / 2):
                said.update({w: text for w in words if w not in said})
        # What the claim says to stop doing it says not to do ("stop driving" for "must not drive").
        stopped = {w for m in _STOP_DOING.finditer(piece.text) for w in judge_words(m.group(1))}
        for w in sorted(piece.words & said.keys() - asserted - _NOT_SAID_NOT - stopped):
            written = next((t for t in _WORD.findall(piece.text) if w in judge_words(t)), w)
            return f"claim says {written}; the excerpt says “{said[w]}”"
    return None


_STOP_DOING = re.compile(r"\b(?:stop|stops|stopped|give up|gives up|refrain from)\s+([a-z]+ing)\b")


# A form given one way only names its route ("tablets" are oral, "suppositories" rectal) where no route is named
# ("IV furosemide for someone taking a water tablet"); "injection" and "gel" do not (an injection is IV, IM or
# SC; a gel may be oral).
_FORMS = {
    "tablet": "oral", "tablets": "oral", "capsule": "oral", "capsules": "oral",
    "suppository": "rectal", "suppositories": "rectal", "patch": "transdermal", "patches": "transdermal",
    "cream": "topical", "creams": "topical", "ointment": "topical", "ointments": "topical",
}  # fmt: skip
# How a drug is given, each spelling to one name. Abbreviations only where they are not also common words.
_ROUTE_NAMES = {
    **_FORMS,
    "oral": "oral", "orally": "oral", "by mouth": "oral", "po": "oral",
    "intravenous": "intravenous", "intravenously": "intravenous", "iv": "intravenous",
    "intramuscular": "intramuscular", "intramuscularly": "intramuscular", "im": "intramuscular",
    "subcutaneous": "subcutaneous", "subcutaneously": "subcutaneous", "subcut": "subcutaneous",
    "topical": "topical", "topically": "topical",
    "inhaled": "inhaled", "nebulised": "inhaled", "nebulized": "inhaled", "inhaler": "inhaled",
    "rectal": "rectal", "rectally": "rectal",
    "sublingual": "sublingual", "sublingually": "sublingual",
    "transdermal": "transdermal",
}  # fmt: skip
_ROUTE = re.compile(r"\b(?:" + "|".join(sorted(_ROUTE_NAMES, key=len, reverse=True)) + r")\b")
_ROUTE_WORDS = frozenset(w for name in _ROUTE_NAMES for w in judge_words(name))


# A route word before one of these names a product or a device, not how it is given ("the IV preparation
# given orally", "4–5 mg/kg IM when IV access is not possible").
_PRODUCT = re.compile(
    r"\s+(?:preparation|formulation|solution|product|form|access|line|cannula|catheter)s?\b"
)
_DOSES = DOSE_KINDS | {"tablets"}


def _routes(text: str) -> dict[str, str]:
    """The routes ``text`` names: name -> the spelling used."""
    found = [m.group() for m in _ROUTE.finditer(text) if not _PRODUCT.match(text, m.end())]
    named = [w for w in found if w not in _FORMS]
    return {_ROUTE_NAMES[w]: w for w in named or found}


def _dose_given_otherwise(piece: Span, name: str, spelled: str, sentences: Sequence[Sentence]) -> str | None:
    """The claim's dose, where the excerpt gives it, always by another route than the claim's."""
    for q in piece.quantities:
        if q.dim.split("/")[0] not in _DOSES:
            continue
        found = [
            (p, _routes(p.text)) for s in sentences for p in s.pieces if any(map(q.matches, p.quantities))
        ]
        if found and all(r and name not in r for _, r in found):
            p, r = found[0]
            return f"claim gives {q.text} {spelled}; the excerpt gives it {next(iter(r.values()))}: {_quote(p.text)}"
    return None


def _check_route(pieces: Sequence[Span], sentences: Sequence[Sentence]) -> str | None:
    """A route the excerpt never names, where the piece most about the same drug names another one."""
    said = {name for s in sentences for name in _routes(s.text)}
    excerpt = [(p, s, _routes(p.text)) for s in sentences for p in s.pieces]
    for piece in pieces:
        want = _plain(piece.words) - _ROUTE_WORDS
        for name, spelled in _routes(piece.text).items():
            if name in said:
                # Named somewhere: which drug it goes with is the judge's call, unless the claim's dose is.
                other = _dose_given_otherwise(piece, name, spelled, sentences)
                if other:
                    return other
                continue
            # Scored as for directions: its own piece counts most, its sentence half as much.
            scored = [(len(want & p.words) + len(want & s.words) / 2, p, r) for p, s, r in excerpt if r]
            best = max((n for n, _, _ in scored), default=0)
            if best >= MIN_SHARED:
                _, p, r = next(x for x in scored if x[0] == best)
                return f"claim says {spelled}, excerpt says {next(iter(r.values()))} for {_quote(p.text)}"
    return None


_GOES = re.compile(r"\b(?:go|goes|going|went|gone)\s+(up|down)\b")
# "Falls into the high-risk group" belongs to it: no fall.
_BELONGS = re.compile(r"\b(?:falls?|fell|falling)\s+(?=(?:into|within|under|in)\s+(?:the|a|an)\b)")
_A_SPAN_LONG = re.compile(r"\b(for|within|over|after|lasting|than|about|around|least)\s+a\s+(day|week)\b")
# "Has not gone away" is "persists": no negation of the advice it conditions.
_PERSISTS = re.compile(
    r"\b(?:(?:has|have|had)\s+not\s+gone|(?:won't|will not|doesn't|does not|didn't|did not)\s+go)\s+away\b"
)


# What follows "rather than" or "instead of" is what is not to be done: "before incision rather than after
# clamping" says "not after clamping". A piece of its own, read as a negation.
_REJECTING = ("rather than", "instead of", "in preference to")
_REJECTED = re.compile(rf"\s*,?\s+({'|'.join(_REJECTING)})\s+")


def _prepared(text: str) -> str:
    # "goes up" is "rises": one word, so that it has a direction.
    text = _GOES.sub(lambda m: "rises" if m.group(1) == "up" else "falls", normalize(strip_markers(text)))
    text = _BELONGS.sub("is ", _PERSISTS.sub("persists", text))
    text = _A_SPAN_LONG.sub(r"\1 1 \2", text)  # "for a day" lasts a day; "5 mg of it a day" is a rate
    text = _CONTRAST_IT.sub(r"\g<said> \g<what>\g<other> \g<what>", text)
    return _REJECTED.sub(r", \1 ", text)


# "Hypocalcaemia prolongs the QT interval, while hypercalcaemia shortens it": "it" is the QT interval, which
# the second side's direction is about.
_CONTRAST_IT = re.compile(
    r"\b(?P<said>[a-z]+s) (?P<what>the (?:[a-z]+ ){0,2}[a-z]+)(?P<other>,? (?:while|whereas) [a-z]+(?: [a-z]+)? "
    r"[a-z]+s) it\b"
)


def check_claim(claim: str, excerpt: str) -> str | None:
    """Why ``claim`` cannot be grounded in ``excerpt`` (numbers, comparators, direction, negation, route),
    or None."""
    text = _prepared(claim)
    qs = tuple(find(text))
    clauses = _spans(text, 0, qs, _CLAUSE)
    pieces = _spans(text, 0, qs, _PIECE)
    sentences = _sentences(excerpt)
    if not sentences:
        return None
    statements = _statements(sentences)
    reason = (
        _check_numbers_read_on(clauses, pieces, sentences)
        or _check_crossed(clauses, sentences)
        or _check_directions(pieces, sentences)
        or _check_sides(text, qs, sentences)
        # A claim's list is read as the excerpt's ("must not be used in women and girls"), but not its
        # predicates: a claim's short piece before one is most often an aside ("Trimethoprim, a folate
        # antagonist, should be avoided").
        or _check_negation(_listed(list(pieces), text, predicates=False), statements)
        or _check_said_not(pieces, sentences, statements)
        or _check_route(pieces, sentences)
    )
    # It quotes the claim and the excerpt: untrusted text, and as written.
    return sanitize(_as_written_in(reason, (excerpt, claim))) if reason else None


_QUOTED = re.compile(r"“([^”]+)”")


def _as_written_in(reason: str, texts: Sequence[str]) -> str:
    """``reason`` with each quote of a read sentence ("as one intramuscular injection", "m2") put back as the
    sentence was written ("as a single intramuscular injection", "m²"), so that a reader finds it."""
    raws = [r for t in texts for r in split_sentences(strip_markers(t))]
    for m in _QUOTED.finditer(reason):
        piece = m.group(1).rstrip("…").lower()
        if any(piece in r.lower() for r in raws):
            continue
        raw = next((r for r in raws if piece in as_written(_prepared(r)).lower()), None)
        if raw is not None:
            reason = reason.replace(m.group(0), f"“{clip(raw.rstrip('.'), QUOTE, flat=True)}”")
    return reason


def _holding(q: Quantity, sentences: Sequence[Sentence]) -> list[Span]:
    """The excerpt's pieces that hold a number matching q, each with its label or list item."""
    return [_piece_of(s, e) for s in sentences for e in s.quantities if q.matches(e)]


def _check_crossed(clauses: Sequence[Span], sentences: Sequence[Sentence]) -> str | None:
    """Two numbers of one kind the claim gives to two things, which the excerpt gives the other way round:
    "10 mg for children and 5 mg for adults" of "Adults: 10 mg. Children: 5 mg." (a rival the claim names
    itself is no rival to _anchor_conflict, so the swap is read here, clause against clause)."""
    single = [(c, c.quantities[0]) for c in clauses if len(c.quantities) == 1]
    for (a, qa), (b, qb) in itertools.permutations(single, 2):
        if qa.dim != qb.dim or qa.matches(qb) or qb.matches(qa):
            continue
        own_a, own_b = _anchors(a.words) - b.words, _anchors(b.words) - a.words
        if not own_a or not own_b:
            continue
        at_a = _holding(qa, sentences)
        if at_a and all(p.words & own_b and not p.words & own_a for p in at_a):
            theirs = [p for p in _holding(qb, sentences) if p.words & own_a and not p.words & own_b]
            if theirs:
                return _says(qa, qb, theirs[0].text)
    return None


# A time said before or after something ("at least 2 hours before or 4 hours after antacids").
_SIDE = re.compile(r"^\s*(?:or more\s+|at least\s+)?(before|prior to|after|post)\b")


def _side(text: str, q: Quantity) -> str | None:
    m = _SIDE.match(text[q.end :])
    return None if m is None else ("before" if m.group(1) in ("before", "prior to") else "after")


def _check_sides(text: str, qs: Sequence[Quantity], sentences: Sequence[Sentence]) -> str | None:
    """A time the claim puts before something that the excerpt puts only after it, or the reverse ("4 hours
    before or 2 hours after" for "2 hours before or 4 hours after")."""
    for q in qs:
        mine = _side(text, q)
        if mine is None:
            continue
        theirs = {_side(s.text, e): e for s in sentences for e in s.quantities if e.matches(q)}
        theirs.pop(None, None)
        if theirs and mine not in theirs:
            side, e = next(iter(theirs.items()))
            return f"claim says {q.text} {mine}, excerpt says {e.text} {side}"
    return None


def _quote(text: str) -> str:
    return f"“{clip(as_written(text.rstrip('.')), QUOTE, flat=True)}”"


def veto(claims: Sequence[str], excerpt: str) -> str | None:
    """The reason to overturn a "grounded" verdict: every claim fails a check (None when one passes)."""
    reasons = []
    for claim in claims:
        reason = check_claim(claim, excerpt)
        if reason is None:
            return None
        reasons.append(reason)
    if not reasons:
        return None
    more = f" (and {len(reasons) - 1} more claims)" if len(reasons) > 1 else ""
    return reasons[0] + more
