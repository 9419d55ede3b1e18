"""What a question asks for beyond its words: several things (a list), a named score or rule, one type of a
condition. Each narrows what may answer it: a list may take more lines; a named score is answered only by a
source that names it; a card on type 2 diabetes does not answer for type 1, whatever it mentions of type 1.
"""

from __future__ import annotations

import re

# An answer says what answers in a few lines: the sentences that join the best one stop at this many characters
# of quotation, more for a question that asks for a list ("what are the criteria …").
PART_CHARS = 400
LIST_CHARS = 900
_LIST = re.compile(
    r"\b(?:list|criteria|causes|signs|symptoms|features|options|indications|contraindications|risk factors|"
    r"side effects|differentials?|what are(?: the)?|which are)\b",
    re.I,
)
# A named score, rule or criteria ("HEART score", "Centor criteria"): its name is the subject, and a source
# without it is on another tool. A name of two ("Truelove and Witts criteria") is either of its words.
TOOL_KINDS = ("score", "rule", "criteria", "index", "scale", "classification", "staging", "tool")
# "Rule out" is a verb, not a rule: "can a normal scan rule out torsion" names no tool.
_KIND = "|".join(k if k != "rule" else r"rule(?!\s+out\b)" for k in TOOL_KINDS)
_NAMED_TOOL = re.compile(rf"\b(?:([A-Za-z][\w'’-]*)\s+(?:and|&)\s+)?([A-Za-z][\w'’-]*)\s+(?:{_KIND})\b", re.I)
TYPES = frozenset({"type1", "type2"})  # the answerer's words for "type 1" and "type 2"


def quotation_chars(question: str) -> int:
    """How many characters of quotation an answer to ``question`` may run to."""
    return LIST_CHARS if _LIST.search(question) else PART_CHARS


def tool_names(text: str) -> list[list[str]]:
    """The names of the scores, rules and criteria ``text`` names ("HEART" of "HEART score"), each as the words
    of its name ("Truelove", "Witts" of "Truelove and Witts criteria")."""
    return [[g for g in m.groups() if g] for m in _NAMED_TOOL.finditer(text)]


def other_type(asked: set[str], topic: frozenset[str]) -> bool:
    """The title names another type of the condition than the one asked about ("type 2" for "type 1")."""
    mine, titled = asked & TYPES, topic & TYPES
    return bool(mine and titled) and not mine & titled
