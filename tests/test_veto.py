"""The deterministic veto: a wrong number, comparator, direction or negation overturns any judge's "grounded"."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from hippo_tui.backends.offline_transport import OfflineTransport
from hippo_tui.store import DEMO_KB, Store
from hippo_tui.verification.checks import verify
from hippo_tui.verification.markers import split_sentences
from hippo_tui.verification.offline_judge import supports
from hippo_tui.verification.veto import check_claim, veto

METFORMIN = "Metformin can be continued in mild kidney disease. Stop it if the eGFR falls below 30 and review the dose below 45."
CK = "Stop the statin if creatine kinase is more than five times the upper limit of normal."
INR = (
    "Clarithromycin can raise the INR in people taking warfarin. Check the INR within a week of starting it."
)
BIRTH = (
    "After a vaginal birth, give oxytocin 10 units intramuscularly to reduce the risk of postpartum haemorrhage. "
    "Tranexamic acid 1 g intravenously is added if bleeding continues."
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
        (
            "Give oxytocin 10 units subcutaneously after a vaginal birth.",
            BIRTH,
            "claim says subcutaneously, excerpt says intramuscularly",
        ),
        ("Oxytocin after a vaginal birth is given by mouth.", BIRTH, "claim says by mouth"),
        # a score's points keep their comparator; "two-level" names a kind of score, it is no number
        (
            "Offer an ultrasound scan for a Wells score under 2.",
            "Offer an ultrasound scan for a two-level Wells score of 2 points or more.",
            "claim says under 2, excerpt says 2 points or more",
        ),
        # a whole-number threshold counts its numbers: "4 or more" takes in a 4 that "more than 4" leaves out
        (
            "Offer a CT scan for a Wells score of 4 or more.",
            "Offer a CT scan for a Wells score of more than 4 points.",
            "claim says 4 or more",
        ),
        (
            "A leukotriene receptor antagonist can be added for controlled asthma.",
            "Consider adding a leukotriene receptor antagonist for asthma that is not controlled.",
            "claim drops the negation",
        ),
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
        # The claim's route is in the excerpt (with the other drug): which goes with which is the judge's call.
        ("Tranexamic acid 1000 mg is given intravenously if bleeding continues.", BIRTH),
        # An abbreviation it does not read ("IM") is not another route.
        ("Oxytocin 10 units is given intramuscularly after a birth.", BIRTH.replace("intramuscularly", "IM")),
        (
            "Paracetamol can be given IV.",
            "Paracetamol 1 g every 4 to 6 hours, maximum 4 g a day.",
        ),  # no route said
        # "stop driving" says "not drive"; "falls into a group" is no fall; "continued" is "continue"
        ("After a first seizure, a driver should stop driving for 6 months.", "After a first seizure, the person must not drive for 6 months."),
        ("A baby with a temperature of 38°C falls into the high-risk group.", "Red (high risk): a temperature of 38°C or higher."),
        ("Prophylaxis is continued for 28 days.", "Start prophylaxis within 72 hours of the exposure, and continue for 28 days."),
        ("A CRB-65 score above 2 means a high risk of death.", "A CRB-65 score of 3 or more means a high risk of death."),
        # a share's range in words: "half to three-quarters" is 50 to 75%
        ("Admit babies taking only half to three-quarters of their usual feeds.", "Admit infants with inadequate oral fluid intake (50 to 75% of usual volume)."),
        # "uncontrolled" is "not controlled"
        ("A leukotriene receptor antagonist can be added for uncontrolled asthma.", "Consider adding a leukotriene receptor antagonist for asthma that is not controlled."),
    ],
)  # fmt: skip
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


@pytest.mark.parametrize(
    ("claim", "excerpt", "written"),
    [
        ("Ceftriaxone for gonorrhoea is given as a single oral dose of 1 g.", "Gonorrhoea: ceftriaxone 1 g as a single intramuscular injection.", "as a single intramuscular"),
        ("Stop the statin once eGFR falls below 45 mL/min/1.73 m².", "Review the statin if the eGFR is below 45 mL/min/1.73 m². Stop the statin if the eGFR is below 30 mL/min/1.73 m².", "1.73 m²”"),
    ],
)  # fmt: skip
def test_a_reason_quotes_the_excerpt_as_written_not_as_read(claim: str, excerpt: str, written: str):
    said = check_claim(claim, excerpt)
    assert said is not None and written in said, said


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


def _judge(transport: httpx.AsyncBaseTransport) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url="http://judge.invalid/v1",
        api_key="k",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=transport),
    )


async def test_verify_vetoes_a_grounded_verdict_from_any_judge(store: Store):
    client = _judge(AlwaysGrounded(tokens_per_second=0))
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
    return [(s, excerpt) for _, excerpt in _demo_sources() for s in split_sentences(excerpt)]


def test_every_sentence_of_the_demo_kb_stands_against_its_own_source():
    # The veto and the offline judge never overturn a source quoted word for word (231 sentences, 80 sources).
    wrong = [s for s, excerpt in _demo_sentences() if check_claim(s, excerpt) or not supports(s, excerpt)]
    assert wrong == []


# Paraphrases of demo sources as a model writes them: sentences joined with commas, numbers in words, "a day"
# for "daily", "omit" for "withhold". The veto must leave every one of them to the judge.
PARAPHRASES = [
    (
        "Type 2 diabetes: starting metformin",
        "Metformin should be started at 500 mg once a day with food and slowly increased over several weeks, up to a maximum of 2 g a day.",
    ),
    (
        "Type 2 diabetes: starting metformin",
        "The metformin dose should be reduced when the eGFR drops under 45, and metformin stopped when it is below 30.",
    ),
    (
        "Paracetamol dosing in children",
        "Children aged 2 to 4 years can be given 180 mg of paracetamol, repeated every 4 to 6 hours, up to 4 doses in 24 hours.",
    ),
    (
        "Anaphylaxis: adrenaline doses",
        "Adults should receive 0.5 mg of intramuscular adrenaline, repeated after five minutes if there is no improvement.",
    ),
    ("Anaphylaxis: adrenaline doses", "Children aged 6 to 12 receive 300 micrograms of adrenaline."),
    (
        "Smoking cessation: medicines",
        "Varenicline is started one to two weeks before the quit date at 0.5 mg once daily for three days.",
    ),
    (
        "Smoking cessation: medicines",
        "After the first week, varenicline is taken as 1 mg twice daily for 11 weeks.",
    ),
    (
        "Uncomplicated cystitis in non-pregnant women",
        "Nitrofurantoin 100 mg MR twice a day for three days is first-line if the eGFR is at least 45.",
    ),
    (
        "Warfarin: managing a high INR",
        "If the INR is above 8 without bleeding, stop warfarin and give 1 to 5 mg of oral vitamin K.",
    ),
    (
        "Warfarin: managing a high INR",
        "For an INR between 5 and 8 with no bleeding, omit one or two doses of warfarin and lower the maintenance dose.",
    ),
    (
        "DOACs: apixaban dosing in atrial fibrillation",
        "Apixaban is reduced to 2.5 mg twice daily in people with two of: age 80 or over, weight 60 kg or less, creatinine 133 micromol/L or more.",
    ),
    (
        "Statins: muscle symptoms",
        "If creatine kinase is over five times the upper limit of normal, recheck it after a week and stop the statin if it is still raised.",
    ),
    ("Hypertension: treatment targets", "People aged 80 or over have a clinic target below 150/90 mmHg."),
    (
        "Osteoporosis: bisphosphonates",
        "Alendronic acid 70 mg is taken once a week, at least half an hour before food, staying upright for 30 minutes.",
    ),
    (
        "Gout: urate-lowering therapy",
        "Allopurinol is started at 100 mg a day and increased by 100 mg every four weeks until urate is under 360 micromol/L.",
    ),
    ("Depression in adults: starting an SSRI", "People aged 18 to 25 should be reviewed after one week."),
    (
        "Interaction: ACE inhibitors and potassium",
        "Check potassium and creatinine 1 to 2 weeks after each dose increase of an ACE inhibitor.",
    ),
    ("Hyperkalaemia: severity", "A potassium of 6.5 mmol/L or higher is severe hyperkalaemia."),
    ("Head lice", "Dimeticone 4% lotion is applied two times, a week apart."),
    ("MMR vaccination", "Pregnancy should be avoided for one month after MMR vaccination."),
    (
        "Gout: treating a flare",
        "Colchicine 500 micrograms can be taken two to four times a day, to a maximum of 6 mg per course.",
    ),
    ("Gout: treating a flare", "Allopurinol should be continued during a gout flare."),
    (
        "Interaction: statins and clarithromycin",
        "Simvastatin should be paused while a person takes clarithromycin.",
    ),
    (
        "Community-acquired pneumonia in adults",
        "For a CRB-65 score of 0, give amoxicillin 500 mg three times a day for five days.",
    ),
    (
        "Sepsis in adults: red flags",
        "A heart rate over 130 beats per minute is a red flag for sepsis in adults.",
    ),
    (
        "Migraine: acute treatment",
        "Sumatriptan 50 to 100 mg is taken with an NSAID or paracetamol at the start of the headache.",
    ),
    ("Iron-deficiency anaemia", "Continue iron for three months after the haemoglobin returns to normal."),
    (
        "Hypothyroidism: starting levothyroxine",
        "TSH should be checked six to eight weeks after a change in dose.",
    ),
    (
        "Fever in children: antipyretic use",
        "Do not routinely give paracetamol and ibuprofen at the same time.",
    ),
    (
        "Heart failure: initial tests",
        "An NT-proBNP over 2000 ng/L needs an echo and specialist review within two weeks.",
    ),
]


@pytest.mark.parametrize(("title", "claim"), PARAPHRASES, ids=[c[:40] for _, c in PARAPHRASES])
def test_honest_paraphrases_of_the_demo_kb_are_not_vetoed(title: str, claim: str):
    excerpt = next(e for t, e in _demo_sources() if t == title)
    assert check_claim(claim, excerpt) is None


def _demo_sources() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in DEMO_KB.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["title"], r["excerpt"]) for r in rows]


async def test_an_ungrounded_verdict_says_why_when_the_veto_knows(store: Store):
    client = _judge(OfflineTransport(tokens_per_second=0))
    v = await verify(
        f"Amlodipine is commonly started at 10 mg once daily. [{AMLO}]", store=store, client=client, model="m"
    )
    [attempt] = v.attempts
    assert attempt.check_two == "ungrounded" and attempt.reason.startswith(
        "claim says 10 mg, excerpt says 5 mg"
    )


TRANSFUSION = (
    "Consider red cell transfusion when the haemoglobin falls below 70 g/L in patients without heart disease."
)
BLEEDING = "Apixaban causes less major bleeding than warfarin in atrial fibrillation."


@pytest.mark.parametrize(
    ("claim", "excerpt", "vetoed"),
    [
        # A negation the claim puts in a piece of its own ("in patients without …, consider …") is still there.
        (
            "In patients without heart disease, consider transfusion when haemoglobin is below 70 g/L.",
            TRANSFUSION,
            False,
        ),
        (
            "In patients with heart disease, consider transfusion when haemoglobin is below 70 g/L.",
            TRANSFUSION,
            True,
        ),
        (
            "Do not consider transfusion below 70 g/L haemoglobin, in patients without heart disease.",
            TRANSFUSION,
            True,
        ),
        # A comparison given the other way round says the same thing; the same word with the sides swapped does not.
        ("Warfarin causes more major bleeding than apixaban.", BLEEDING, False),
        ("Apixaban causes more major bleeding than warfarin.", BLEEDING, True),
        # "Without delay" is "as soon as possible", not a negation.
        (
            "Adults with major trauma and bleeding should receive tranexamic acid without delay.",
            "Give tranexamic acid as soon as possible to adults with major trauma and bleeding.",
            False,
        ),
        # A negative word says "not": "cannot be tolerated" is "intolerable", "has not helped" "ineffective".
        (
            "Stop the statin if the muscle symptoms cannot be tolerated.",
            "Stop the statin if muscle symptoms are intolerable.",
            False,
        ),
        (
            "Stop the statin if the muscle symptoms can be tolerated.",
            "Stop the statin if muscle symptoms are intolerable.",
            True,
        ),
        (
            "Offer antimuscarinics when bladder training has not helped.",
            "Antimuscarinics are offered if bladder training is ineffective.",
            False,
        ),
        # A "not" in the condition a claim leaves out is not the statement's.
        (
            "Methylnaltrexone is given by subcutaneous injection for opioid-induced constipation.",
            "Methylnaltrexone is given by subcutaneous injection for opioid-induced constipation when laxatives "
            "have not worked.",
            False,
        ),
        (
            "Methylnaltrexone is given by subcutaneous injection when laxatives have worked.",
            "Methylnaltrexone is given by subcutaneous injection when laxatives have not worked.",
            True,
        ),
    ],
)
def test_a_claim_worded_another_way_keeps_its_negation_and_direction(claim: str, excerpt: str, vetoed: bool):
    assert (check_claim(claim, excerpt) is not None) is vetoed


CROUP = (
    "Children aged 6 months to 5 years with croup should receive a single dose of oral dexamethasone. "
    "The recommended dose is 0.15 mg/kg."
)


@pytest.mark.parametrize(
    ("claim", "vetoed"),
    [
        # The dose in the sentence that goes on about the first is the dose for those children; "between 6 months
        # and 5 years" is one range, not "between 6 months" and another 5 years.
        (
            "Children between 6 months and 5 years old with croup get one dose of dexamethasone 0.15 mg/kg.",
            False,
        ),
        (
            "Children between 6 months and 5 years old with croup get one dose of dexamethasone 0.6 mg/kg.",
            True,
        ),
        (
            "Children between 6 months and 12 years old with croup get one dose of dexamethasone 0.15 mg/kg.",
            True,
        ),
    ],
)
def test_numbers_said_over_two_sentences_go_together(claim: str, vetoed: bool):
    assert (check_claim(claim, CROUP) is not None) is vetoed


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        (
            "Give the first dose within 1 hour of arrival.",
            "Give the first dose no later than 1 hour after arrival.",
        ),
        ("Treat for at least 5 days.", "Treat for not less than 5 days."),
        ("Treat for at least 5 days.", "Treat for no fewer than 5 days."),
    ],
)
def test_a_negated_comparator_is_a_comparator_not_a_negation(claim: str, excerpt: str):
    assert check_claim(claim, excerpt) is None
    assert (
        check_claim(
            claim.replace("at least", "less than").replace("within 1 hour of", "more than 1 hour after"),
            excerpt,
        )
        is not None
    )


def test_what_the_excerpt_rejects_or_says_is_not_so_is_not_the_claims():
    timing = "Give prophylactic antibiotics for caesarean section before skin incision rather than after cord clamping."
    wrong = check_claim(
        "Antibiotics for caesarean section should be given after the cord is clamped.", timing
    )
    assert wrong is not None and "rejects it: “rather than after cord clamping”" in wrong
    assert (
        check_claim("Antibiotics for caesarean section are given before the skin incision.", timing) is None
    )
    trial = (
        "In infants with bronchiolitis, high-flow oxygen reduced the need for escalation of care compared with "
        "standard oxygen, but did not shorten the length of hospital stay."
    )
    wrong = check_claim("High-flow oxygen shortened hospital stay in infants with bronchiolitis.", trial)
    assert wrong is not None and "“not shorten”" in wrong
    assert (
        check_claim("High-flow oxygen did not shorten hospital stay in infants with bronchiolitis.", trial)
        is None
    )


def test_what_an_instruction_forbids_said_as_allowed_is_contradicted():
    gel = (
        "Apply estradiol gel to clean, dry skin on the upper arm or thigh. "
        "Do not apply the gel to the breasts or near the vagina."
    )
    wrong = check_claim("Estradiol gel can be applied to the breasts or thighs.", gel)
    assert wrong is not None and "“do not apply the gel to the breasts" in wrong
    assert check_claim("Estradiol gel can be applied to the upper arm or thigh.", gel) is None
    # A word the forbidding sentence shares with a claim that says something else is not forbidden by it.
    folate = "Avoid trimethoprim in the first trimester of pregnancy because it is a folate antagonist."
    assert (
        check_claim(
            "Because trimethoprim antagonises folate, it should not be used in early pregnancy.", folate
        )
        is None
    )
    # An instruction that says when it does not hold ("unless") allows what it then names.
    fluids = "In malnourished children, do not give intravenous fluids unless the child is in shock."
    assert (
        check_claim("Malnourished children get intravenous fluids only if they are in shock.", fluids) is None
    )
    # The medicine an instruction is about is not what it forbids; an "until" inside it says when it ends.
    thigh = "In anaphylaxis, do not inject adrenaline into the buttock. Inject into the outer thigh."
    assert check_claim("In anaphylaxis, adrenaline is injected into the outer thigh.", thigh) is None
    driving = "Do not drive until you know how diazepam affects you."
    waiting = "Patients taking diazepam should wait until they know how it affects them before driving."
    assert check_claim(waiting, driving) is None
    # Nor is a heading's word lent to what it heads ("Bronchiolitis in infants: do not routinely use …").
    heading = (
        "Bronchiolitis in infants: do not routinely use salbutamol; give oxygen if saturation is below 92%."
    )
    said_again = (
        "Bronchiolitis in infants: do not routinely use albuterol; give oxygen if saturation is below 92%."
    )
    assert check_claim(said_again, heading) is None


def test_to_avoid_says_what_advice_is_for_unless_it_is_the_advice():
    steroid = "Reduce the prednisolone dose gradually to avoid adrenal crisis."
    assert check_claim("Taper the prednisolone dose gradually to prevent an adrenal crisis.", steroid) is None
    skin = "Advise people taking isotretinoin to avoid waxing during treatment."
    assert check_claim("People taking isotretinoin should wax during treatment.", skin) is not None
    told = "Inform people taking isotretinoin to avoid waxing during treatment."
    assert check_claim(told, skin) is None
    # After a verb of need, "to avoid" is the advice: "do not need to avoid" is "need not be avoided".
    juice = "Grapefruit juice does not need to be avoided with pravastatin."
    assert check_claim("People taking pravastatin do not need to avoid grapefruit juice.", juice) is None
    assert check_claim("People taking pravastatin need to avoid grapefruit juice.", juice) is not None


def test_stopping_a_habit_is_not_stopping_a_treatment():
    excerpt = "Offer smoking cessation support to all pregnant women who smoke."
    assert check_claim("Pregnant smokers should be offered help to stop smoking.", excerpt) is None
    assert (
        check_claim("Stop the nicotine patch in pregnancy.", "Offer nicotine patches in pregnancy.")
        is not None
    )


def test_a_claim_of_two_sentences_reads_each_against_its_own_line():
    # A quoted card whose criteria are lines without full stops: each claim sentence has its own line.
    card = "Creatinine rise of > 26 micromol/l within 48 hrs\n50 % rise in creatinine over 7 days"
    quoted = "Creatinine rise of > 26 micromol/l within 48 hrs. 50 % rise in creatinine over 7 days."
    assert check_claim(quoted, card) is None
    swapped = "Creatinine rise of > 26 micromol/l within 7 days. 50 % rise in creatinine over 48 hrs."
    assert check_claim(swapped, card) is not None


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        (
            "Urgent fasciotomy (surgical decompression) must be done if the pain is not relieved by elevation.",
            "For compartment syndrome, urgent fasciotomy (surgical decompression) must be done within hours if the "
            "pain is not relieved by elevation.",
        ),
        (
            "Manage it like any allergic reaction and do not give penicillin again.",
            "Manage as for any allergic reaction and do not give penicillin again.",
        ),
        (
            "Night shifts, whether planned or unplanned, are not advised.",
            "The practice of night shifts, whether planned or unplanned, is not advised.",
        ),
        (
            "When estimating the fluid deficit, do not count insensible losses.",
            "In estimating fluid deficit, do not count insensible losses",
        ),
    ],
)
def test_a_part_of_a_negated_statement_does_not_drop_a_negation_the_claim_says_too(claim: str, excerpt: str):
    assert check_claim(claim, excerpt) is None


def test_a_claim_that_leaves_the_negation_out_still_drops_it():
    excerpt = "Tetanus vaccine is given for dirty cuts in people who are not fully vaccinated."
    assert check_claim("Tetanus vaccine is given to everyone with a cut.", excerpt) is not None
    allergy = "Manage as for any allergic reaction and do not give penicillin again."
    assert check_claim("Give penicillin again after an allergic reaction.", allergy) is not None


def test_the_same_thing_after_a_time_word_on_both_sides_is_no_swap():
    excerpt = "Newborns should receive the birth dose of vitamin K as soon as possible after birth, ideally within 6 hours."
    assert (
        check_claim(
            "Newborns should get the birth dose of vitamin K as soon as possible after birth.", excerpt
        )
        is None
    )
    assert (
        check_claim("Give the antibiotic after the incision.", "Give the incision after the antibiotic.")
        is not None
    )


def test_a_list_after_a_negated_statement_is_negated_item_by_item():
    excerpt = "Beta-blockers are contraindicated in asthma, heart block, and severe sinus bradycardia."
    assert check_claim("Beta-blockers should not be used in severe sinus bradycardia.", excerpt) is None
    # A negation in the subject ("without immunity") is not said of a list after the predicate.
    exposed = (
        "Pregnant women without immunity to measles who have had a significant exposure should be assessed for "
        "human normal immunoglobulin or antiviral prophylaxis."
    )
    assert check_claim(exposed.replace("Pregnant women", "A pregnant woman"), exposed) is None
    # What follows "because" is a reason, not an item of the list.
    reason = "Aspirin is avoided in children under 16 because of the risk of Reye's syndrome."
    assert (
        check_claim("Aspirin is avoided in kids under 16 because of the risk of Reye's syndrome.", reason)
        is None
    )


SCREENING = "Cervical screening is offered every 3 years to people aged 25 to 49, and every 5 years to those aged 50 to 64."


@pytest.mark.parametrize(
    ("claim", "vetoed"),
    [
        # The claim's two numbers go together in the second half, which shares fewer words with it than the first.
        ("Between the ages of 50 and 64, cervical screening happens once every five years.", False),
        ("Between the ages of 25 and 49, cervical screening happens once every five years.", True),
        ("Cervical screening is offered every 3 years to people aged 50 to 64.", True),
    ],
)
def test_numbers_that_go_together_where_the_match_is_are_not_taken_for_the_rivals(claim: str, vetoed: bool):
    assert (check_claim(claim, SCREENING) is not None) is vetoed


OXYGEN = (
    "In acutely ill patients, give oxygen to achieve a target saturation of 94–98%. "
    "In patients at risk of hypercapnic respiratory failure, aim for 88–92%."
)


@pytest.mark.parametrize(
    ("claim", "vetoed"),
    [
        # The number of one sentence with the people of the other, who have a number of their own.
        (
            "Acutely ill patients at risk of hypercapnic respiratory failure should have oxygen targeted to 94–98%.",
            True,
        ),
        # Each group with its own number, whatever the other sentence's words share with the claim.
        ("Patients at risk of hypercapnic respiratory failure should have oxygen targeted to 88–92%.", False),
        ("Acutely ill patients should have oxygen targeted to 94–98%.", False),
        (
            "Acutely ill patients should have oxygen targeted to 94–98%, or 88–92% if at risk of hypercapnic failure.",
            False,
        ),
    ],
)
def test_a_number_goes_with_the_people_its_sentence_names(claim: str, vetoed: bool):
    assert (check_claim(claim, OXYGEN) is not None) is vetoed


def test_a_label_opening_the_sentence_says_what_its_numbers_are_for():
    # The 7–14 days are the oropharyngeal course; the label gives the oesophageal one 14–21 days.
    excerpt = (
        "Oesophageal candidiasis: fluconazole 200–400 mg PO daily for 14–21 days. "
        "Fluconazole for oropharyngeal candidiasis: 7–14 days."
    )
    reason = check_claim("Oral fluconazole for oesophageal candidiasis is usually given for 7 days.", excerpt)
    assert reason is not None and "14-21 days" in reason, reason
    assert check_claim("Fluconazole for oesophageal candidiasis is given for 14 to 21 days.", excerpt) is None
    assert check_claim("Fluconazole for oropharyngeal candidiasis is given for 7 days.", excerpt) is None


def test_a_statement_before_a_colon_lends_no_words_to_its_reason():
    excerpt = (
        "Codeine is not recommended during breastfeeding: some mothers are ultra-rapid metabolisers and the "
        "infant may receive toxic amounts of morphine."
    )
    assert (
        check_claim("Codeine should not be used for pain relief in breastfeeding mothers.", excerpt) is None
    )
    assert check_claim("Codeine is recommended during breastfeeding.", excerpt) is not None


def test_what_the_excerpt_says_is_not_needed_is_not_needed():
    excerpt = (
        "Refer children with a first febrile convulsion for assessment in hospital. Most children with simple "
        "febrile convulsions do not need an EEG."
    )
    reason = check_claim(
        "Children with a first febrile seizure should be assessed in hospital and have an EEG.", excerpt
    )
    assert reason is not None and "eeg" in reason.lower(), reason
    assert (
        check_claim("Children with a first febrile seizure should be assessed in hospital.", excerpt) is None
    )
