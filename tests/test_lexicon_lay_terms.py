"""Everyday words for what a source says in clinical terms (the lexicon's lay terms, organ adjectives and
plain-words definitions): a claim in a patient's words is supported by the term, and the lay word never
stands in for another term, nor the clinical term for a wider lay word the source does not say."""

from __future__ import annotations

import pytest

from hippo_tui.verification.offline_judge import judge_claim


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        # A term read as its definition: the pain of kidney stones is renal colic.
        ("Offer an NSAID for the pain of kidney stones.", "Offer an NSAID for renal colic."),
        ("Gallstone pain is treated with an NSAID.", "Biliary colic is treated with an NSAID."),
        # An organ's name and its adjective.
        ("Check the spleen size.", "Check splenic size."),
        ("Tooth extraction is safe on warfarin.", "Dental extraction is safe on warfarin."),
        ("Muscle weakness is common with statins.", "Muscular weakness is common with statins."),
        ("The bowel can become obstructed.", "The intestine can become obstructed."),
        ("Stool softeners are not needed.", "Faecal softeners are not needed."),
        # Lay phrases naming one thing with a term.
        (
            "Anti-sickness medicines are given before chemotherapy.",
            "Antiemetics are given before chemotherapy.",
        ),
        ("Moisturisers should be used every day.", "Emollients should be used every day."),
        ("Premature babies are at risk of hypothermia.", "Preterm infants are at risk of hypothermia."),
        (
            "Offer the vaccine to people with long-term conditions.",
            "Offer the vaccine to chronic conditions.",
        ),
        ("Codeine can build up in kidney failure.", "Codeine can accumulate in renal failure."),
        ("Encourage people to give up smoking.", "Encourage people to stop smoking."),
        ("Carry on breastfeeding during treatment.", "Continue breastfeeding during treatment."),
        ("Stop the drug if symptoms get worse.", "Stop the drug if symptoms deteriorate."),
        ("Stop it if the platelet count drops below 100.", "Stop it if the platelet count falls below 100."),
        ("Chest X-rays are not routinely needed.", "Chest radiographs are not routinely needed."),
        # Everyday words of one meaning.
        ("Bleeding happens in 1 in 100 people.", "Bleeding occurs in 1 in 100 people."),
        ("Nausea is often reported with metformin.", "Nausea is frequently reported with metformin."),
        # A term's plain-words definition (one way: the term says these words).
        ("Simeticone can relieve wind.", "Simeticone can relieve flatulence."),
        ("Clozapine can cause a low white cell count.", "Clozapine can cause leucopenia."),
        ("Methotrexate can cause low platelets.", "Methotrexate can cause thrombocytopenia."),
        ("Refer a child with a lasting hoarse voice.", "Refer a child with persistent dysphonia."),
        ("Isotretinoin can cause liver inflammation.", "Isotretinoin can cause hepatitis."),
        ("NSAIDs can inflame the stomach lining.", "NSAIDs can cause gastritis."),
        ("Arrange a heart scan.", "Arrange an echocardiogram."),
        ("Arrange a camera test of the bowel.", "Arrange a colonoscopy."),
        ("Offer a breathing test to confirm COPD.", "Offer spirometry to confirm COPD."),
        ("Lithium can cause thirst.", "Lithium can cause polydipsia."),
        ("Reduce the dose in kidney problems.", "Reduce the dose in renal impairment."),
        (
            "Offer a statin to people with heart disease.",
            "Offer a statin to people with coronary artery disease.",
        ),
        ("Refer for a hip replacement.", "Refer for hip arthroplasty."),
        ("Inject into the outer thigh.", "Inject into the anterolateral thigh."),
        ("Apply it inside the nose.", "Apply it to the inside of each nostril."),
        ("Give a fluid bolus of 500 mL.", "Give a bolus of 500 mL of crystalloid."),
        ("Mobilise early to prevent blood clots.", "Mobilise early to prevent venous thromboembolism."),
        (
            "Infants should have only breast milk for 6 months.",
            "Infants should be exclusively breastfed for 6 months.",
        ),
        ("Take the temperature under the arm.", "Measure the temperature in the axilla."),
        (
            "Pinch the soft part of the nose for 10 minutes.",
            "Apply firm pressure to the soft part of the nose for 10 minutes.",
        ),
        (
            "Wetting the bed at night is common in young children.",
            "Nocturnal enuresis is common in young children.",
        ),
        ("Kidney stones under 5 mm usually pass.", "Renal calculi under 5 mm usually pass."),
        # Words that only frame what is said.
        (
            "An urgent chest X-ray is offered to look for lung cancer.",
            "Offer an urgent chest X-ray to assess for lung cancer.",
        ),
        (
            "Adults aged 65 and over are eligible for the flu vaccine.",
            "Offer the influenza vaccine to adults aged 65 and over.",
        ),
        (
            "Offer a statin when the 10-year risk reaches 10% or more.",
            "Offer a statin when the 10-year risk is 10% or more.",
        ),
        (
            "A calcium-channel blocker is first-line for high blood pressure at 55 or over.",
            "At 55 and over, offer a calcium-channel blocker as first-line antihypertensive treatment.",
        ),
        ("BCG is injected into the skin of the upper arm.", "BCG is given intradermally in the upper arm."),
        ("Itching of the palms of the hands is typical.", "Pruritus of the palms is typical."),
        ("Check kidney function and electrolytes after a week.", "Recheck U&Es after 1 week."),
        (
            "Do not do a lumbar puncture if intracranial pressure is raised.",
            "Do not perform LP if ICP is raised.",
        ),
        ("Anti-D immunoglobulin is given within 72 hours.", "Anti-D Ig is given within 72 hours."),
        (
            "The live vaccine is contraindicated if immunocompromised.",
            "The live vaccine is contraindicated if immunosuppressed.",
        ),
        ("Continue until their baby is born.", "Continue until the birth of the baby."),
        ("The first dose is given at 12 months.", "The 1st dose is given at 12 months."),
    ],
)
def test_a_claim_in_everyday_words_is_supported_by_the_clinical_term(claim: str, excerpt: str) -> None:
    assert judge_claim(claim, excerpt).supported, judge_claim(claim, excerpt)


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        # A definition is one way: the lay words do not say the term.
        ("Offer an NSAID for renal colic.", "Offer an NSAID for kidney stones."),
        ("Arrange an echocardiogram.", "Arrange a heart scan."),
        ("Arrange a colonoscopy.", "Arrange a camera test of the bowel."),
        ("Gastritis can be caused by NSAIDs.", "Inflammation of the stomach lining can be caused by NSAIDs."),
        ("Reduce the dose in renal impairment.", "Reduce the dose in kidney problems."),
        (
            "Offer a statin to people with coronary artery disease.",
            "Offer a statin to people with heart disease.",
        ),
        ("Tremor is a side effect.", "Shaking is a side effect."),
        # A definition says its own organ, direction and thing, never a neighbour's.
        ("Simeticone can relieve abdominal pain.", "Simeticone can relieve flatulence."),
        ("Clozapine can cause a high white cell count.", "Clozapine can cause leucopenia."),
        ("Methotrexate can cause high platelets.", "Methotrexate can cause thrombocytopenia."),
        ("Isotretinoin can cause kidney inflammation.", "Isotretinoin can cause hepatitis."),
        ("Arrange a heart scan.", "Arrange a colonoscopy."),
        ("Refer a child with a lasting hoarse voice.", "Refer a child with persistent dysphagia."),
        ("Lithium can cause thirst.", "Lithium can cause polyuria."),
        ("Stop the drug if symptoms improve.", "Stop the drug if symptoms deteriorate."),
        ("Nausea is rarely reported with metformin.", "Nausea is frequently reported with metformin."),
        ("Stop it if the platelet count rises above 100.", "Stop it if the platelet count falls below 100."),
        ("Inject into the inner thigh.", "Inject into the anterolateral thigh."),
        # A word a definition leaves to the source: "breastfed" does not say how other infants are fed.
        ("Formula-fed infants need vitamin D.", "Breastfed infants need vitamin D."),
        ("Take the temperature in the mouth.", "Measure the temperature in the axilla."),
        (
            "Daytime wetting is common in young children.",
            "Nocturnal enuresis is common in young children.",
        ),
        ("The second dose is given at 12 months.", "The 1st dose is given at 12 months."),
        ("BCG is injected under the skin of the upper arm.", "BCG is given intradermally in the upper arm."),
    ],
)
def test_a_lay_word_never_stands_in_for_what_the_source_does_not_say(claim: str, excerpt: str) -> None:
    assert not judge_claim(claim, excerpt).supported, judge_claim(claim, excerpt)
