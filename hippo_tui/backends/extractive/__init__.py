"""The offline model's mind: a deterministic extractive answerer. No weights (its judge: ``verification.offline_judge``).

The answerer reads the sources in its context (the same ``<source>`` blocks a real model gets, in the order
retrieval ranked them), splits the question into parts and answers each part from the source that covers it
best: that source's best sentence plus the sentences of the same source that share its topic, in source order,
each cited with the source's id; a second source joins only for a subject the first does not mention ("dose of
paracetamol and ibuprofen"). Subjects (drugs, conditions) choose the source; facets ("dose", "how long") and
numbers choose among its sentences, and a dose question wants a sentence with a dose in it: the dose of the drug
asked about (not of another drug the sentence names), for the group asked about (not children's for an adult); a
source whose doses are all another drug's or group's does not answer it, nor does a card on another group
(non-pregnant women, for pregnancy). A sentence that refers back ("A score of 0 …", "The dose is …") never goes
out without the sentence it refers to. A follow-on part ("… and what dose?", "…, what drug can I give?", a part
naming only a drug, "… and how much aspirin?", or a next question "And in men?") inherits the subject of the
part or question before it: aspirin after Kawasaki disease is not answered with its dose for pre-eclampsia. A
part no source covers makes it call ``search_kb`` (once per part), as a real model would; after the search, a
part still uncovered is said to be uncovered, never invented. A part is not covered when no source mentions one
of its subjects at all, however well the rest matches: a question on semaglutide for weight loss is not answered
from a source on dyspepsia that mentions weight loss.
"""

from hippo_tui.backends.extractive.answering import answer
from hippo_tui.backends.extractive.context import Context, message_text
from hippo_tui.backends.extractive.parts import parts_of, question_parts
from hippo_tui.backends.extractive.rendering import Reply, render
from hippo_tui.backends.extractive.words import content_words

__all__ = [
    "Context",
    "Reply",
    "answer",
    "content_words",
    "message_text",
    "parts_of",
    "question_parts",
    "render",
]
