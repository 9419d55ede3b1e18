"""What makes a part uncovered: a subject no source mentions and no passage of the knowledge base contains."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippo_tui.backends.asked import tool_names
from hippo_tui.backends.extractive.choosing import _calls_tool
from hippo_tui.backends.extractive.drug_classes import _member_named
from hippo_tui.backends.extractive.parts import GENERAL, TOOL_KIND_WORDS, Part, _aspect, treatment
from hippo_tui.verification.lexical import JUDGE_SYNONYMS

if TYPE_CHECKING:
    from hippo_tui.backends.extractive.context import Context


def unknown_subjects(ctx: Context, part: Part) -> set[str]:
    """What the part asks about (drugs, conditions: not facets, numbers or generic words) that no source
    in the context mentions at all, and that the search says no passage of the knowledge base contains
    ("edoxaban"). A part with one is not covered, however much else matches. A word other passages do use
    is no proof the subject is missing (it may be the asker's word for it, or a source's typo): it counts
    against the part's coverage instead, at the weight of a word no source uses."""
    # A sex no source names is no subject (``parts``); where one names women only, a question about a man
    # is not covered by it.
    known = {JUDGE_SYNONYMS.get(w, w) for s in ctx.sources for w in s.words}  # "man" is in "men"
    names = [n for name in tool_names(part.text) for n in name]
    return {
        w
        for w in part.own
        if not _aspect(w)
        and w not in treatment()
        and w not in GENERAL
        and not (w in TOOL_KIND_WORDS and any(_calls_tool(s, names) for s in ctx.sources))
        and JUDGE_SYNONYMS.get(w, w) not in known
        and not _member_named(w, known)
        and w in ctx.absent
    }
