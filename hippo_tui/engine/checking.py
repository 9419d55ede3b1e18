"""Checking an answer written elsewhere (``verify``): both checks on its text, kept in the audit record as
an answer of the ``verify`` backend, so a check run from the command line and one run for a thin client
leave the same trace."""

from __future__ import annotations

from hippo_tui.engine.answer import AnswerInputs
from hippo_tui.engine.protocol import Checked


async def check_and_record(inputs: AnswerInputs, text: str, *, question: str) -> Checked:
    """Both checks, recorded (an interrupted check as an error, then re-raised)."""
    from hippo_tui.verification.checks import verify

    store, backend = inputs.store, inputs.backend
    answer_id = await store.begin_answer(
        question=question, model=backend.model, backend="verify", asked_by=inputs.asked_by, client=inputs.client
    )
    try:
        result = await verify(
            text, store=store, client=backend.client, model=backend.model, limit=inputs.settings.grounding_timeout
        )
    except BaseException as e:
        timings = {"total": 0.0}
        await store.finish_answer(
            answer_id, raw_text=text, final_text="", outcome="error", timings=timings, error=repr(e)
        )
        raise
    await store.record_citations(answer_id, result.attempts, grounding=result.grounding)
    seconds = result.summary.seconds
    await store.finish_answer(
        answer_id,
        raw_text=text,
        final_text=result.text,
        outcome="complete",
        timings={"verification": seconds, "total": seconds},
        coverage=result.coverage,
    )
    return Checked(
        audit_id=answer_id,
        judge=backend.label,
        text=result.text,
        attempts=result.attempts,
        summary=result.summary,
        coverage=result.coverage,
        grounding_step=result.grounding.step if result.grounding else None,
    )
