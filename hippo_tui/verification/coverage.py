"""Coverage: which statements of a final answer are backed by a verified source, and marking the others.

The final text is split with ``citations.sentence_spans`` (the one sentence splitter), each piece a sentence,
a list item or a line. The rule, piece by piece:

1. A closing source list is not a statement: a line naming it ("Sources:", "## References", "**Citations**",
   "Sources: [1], [2]") and the list lines after it ("[1] Title", "1. Title", "- Title").
2. A piece without words is not a statement: code (a fenced block, a line of inline code only), rules,
   table separators, markers alone. Markers alone ("[1]" on the line after a code block) back the statement
   before them, as ``claims_by_source`` gives that statement to the source.
3. A piece that cites a shown citation (``[n]`` outside code) is a backed statement, whatever its form:
   check two checked it as that source's claim.
4. Of the rest, scaffolding is not a statement: a heading (``#`` or underlined, a table's header row, a line
   of at most five bold words with no digit and no full stop) and a lead-in of at most twelve words ending
   in ":" ("Options:", "The usual choices are:"). Nor is a sentence saying the knowledge base does not cover
   something (``says_not_covered``), unless it goes on with "but …": there is no source to cite for that.
5. Everything else is an unbacked statement.

An answer abstains when it says the knowledge base does not cover the question and makes no statement.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from hippo_tui.events import Citation, Coverage
from hippo_tui.verification.markers import NUMBERED_MARKER, code_ranges, mask_code, sentence_spans

# After each unbacked statement in plain text (``ask``, ``verify``): a word, so it needs no colour, and in
# square brackets, as an editor's insertion reads.
UNBACKED_MARK = " [unverified]"

# What "the knowledge base" may be called in a sentence saying it does not cover something.
_KB = (
    r"(?:the |this |my |our |your )?(?:provided |available |given |retrieved |supplied )?"
    r"(?:knowledge[- ]base|kb|sources?|documents?|excerpts?|references?|context|information)"
)
_NOT = r"(?: not|not|n't|n’t)"
# The phrasings of "not covered", in one place: the offline answerer and the system prompt say it so.
NOT_COVERED_PHRASES: tuple[str, ...] = (
    # "The knowledge base does not cover …", "The sources I was given don't mention …"
    rf"\b{_KB}(?: (?:i|we) (?:was|were|have|had|am|are)(?: been)?(?: given| provided| shown| access to)?"
    rf"| (?:available|provided|given) to (?:me|us)| here)? (?:does|do|did|can|could){_NOT} "
    r"(?:cover|contain|include|mention|address|discuss|answer|say anything)",
    # "… is not covered by the knowledge base", "not addressed in the sources"
    rf"\bnot (?:covered|addressed|mentioned|included|discussed) (?:in|by) {_KB}\b",
    # "I could not find … in the knowledge base"
    rf"\b(?:i|we) (?:could|can|did|do){_NOT} (?:find|locate|see)\b[^.!?]{{0,160}}?\b(?:in|from|among) {_KB}\b",
    # "There is no information about … in the knowledge base"
    rf"\bthere (?:is|are|was|were) no (?:information|mention|guidance|data|sources?)\b[^.!?]{{0,160}}?"
    rf"\b(?:in|from|among) {_KB}\b",
    # "The knowledge base has nothing on …", "The sources contain no information about …"
    rf"\b{_KB} (?:has|have|contains?|includes?) (?:no|nothing)\b",
)
_NOT_COVERED = re.compile("|".join(f"(?:{p})" for p in NOT_COVERED_PHRASES))
_BUT = re.compile(r"\b(?:but|however|although|though|yet|instead)\b")


def says_not_covered(sentence: str) -> bool:
    """Whether ``sentence`` says the knowledge base (the sources) does not cover something, and only that."""
    flat = " ".join(NUMBERED_MARKER.sub("", sentence).replace("’", "'").lower().split())
    m = _NOT_COVERED.search(flat)
    return m is not None and _BUT.search(flat, m.end()) is None


# -- lines: headings and a closing source list ------------------------------------------------------

_ATX_HEADING = re.compile(r"^ {0,3}(?:>\s*)*#{1,6}(?:\s|$)")
_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
# Written so that no two adjacent parts can match the same spaces: linear on any line a model writes.
_TABLE_RULE = re.compile(r"^[ \t]*(?:\|[ \t]*)?:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*(?:\|[ \t]*)?$")
_BOLD_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(\*\*|__)([^*_\n]+)\1[ \t]*(?::[ \t]*)?$")
_LIST_LINE = re.compile(r"^\s*(?:[-*+]\s|\d{1,3}[.)]\s|\[)")
_LABEL_NOISE = re.compile(r"[\s#*_:,;.]+")
_SOURCE_LABELS = frozenset(
    {"sources", "source", "references", "reference", "citations", "citation", "bibliography"}
    | {"sources used", "sources cited", "references cited"}
)
HEADING, SOURCE_LIST = "heading", "source list"


def _names_source_list(line: str) -> bool:
    """A line that opens the source list: 'Sources:', '## References', '**Citations**', 'Sources: [1], [2]'."""
    return _LABEL_NOISE.sub(" ", NUMBERED_MARKER.sub("", line)).strip().lower() in _SOURCE_LABELS


def _short_bold(line: str) -> bool:
    m = _BOLD_LINE.match(line)
    if m is None:
        return False
    words = m.group(2)
    return len(words.split()) <= 5 and not re.search(r"[\d.!?]", words)


def _line_kinds(text: str) -> tuple[list[int], list[str | None]]:
    """The start of every line, and what each line is: a heading, part of the source list, or None."""
    lines = text.split("\n")
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    kinds: list[str | None] = [None] * len(lines)
    in_list = False
    for i, line in enumerate(lines):
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if _names_source_list(line):
            in_list, kinds[i] = True, SOURCE_LIST
        elif in_list and (not line.strip() or _LIST_LINE.match(line)):
            kinds[i] = SOURCE_LIST
        else:
            in_list = False
            heading = _ATX_HEADING.match(line) or _short_bold(line)
            underlined = line.strip() and not _LIST_LINE.match(line) and _UNDERLINE.match(after)
            if heading or underlined or ("|" in line and _TABLE_RULE.match(after)):
                kinds[i] = HEADING
    return starts, kinds


# -- statements ----------------------------------------------------------------------------------

_WORD = re.compile(r"\w")


@dataclass
class _Statement:
    start: int
    end: int
    backed: bool


def _lead_in(piece: str) -> bool:
    bare = piece.rstrip(" *_")
    return bare.endswith(":") and len(re.findall(r"\w+", bare)) <= 12


def measure(text: str, citations: Iterable[Citation]) -> Coverage:
    """The coverage of a final text (``[n]`` for the shown ``citations``, as ``verify`` writes it), by the
    rule above."""
    numbers = {c.number for c in citations}
    prose = mask_code(text, code_ranges(text), " ")
    starts, kinds = _line_kinds(text)
    found: list[_Statement] = []
    previous: _Statement | None = None  # the statement a piece of markers alone backs
    not_covered = False
    for a, b in sentence_spans(text, numbered=True):
        kind = kinds[bisect_right(starts, a) - 1]
        if kind == SOURCE_LIST:
            continue
        cites = any(int(m.group(1)) in numbers for m in NUMBERED_MARKER.finditer(prose, a, b))
        if _WORD.search(NUMBERED_MARKER.sub("", prose[a:b])) is None:
            if _WORD.search(NUMBERED_MARKER.sub("", text[a:b])) is not None:
                previous = None  # code: markers after it cite the code, which is not a statement
            elif cites and previous is not None:
                previous.backed = True  # markers alone, on the line after their statement
            continue
        piece = text[a:b]
        previous = None
        if not cites and (kind == HEADING or _lead_in(piece)):
            continue
        if not cites and says_not_covered(piece):
            not_covered = True
            continue
        previous = _Statement(a, b, cites)
        found.append(previous)
    return Coverage(
        statements=len(found),
        backed=sum(s.backed for s in found),
        unbacked=[(s.start, s.end) for s in found if not s.backed],
        abstained=not_covered and not found,
    )


def mark_unbacked(text: str, coverage: Coverage, mark: str = UNBACKED_MARK) -> str:
    """``text`` with ``mark`` after each unbacked statement (``coverage`` must be of this very text)."""
    out: list[str] = []
    pos = 0
    for _start, end in sorted(coverage.unbacked):
        out += [text[pos:end], mark]
        pos = end
    out.append(text[pos:])
    return "".join(out)
