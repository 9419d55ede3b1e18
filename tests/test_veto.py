"""The deterministic veto: a wrong number, comparator, direction or negation overturns any judge's "grounded"."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from hippo_tui.backends.extractive import supports
from hippo_tui.backends.offline import OfflineTransport
from hippo_tui.citations import split_sentences
from hippo_tui.store import DEMO_KB, Store
from hippo_tui.verify import verify
from hippo_tui.veto import check_claim, veto

METFORMIN = "Metformin can be continued in mild kidney disease. Stop it if the eGFR falls below 30 and review the dose below 45."
CK = "Stop the statin if creatine kinase is more than five times the upper limit of normal."
INR = (
    "Clarithromycin can raise the INR in people taking warfarin. Check the INR within a week of starting it."
)


@pytest.mark.parametrize(
    ("claim", "excerpt", "reason"),
    [
        (
            "Metformin should be stopped if the eGFR falls below 45.",
            METFORMIN,
            "claim says below 45, excerpt says below 30 for “stop it if the egfr falls below 30”",
        ),
        (
            "Stop the statin if creatine kinase is more than twice the upper limit.",
            CK,
            "claim says more than twice, excerpt says more than five times",
        ),
        ("Clarithromycin lowers the INR.", INR, "claim says lowers, excerpt says raise"),
        ("Check the INR within 14 days of starting clarithromycin.", INR, "claim says within 14 days"),
        ("Stop the statin if creatine kinase is less than five times the upper limit.", CK, "less than five"),
        ("Clarithromycin can raise the INR in people not taking warfarin.", INR, "negat"),
    ],
)
def test_what_a_reader_cannot_forgive_is_vetoed_with_its_reason(claim: str, excerpt: str, reason: str):
    said = check_claim(claim, excerpt)
    assert said is not None and reason in said, said


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        ("The INR should be checked within seven days of starting clarithromycin.", INR),
        ("Warfarin users may find clarithromycin increases their INR.", INR),
        ("If creatine kinase rises above 5 times the upper limit of normal, stop the statin.", CK),
        ("Review the metformin dose when the eGFR is below 45.", METFORMIN),
        ("Ceftriaxone 2000 mg is given once daily.", "Ceftriaxone 2 g is given intravenously once daily."),
        ("Isotretinoin must not be used in pregnancy.", "Isotretinoin is contraindicated in pregnancy."),
        ("Metformin reduces glucose.", CK),  # nothing to place: the judge's call, not the veto's
    ],
)
def test_honest_paraphrase_and_unrelated_claims_are_left_to_the_judge(claim: str, excerpt: str):
    assert check_claim(claim, excerpt) is None


def test_a_number_attached_to_another_thing_in_a_list_is_vetoed():
    excerpt = "Doses by age band are 50 mg three times daily for 3 to 6 months, and 100 mg three times daily for 1 to 4 years."
    assert check_claim("Give 100 mg three times daily for 1 to 4 years.", excerpt) is None
    said = check_claim("For children aged 3 to 6 months, give 100 mg three times daily.", excerpt)
    assert said is not None and "3 to 6 months" in said and "100 mg" in said


def test_a_source_stands_while_one_of_its_claims_passes():
    good, bad = (
        "Stop the statin above five times the upper limit of normal.",
        "Stop it above twice the limit.",
    )
    assert veto([good, bad], CK) is None
    assert veto([bad], CK) is not None
    assert "(and 1 more claims)" in (veto([bad, "Stop the statin below 5 times the upper limit."], CK) or "")


def test_reasons_quote_untrusted_text_made_inert():
    said = check_claim(
        "Clarithromycin lowers the INR.", "Clarithromycin can \x1b]52;c;aGk=\x07raise the INR."
    )
    assert said is not None and "\x1b" not in said and "\x07" not in said


class AlwaysGrounded(OfflineTransport):
    """A judge that calls every source grounded (a real model that waves a wrong number through)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        if response.headers.get("content-type", "").startswith("application/json"):
            body = (await response.aread()).replace(b"false", b"true")
            return httpx.Response(
                response.status_code, headers={"content-type": "application/json"}, content=body
            )
        return response


AMLO = (
    "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"  # "… started at 5 mg once daily and may be increased to 10 mg …"
)
DIAG = "161d3bb9-a9a9-4bf2-b928-18b327f42fea"  # "A clinic blood pressure of 140/90 mmHg or higher …"


async def test_verify_vetoes_a_grounded_verdict_from_any_judge(store: Store):
    client = openai.AsyncOpenAI(
        base_url="http://judge.invalid/v1",
        api_key="k",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=AlwaysGrounded(tokens_per_second=0)),
    )
    answer = (
        f"Amlodipine is commonly started at 10 mg once daily. [{AMLO}] "
        f"A clinic blood pressure of 140/90 mmHg or higher should be confirmed with home monitoring. [{DIAG}]"
    )
    v = await verify(answer, store=store, client=client, model="m")
    attempts = {a.source_id: a for a in v.attempts}
    assert attempts[AMLO].check_two == "ungrounded" and not attempts[AMLO].shown
    assert attempts[AMLO].reason.startswith("claim says 10 mg, excerpt says 5 mg")
    assert attempts[DIAG].check_two == "grounded" and attempts[DIAG].shown
    assert [c.id for c in v.citations] == [DIAG] and v.summary.ungrounded == 1


def _demo_sentences() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in DEMO_KB.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(s, r["excerpt"]) for r in rows for s in split_sentences(r["excerpt"])]


def test_every_sentence_of_the_demo_kb_stands_against_its_own_source():
    # The veto and the offline judge never overturn a source quoted word for word (231 sentences, 80 sources).
    wrong = [s for s, excerpt in _demo_sentences() if check_claim(s, excerpt) or not supports(s, excerpt)]
    assert wrong == []
