"""What a new user sees: the offline answerer's answers to realistic clinician questions over the demo KB.

Every question runs through the real engine (retrieval, the offline model, the guard, both checks), as
``hippo-tui ask`` runs it. Each answer must cite the expected source(s) and nothing else, contain the key
fact (a dose, a duration, a drug), cite every sentence it states, and pass both checks.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_OK, main
from hippo_tui.config import Settings
from hippo_tui.engine import Engine
from hippo_tui.events import EndEvent, Event, ResetEvent, ThinkingEvent
from hippo_tui.store import DEMO_KB, Store
from tests.support.asking import ask_once

TITLES = {
    row["title"]: row["id"]
    for row in (json.loads(line) for line in DEMO_KB.read_text(encoding="utf-8").splitlines() if line.strip())
}


@dataclass(frozen=True)
class Case:
    question: str
    cites: tuple[str, ...]  # titles of the sources the answer must cite, and the only ones it may cite
    facts: tuple[str, ...]  # text the answer must contain

    @property
    def ids(self) -> set[str]:
        return {TITLES[t] for t in self.cites}


CASES = [
    # Typed as a tired clinician types: a slip, lay words, abbreviations, everyday words around the subject.
    Case(
        "warfrin INR 6.2 no bleeding what to do",
        ("Warfarin: managing a high INR",),
        ("withhold 1 or 2 doses",),
    ),
    # "Steroids" is said by the card that gives prednisolone: no COPD inhaler line joins it.
    Case(
        "how long should steroids be taken for an asthma attack in adults",
        ("Acute asthma in adults: severity",),
        ("Give oral prednisolone 40 to 50 mg daily for at least 5 days",),
    ),
    Case(
        "on a blood thinner (warfarin) and wants ibuprofen for back pain - ok?",
        ("Interaction: warfarin and NSAIDs",),
        ("increase the risk of bleeding",),
    ),
    Case(
        "statin pt with muscle pain and CK 6 times upper limit, what do I do",
        ("Statins: muscle symptoms",),
        ("more than 5 times the upper limit",),
    ),
    Case(
        "temp 38.2 in a 6 week old baby - how worried?",
        ("Fever in children under 5: traffic-light assessment",),
        ("38°C or higher in an infant under 3 months",),
    ),
    Case(
        "warfarin and ibuprofen together?",
        ("Interaction: warfarin and NSAIDs",),
        ("risk of bleeding", "Avoid the combination", "proton pump inhibitor"),
    ),
    Case(
        "How much paracetamol can I give a 2 year old with fever?",
        ("Paracetamol dosing in children",),
        ("120 mg for 6 months to 2 years", "180 mg for 2 to 4 years", "every 4 to 6 hours"),
    ),
    Case(
        "What is the dose of paracetamol and ibuprofen in children?",
        ("Ibuprofen dosing in children", "Paracetamol dosing in children"),
        ("100 mg three times daily for 1 to 4 years", "120 mg for 6 months to 2 years"),
    ),
    Case(
        "What are the side effects of SGLT2 inhibitors?",
        ("Type 2 diabetes: SGLT2 inhibitors in heart disease",),
        ("genital fungal infections", "diabetic ketoacidosis"),
    ),
    Case(
        "How do I manage a DVT?",
        ("Deep vein thrombosis: initial management",),
        ("Wells score", "ultrasound within 4 hours", "at least 3 months"),
    ),
    Case(
        "Is amoxicillin first-line for community acquired pneumonia, and what dose?",
        ("Community-acquired pneumonia in adults",),
        ("CRB-65", "amoxicillin 500 mg three times daily for 5 days is first-line"),
    ),
    Case(
        "What dose of amlodipine?",
        ("Hypertension: choosing the first drug",),
        ("5 mg once daily", "10 mg once daily"),
    ),
    Case(
        "What is the target INR for a mechanical mitral valve?",
        ("Warfarin: INR targets",),
        ("3.0 to 3.5",),
    ),
    Case(
        "How long should prednisolone be given for a COPD exacerbation?",
        ("COPD: treating an exacerbation",),
        ("prednisolone 30 mg once daily for 5 days",),
    ),
    Case(
        "Which antibiotic for uncomplicated cystitis in women, and for how long?",
        ("Uncomplicated cystitis in non-pregnant women",),
        ("nitrofurantoin 100 mg", "for 3 days", "Trimethoprim 200 mg"),
    ),
    Case(
        "What dose of adrenaline for anaphylaxis in a child aged 8?",
        ("Anaphylaxis: adrenaline doses",),
        ("300 micrograms for children aged 6 to 12", "Intramuscular"),
    ),
    Case(
        "Can I give simvastatin with clarithromycin?",
        ("Interaction: statins and clarithromycin",),
        ("Simvastatin should be stopped temporarily",),
    ),
    Case(
        "How do I treat a UTI in pregnancy?",
        ("Urinary tract infection in pregnancy",),
        ("for 7 days", "Nitrofurantoin 100 mg", "Trimethoprim should be avoided in the first trimester"),
    ),
    Case(
        "When should the apixaban dose be reduced?",
        ("DOACs: apixaban dosing in atrial fibrillation",),
        ("5 mg twice daily", "2.5 mg twice daily"),
    ),
    Case(
        "How should metformin be started and when should it be stopped?",
        ("Type 2 diabetes: starting metformin",),
        ("Start at 500 mg once daily", "stop metformin when eGFR is below 30"),
    ),
    Case(
        "What dose of ibuprofen for a 2 year old?",
        ("Ibuprofen dosing in children",),
        ("100 mg three times daily for 1 to 4 years",),
    ),
    Case(
        "How is a high INR of 9 managed without bleeding?",
        ("Warfarin: managing a high INR",),
        ("1 to 5 mg of oral vitamin K",),
    ),
    Case(
        "Tramadol with sertraline: what are the risks?",
        ("Interaction: SSRIs and tramadol",),
        ("serotonin syndrome", "seizure threshold"),
    ),
    Case(
        "What CHA2DS2-VASc score needs anticoagulation in a man with atrial fibrillation?",
        ("Atrial fibrillation: assessing stroke risk",),
        ("men with a score of 1 or more",),
    ),
    Case(
        "What dose of colchicine for a gout flare?",
        ("Gout: treating a flare",),
        ("500 micrograms two to four times daily", "6 mg per course"),
    ),
    Case(
        "What is the adrenaline dose for anaphylaxis in adults, and how long should they be observed afterwards?",
        ("Anaphylaxis: adrenaline doses", "Anaphylaxis: after the emergency"),
        ("500 micrograms (0.5 mL) for adults", "at least 6 hours"),
    ),
    Case(
        "What is the first-line treatment for H. pylori?",
        ("Helicobacter pylori eradication",),
        ("7-day triple therapy", "amoxicillin 1 g twice daily"),
    ),
    Case(
        "What dose of alendronic acid for osteoporosis and how should it be taken?",
        ("Osteoporosis: bisphosphonates",),
        ("70 mg once weekly", "stay upright for 30 minutes"),
    ),
    Case(
        "Which antibiotic for cellulitis and for how long?",
        ("Cellulitis in adults",),
        ("Flucloxacillin 500 mg to 1 g four times daily for 5 to 7 days",),
    ),
    Case(
        "What dose of sertraline should I start for depression, and when should I review?",
        ("Depression in adults: starting an SSRI",),
        ("sertraline 50 mg daily", "2 weeks after starting"),
    ),
    Case(
        "What is the HbA1c target for someone on a sulfonylurea?",
        ("Type 2 diabetes: HbA1c targets",),
        ("53 mmol/mol",),
    ),
    Case(
        "Can trimethoprim be given with methotrexate?",
        ("Interaction: trimethoprim and methotrexate",),
        ("bone marrow suppression", "The combination should be avoided"),
    ),
    Case(
        "What is the dose of phenoxymethylpenicillin for sore throat?",
        ("Sore throat: FeverPAIN and antibiotics",),
        ("Phenoxymethylpenicillin 500 mg four times daily for 5 to 10 days",),
    ),
    Case(
        "What antibiotic for pyelonephritis?",
        ("Acute pyelonephritis in adults",),
        ("cefalexin 500 mg twice or three times daily for 7 to 10 days",),
    ),
    Case(
        "What is the treatment for severe acute asthma?",
        ("Acute asthma in adults: severity",),
        ("prednisolone 40 to 50 mg daily for at least 5 days",),
    ),
    Case(
        "Can I give ibuprofen to a child with chickenpox?",
        ("Chickenpox in children",),
        ("Do not give ibuprofen or other NSAIDs to children with chickenpox",),
    ),
    Case(
        "What is the treatment for B12 deficiency?",
        ("Vitamin B12 deficiency",),
        ("hydroxocobalamin 1 mg three times a week for 2 weeks",),
    ),
]

CAP = next(c.question for c in CASES if "pneumonia" in c.question)
UNCOVERED = "What is the dose of tamoxifen for breast cancer?"
HALF_COVERED = "What dose of amlodipine is usual, and what is the dose of tamoxifen?"
TOOL_PATH = "What is the blood pressure target for hypertension and how is a gout flare treated?"
MARKERS = re.compile(r"\s*\[\d+\]")


async def _ask_all(home: Path, questions: list[str], **settings: object) -> dict[str, list[Event]]:
    store = await Store.open(home / "hippo.db", seed=DEMO_KB)
    out: dict[str, list[Event]] = {}
    try:
        for q in questions:
            # A fresh engine per question: no follow-up history between unrelated questions.
            engine = await Engine.create(
                Settings(home=home, offline_tokens_per_second=0, **settings), store=store
            )
            try:
                out[q] = await ask_once(engine, q)
            finally:
                await engine.close()
    finally:
        await store.close()
    return out


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Event]]:
    """Every question of this module answered once (the engine is deterministic), in a throwaway data folder."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HIPPO_HOME", str(home))
        questions = [c.question for c in CASES] + [UNCOVERED, HALF_COVERED]
        found = asyncio.run(_ask_all(home, questions))
        found.update(asyncio.run(_ask_all(home, [TOOL_PATH], retrieval_k=1)))
    return found


def _end(events: list[Event]) -> EndEvent:
    end = events[-1]
    assert isinstance(end, EndEvent) and end.outcome == "complete", end
    return end


def _statements(text: str) -> list[str]:
    """The answer cut after each citation marker: each piece must end with one."""
    return [p for p in re.split(r"(?<=\])\s+", text.strip()) if p]


@pytest.mark.parametrize("case", CASES, ids=[c.question[:48] for c in CASES])
def test_answers_cite_the_right_sources_with_the_key_facts(case: Case, answers: dict[str, list[Event]]):
    end = _end(answers[case.question])
    cited = {c.id for c in end.citations}
    assert cited == case.ids, (end.text, [c.title for c in end.citations])
    for fact in case.facts:
        assert fact in end.text, (fact, end.text)
    assert "does not cover" not in end.text
    # Every statement carries its citation, and every citation passed both checks.
    assert all(MARKERS.search(s[-6:]) for s in _statements(end.text)), end.text
    v = end.verification
    assert v.attempted == v.confirmed == v.grounded == len(case.ids), v


def test_answers_are_a_few_sentences_per_part(answers: dict[str, list[Event]]):
    for case in CASES:
        n = len(_statements(_end(answers[case.question]).text))
        assert 1 <= n <= 4 * len(case.cites), (case.question, n)
    # Most answers give the supporting sentences too, not one bare sentence.
    several = sum(len(_statements(_end(answers[c.question]).text)) >= 2 for c in CASES)
    assert several >= 0.8 * len(CASES)


def test_a_referring_sentence_keeps_its_antecedent_and_source_order(answers: dict[str, list[Event]]):
    text = _end(answers[CAP]).text
    # "A score of 0 …" means nothing without the sentence that introduces the CRB-65 score.
    assert text.index("Use the CRB-65 score") < text.index("A score of 0 indicates low severity")
    assert text.count("[1]") == len(_statements(text))  # one source, every sentence cited


def test_a_follow_on_part_inherits_the_subject(answers: dict[str, list[Event]]):
    # "…, and what dose?" is about amoxicillin for pneumonia, already answered: not a separate topic.
    text = _end(answers[CAP]).text
    assert "COPD" not in text and "does not cover" not in text


def test_an_uncovered_question_searches_then_says_so(answers: dict[str, list[Event]]):
    events = answers[UNCOVERED]
    end = _end(events)
    searches = [e for e in events if isinstance(e, ThinkingEvent) and e.phase == "searching"]
    assert len(searches) == 2 and "tamoxifen" in searches[1].text  # it looked again, mid-answer
    assert "does not cover" in end.text and "tamoxifen" in end.text
    assert end.citations == [] and end.verification.attempted == 0


def test_a_half_covered_question_answers_one_part_and_names_the_other(answers: dict[str, list[Event]]):
    end = _end(answers[HALF_COVERED])
    assert {c.title for c in end.citations} == {"Hypertension: choosing the first drug"}
    assert "5 mg once daily" in end.text
    assert "does not cover" in end.text and "tamoxifen" in end.text.split("does not cover", 1)[1]


def test_a_part_not_in_context_is_searched_mid_answer(answers: dict[str, list[Event]]):
    events = answers[TOOL_PATH]
    end = _end(events)
    resets = [e for e in events if isinstance(e, ResetEvent)]
    assert [r.reason for r in resets] == ["tool_call"]
    assert {c.title for c in end.citations} == {"Hypertension: treatment targets", "Gout: treating a flare"}
    assert "below 140/90 mmHg" in end.text and "Colchicine is given as 500 micrograms" in end.text


def test_hippo_tui_ask_prints_the_answer_and_its_one_source(hippo_home: Path, capsys: pytest.CaptureFixture):
    cfg = hippo_home / "config.toml"
    cfg.write_text("offline_tokens_per_second = 0\n")
    code = main(["ask", "warfarin and ibuprofen together?", "--config", str(cfg)])
    out = capsys.readouterr().out
    assert code == EXIT_OK
    answer, citations, summary = out.strip().split("\n\n")
    assert "NSAIDs such as ibuprofen" in answer and "heart failure" not in answer.lower()
    assert citations == "[1] Interaction: warfarin and NSAIDs"
    assert summary.startswith("Verification: 1 cited, 1 confirmed, 1 grounded")


CONVERSATION = [
    ("How do I treat cystitis?", "Uncomplicated cystitis in non-pregnant women", "nitrofurantoin 100 mg"),
    ("What about in pregnancy?", "Urinary tract infection in pregnancy", "Trimethoprim should be avoided"),
    ("And in men?", "Lower urinary tract infection in men", "7-day course of antibiotic"),
    (
        "What is the dose of apixaban in AF?",
        "DOACs: apixaban dosing in atrial fibrillation",
        "5 mg twice daily",
    ),
    ("When should it be reduced?", "DOACs: apixaban dosing in atrial fibrillation", "2.5 mg twice daily"),
]


async def test_follow_up_questions_keep_the_subject_of_the_conversation(hippo_home: Path, store: Store):
    # One conversation: each question goes to the model with the conversation so far, as in the app.
    engine = await Engine.create(Settings(home=hippo_home, offline_tokens_per_second=0), store=store)
    try:
        conversation = await engine.open_conversation()
        for question, title, fact in CONVERSATION:
            end = _end([e async for e in conversation.ask(question)])
            assert [c.title for c in end.citations] == [title], (question, end.text)
            assert fact in end.text and "does not cover" not in end.text
    finally:
        await engine.close()
