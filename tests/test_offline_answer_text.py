"""What the offline answer quotes from a real document's passages (each case a shape the real corpora showed, in
a small knowledge base of our own words): the row of a flattened chart that answers, not the chart; a sentence
without the heading run into it; never a reference entry, a table of contents or a table's header row; a
question's word in the form a card does not use ("dislocated" for "dislocation"); a slip of a word of asking
("wich"); a card on the type of a condition that was asked about.

Every question runs through the real engine, as `hippo-tui ask` runs it.
"""

from __future__ import annotations

import pytest

from hippo_tui.backends.asked import PART_CHARS
from hippo_tui.events import EndEvent
from tests.support.asking import answers_over
from tests.support.asking import cited as _cited

CHART = (
    "Box 3: Feeding a baby whose mother has hepatitis B "
    "» Give the baby hepatitis B immunoglobulin within 12 hours of birth "
    "» Start the hepatitis B vaccine course at birth, before discharge "
    "» Breastfeeding may continue: the virus is not passed on in breast milk once the baby is vaccinated "
    "» Test the baby for the surface antigen at 9 months, after the course is complete "
    "» Refer a mother with a high viral load to the hepatology clinic in the third trimester"
)
CROUP = [
    "Give every child with croup a single dose of oral dexamethasone 0.15 mg/kg, whatever its severity, as soon "
    "as croup is recognised in the emergency department or the surgery.",
    "A child with croup who cannot swallow the dexamethasone tablet may be given nebulised budesonide 2 mg "
    "instead, which works as well for croup but costs more and takes longer to give.",
    "Dexamethasone for croup shortens the illness and lowers the rate of return visits; a second dose of "
    "dexamethasone is rarely needed, and only when croup symptoms come back the next day.",
    "Dexamethasone in croup is safe in a child with chickenpox contact, although a child on long courses of "
    "oral steroids should be discussed with a senior before dexamethasone is given for croup.",
]
PASSAGES = {
    "chart": ("Hepatitis B in pregnancy › Care of the baby", CHART),
    "gout": (
        "Gout › Acute attack",
        "CHAPTER 12 MUSCULOSKELETAL CONDITIONS Colchicine 500 micrograms two to four times a day treats an acute "
        "attack of gout, up to 6 mg per course.\n"
        "1. Harrison TP, Okafor N, et al. Colchicine in acute gout. Rheumatology 2011;50:1234-9.\n"
        "2. Lindqvist M. Gout management in colchicine users. doi:10.1000/gout.2014",
    ),
    "gout-refs": (
        "Gout guideline › References",
        "Colchicine dosing in acute gout attacks: a review of colchicine trials in gout",
    ),
    "contents": (
        "Rheumatology handbook › Contents",
        "Colchicine for acute gout .......... 14\nAllopurinol for gout prevention .......... 15",
    ),
    "thanks": (
        "Rheumatology handbook › Appendix 2",
        "Appendix 2 Acknowledgements The gout chapters were revised with funding from the Arthritis Trust, and many "
        "rheumatologists contributed to the revision.",
    ),
    "painscore": (
        "Chest pain › Pain assessment",
        "A pain score of 1 to 3 in chest pain is low risk, and the patient may be discharged with simple analgesia.",
    ),
    "hf": ("Heart failure › Diuretics", "Furosemide 40 mg orally each morning for heart failure with fluid overload."),
    "cystitis": (
        "Cystitis in women › Antibiotics",
        "Uncomplicated cystitis in women, antibiotic options:\nNitrofurantoin 100 mg twice a day for 5 days (first "
        "choice)\nFosfomycin 3 g as a single dose (when nitrofurantoin cannot be used)",
    ),
    "drtb": (
        "Drug-resistant TB › ARVs with the TB regimen",
        "Check the viral load before the TB regimen starts.\nDo not give BDQ with efavirenz: switch efavirenz to "
        "dolutegravir first.\nKey: LZD: Linezolid / BDQ: Bedaquiline / VL = Viral load / TDF = Tenofovir / "
        "DTG = Dolutegravir",
    ),
    "arv": ("Antiretrovirals in pregnancy", "Efavirenz 600 mg at night is started with the other ARVs after the first trimester."),
    "elbow": (
        "Elbow injuries › Elbow dislocation",
        "Simple posterior elbow dislocation: closed reduction, then 1 week in a sling before early movement.",
    ),
    "patella": (
        "Knee injuries › Patella dislocation",
        "After reduction of a patella dislocation, immobilise the knee in a brace for 3 weeks.",
    ),
    "crisis": (
        "Sickle cell crisis › Choice of analgesia",
        "In a sickle cell crisis the analgesia is an opioid, by mouth or by injection, chosen with the patient.",
    ),
    "pain": (
        "Sickle cell disease › Acute pain",
        "Offer analgesia within 30 minutes of arrival to anyone with an acute painful sickle cell episode.",
    ),
    "table": (
        "Lyme disease › Treatment",
        "Erythema Migrans Carditis Arthritis Neuroborreliosis Doxycycline Amoxicillin Ceftriaxone Lyme Course Length\n"
        "In pregnancy, treat Lyme disease with amoxicillin 500 mg three times a day for 14 days.",
    ),
    "shoulder": (
        "Shoulder injuries › Shoulder dislocation",
        "Reduce an anterior dislocation within 2 hours where the arm has no neurovascular deficit.",
    ),
    "dt": (
        "Alcohol withdrawal › Delirium tremens",
        "Delirium tremens: the benzodiazepine is oral lorazepam 2 mg, repeated every 2 hours.",
    ),
    "t2": (
        "Type 2 diabetes › Monitoring",
        "Agree an HbA1c target of 48 mmol/mol with each adult; people with type 1 diabetes are followed elsewhere.",
    ),
    "t1": ("Type 1 diabetes › Monitoring", "Aim for an HbA1c of 48 mmol/mol or lower, measured every 3 months."),
    "croup": ("Croup › Dexamethasone", " ".join(CROUP)),
}  # fmt: skip
IDS = {key: f"00000000-0000-4000-8000-{i:012d}" for i, key in enumerate(PASSAGES)}

VACCINE = "baby of a mother with hepatitis b - can she continue breastfeeding"
GOUT = "colchicine dose for an acute gout attack"
LYME = "lyme disease treatment in pregnancy"
SHOULDER = "dislocated shoulder, how quickly must it be reduced"
DT = "delirium tremens wich benzodiazepine"
HBA1C = "HbA1c target in type 1 diabetes"
CROUP_DOSE = "dexamethasone dose for croup in a child"
FUNDING = "who funded the revision of the gout chapters"
HEART = "HEART score for chest pain - what score is low risk for discharge"
CYSTITIS = "antibiotic options for uncomplicated cystitis in women"
BDQ = "patient starting bedaquiline - can he take efavirenz"
ELBOW = "simple posterior elbow dislocation, how long to immobilise after reduction"
SICKLE = "sickle cell crisis how quickly should analgesia be given"
QUESTIONS = [
    VACCINE,
    GOUT,
    LYME,
    SHOULDER,
    DT,
    HBA1C,
    CROUP_DOSE,
    FUNDING,
    HEART,
    CYSTITIS,
    BDQ,
    ELBOW,
    SICKLE,
]


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EndEvent]:
    return answers_over(tmp_path_factory.mktemp("home"), PASSAGES, IDS, QUESTIONS)


def test_a_flattened_chart_is_answered_by_its_row_not_quoted_whole(answers):
    end = answers[VACCINE]
    assert "Breastfeeding may continue" in end.text, end.text
    assert _cited(end) == {IDS["chart"]} and not end.coverage.unbacked
    # The rows on other matters stay out: the answer is a few lines, not the box.
    assert "Refer a mother with a high viral load" not in end.text
    assert "»" not in end.text and len(end.text) < len(CHART)


def test_an_answer_quotes_the_sentence_without_its_heading_or_the_reference_list(answers):
    end = answers[GOUT]
    assert "Colchicine 500 micrograms two to four times a day" in end.text, end.text
    assert "CHAPTER 12" not in end.text
    assert "et al" not in end.text and "doi" not in end.text and "Rheumatology 2011" not in end.text
    # A references section and a table of contents name the subject too, and are never cited.
    assert _cited(end) == {IDS["gout"]}, end.text
    assert "....." not in end.text


def test_a_documents_acknowledgements_are_not_an_answer(answers):
    end = answers[FUNDING]
    assert "Acknowledgements" not in end.text and "Arthritis Trust" not in end.text, end.text
    assert not end.citations


def test_a_named_score_is_not_answered_by_a_card_on_another_score(answers):
    # The pain score card shares "score", "chest pain", "low" and "discharge", but never names the HEART score.
    end = answers[HEART]
    assert not end.citations and "does not cover" in end.text, end.text


def test_list_lines_ending_in_a_bracket_are_each_checked_and_backed(answers):
    end = answers[CYSTITIS]
    assert "Nitrofurantoin 100 mg twice a day for 5 days" in end.text and "Fosfomycin 3 g" in end.text, (
        end.text
    )
    # Each line is its own statement, backed by the card: the bracket that ends one does not run it into the next.
    assert _cited(end) == {IDS["cystitis"]} and not end.coverage.unbacked, end.text
    assert end.coverage.statements == end.text.count("[1]") >= 2, end.text
    # A lead-in keeps its colon and reads on into its first line, as one statement.
    assert "antibiotic options: Nitrofurantoin" in end.text


def test_a_cards_key_to_its_abbreviations_is_read_not_quoted(answers):
    # The card writes "BDQ" and spells it out only in its key: the answer is the card's line on BDQ.
    end = answers[BDQ]
    assert "Do not give BDQ with efavirenz" in end.text, end.text
    assert "Key:" not in end.text and "Linezolid" not in end.text and "600 mg at night" not in end.text


def test_a_later_part_naming_no_subject_of_its_own_asks_about_the_first(answers):
    # "how long to immobilise after reduction" names nothing a card is about: it asks about the elbow, and the
    # knee card that says "immobilise" and "reduction" does not answer it.
    end = answers[ELBOW]
    assert "1 week in a sling" in end.text and _cited(end) == {IDS["elbow"]}, end.text
    assert "3 weeks" not in end.text


def test_how_quickly_asks_for_a_time_as_how_long_does(answers):
    end = answers[SICKLE]
    # The card that gives a time answers first (the one on the choice of drug, which gives none, may follow).
    assert end.text.startswith("Offer analgesia within 30 minutes of arrival"), end.text
    assert end.citations[0].id == IDS["pain"]


def test_a_tables_header_row_is_not_quoted(answers):
    end = answers[LYME]
    assert "amoxicillin 500 mg three times a day for 14 days" in end.text, end.text
    assert "Erythema Migrans Carditis" not in end.text


def test_a_word_in_another_form_than_the_cards_is_its_word(answers):
    # "dislocated" and "reduced" where the card says "dislocation" and "Reduce".
    end = answers[SHOULDER]
    assert "within 2 hours" in end.text and _cited(end) == {IDS["shoulder"]}, end.text
    assert "does not cover" not in end.text


def test_a_slip_of_a_word_of_asking_is_not_a_subject_the_knowledge_base_lacks(answers):
    end = answers[DT]
    assert "lorazepam 2 mg" in end.text and _cited(end) == {IDS["dt"]}, end.text
    assert "does not cover" not in end.text


def test_a_card_on_another_type_of_the_condition_does_not_answer(answers):
    end = answers[HBA1C]
    assert _cited(end) == {IDS["t1"]}, end.text
    assert "every 3 months" in end.text


def test_an_answer_is_a_few_lines_not_the_whole_card(answers):
    # Every sentence of the card is on dexamethasone for croup; the answer is the dose and a little more.
    end = answers[CROUP_DOSE]
    assert "0.15 mg/kg" in end.text and _cited(end) == {IDS["croup"]}, end.text
    assert len(end.text) <= PART_CHARS + 100 < len(" ".join(CROUP)), end.text
    for q in QUESTIONS:
        assert len(answers[q].text) <= PART_CHARS + 200, (q, answers[q].text)
