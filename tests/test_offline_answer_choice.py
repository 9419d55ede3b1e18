"""Which passage and which sentences the offline answer chooses, for shapes the real corpora showed (a small
knowledge base of our own words): "rule out" asked as a verb, not a named rule; an age in years that is no
duration; a slip of a word of asking that some unrelated passage happens to spell the same way.

Every question runs through the real engine, as `hippo-tui ask` runs it.
"""

from __future__ import annotations

import json

import pytest

from hippo_tui.backends import extractive
from hippo_tui.backends.extractive.answering import _answer_part
from hippo_tui.events import EndEvent
from hippo_tui.prompts import system_message, tool_result
from hippo_tui.verification.markers import cited_ids
from tests.support.asking import answers_over
from tests.support.asking import cited as _cited

PASSAGES = {
    "torsion": (
        "Testis ultrasound › Pitfalls",
        "A normal Doppler ultrasound does not exclude testicular torsion: explore surgically when the story fits.",
    ),
    "legion-bg": (
        "Legionnaires disease › Background",
        "Legionnaires disease is a pneumonia seen most often in smokers and in patients aged over 50 years.",
    ),
    "legion-tx": (
        "Legionnaires disease › Treatment",
        "Azithromycin is the first antibiotic for Legionnaires disease, and the course is 14 days.",
    ),
    "colic": ("Renal colic › Imaging", "A CT scan confirms the stone; treat the pain first."),
}
A, B, C, D = (f"{n}{n * 7}-{n * 4}-4{n * 3}-8{n * 3}-{n * 12}" for n in "1234")
IDS = {key: f"00000000-0000-4000-8000-{i:012d}" for i, key in enumerate(PASSAGES)}

TORSION = "can a normal scan rule out testicular torsion"
LEGION = "legionnaires pneumonia how long do i treat for"
QUESTIONS = [TORSION, LEGION]


class Src:
    def __init__(self, id: str, title: str, excerpt: str) -> None:
        self.id, self.title, self.excerpt = id, title, excerpt


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EndEvent]:
    return answers_over(tmp_path_factory.mktemp("home"), PASSAGES, IDS, QUESTIONS)


def test_rule_out_is_asked_as_a_verb_not_a_named_rule(answers):
    # "scan rule" is no rule a card must name: the card on torsion and ultrasound answers.
    end = answers[TORSION]
    assert "does not exclude testicular torsion" in end.text, end.text
    assert _cited(end) == {IDS["torsion"]}


def test_an_age_in_years_does_not_answer_how_long(answers):
    # "aged over 50 years" is who gets it, not how long to treat: the course comes from the antibiotics card.
    end = answers[LEGION]
    assert "the course is 14 days" in end.text, end.text
    assert IDS["legion-tx"] in _cited(end)


def test_a_slip_of_a_word_of_asking_is_no_subject_even_where_some_passage_spells_it():
    # The search found "befor" in some passage (a card's own slip), so it is not among the words the knowledge
    # base lacks; no source given here uses it: asked, it is "before", not a subject the answer must name.
    tap = Src(
        A, "Ascites › Paracentesis", "Paracentesis is safe without checking the INR or platelets first."
    )
    other = Src(
        B, "Wound care › Dressings", "Leave a clot in a surgical wound alone when changing its dressing."
    )
    question = "do i need to check clotting befor an ascitic tap"
    messages = [
        {"role": "system", "content": system_message("prompt", "CANARY", [tap, other])},
        {"role": "user", "content": question},
    ]
    text = extractive.render(extractive.answer(messages))
    assert text.startswith("Paracentesis is safe without checking the INR"), text
    assert cited_ids(text) == [A]


def _searched(query: str, found: list[Src]) -> list[dict]:
    """The assistant's call of the search tool, and its result."""
    args = json.dumps({"query": query})
    call = {"id": "c1", "type": "function", "function": {"name": "search_kb", "arguments": args}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": tool_result(query, found)},
    ]


def test_a_card_that_names_the_subject_but_not_the_duration_asked_makes_it_search_for_the_duration():
    # Seen on a real card: the passages given were its overview and background; how long to treat was in its
    # section on treatment, which never says the disease's name. The answerer searches for the subject and the
    # facet, as a source heads it, and answers from what that finds.
    overview = Src(A, "Q fever", "Q fever is a pneumonia caught from sheep and goats, with a high fever.")
    treatment = Src(B, "Q fever › Antibiotic treatment", "Doxycycline 100 mg twice daily; duration 14 days.")
    question = "q fever pneumonia, how long do i treat for"
    system = {"role": "system", "content": system_message("prompt", "CANARY", [overview])}
    first = extractive.answer([system, {"role": "user", "content": question}], tools=["search_kb"])
    assert first.search is not None and "duration" in first.search and "fever" in first.search, first.search
    found = _searched(first.search, [treatment])
    second = extractive.answer([system, {"role": "user", "content": question}, *found], tools=["search_kb"])
    text = extractive.render(second)
    assert second.search is None and "duration 14 days" in text and B in cited_ids(text), text


def _answer(question: str, *sources: Src) -> str:
    system = {"role": "system", "content": system_message("prompt", "CANARY", list(sources))}
    return extractive.render(extractive.answer([system, {"role": "user", "content": question}]))


def test_a_section_split_in_two_passages_is_quoted_from_either():
    # Seen on a real card: "Start acetylcysteine if:" and its first rows in the passage retrieval ranked first,
    # the row that answers in the next passage of the same section, given after another document's passage
    # on the same words. Each line is cited to its own passage.
    first = Src(
        A,
        "Paracetamol overdose › Treatment",
        "Activated charcoal within 1 hour of ingestion\nStart acetylcysteine within 8 hours if:\n"
        "A single ingestion of more than 150 mg/kg",
    )
    other = Src(
        C,
        "Poisoning › Drug levels",
        "Take the paracetamol level 4 hours after ingestion; an unknown time of ingestion makes a level hard to read.",
    )
    second = Src(
        B,
        "Paracetamol overdose › Treatment",
        "Time of ingestion unknown and a paracetamol level over 10 mg/L\nSigns of liver injury after an overdose",
    )
    question = "paracetamol overdose, time of ingestion unknown, level is 14 - start acetylcysteine?"
    text = _answer(question, first, other, second)
    assert f"Time of ingestion unknown and a paracetamol level over 10 mg/L. [{B}]" in text, text


def test_an_older_patients_age_finds_the_line_on_the_elderly():
    card = Src(
        A,
        "Diverticulitis › Outpatient treatment",
        "Uncomplicated diverticulitis may be treated at home with oral antibiotics if:\n"
        "The patient can take oral fluids and oral antibiotics\nThe pain is controlled with oral analgesia\n"
        "There are no significant comorbidities at home\nThe patient can get the oral antibiotics at home\n"
        "Still admit patients who are elderly (over 80 years old).",
    )
    text = _answer("85 yo with uncomplicated diverticulitis, ok to treat at home on oral antibiotics?", card)
    assert "Still admit patients who are elderly" in text, text


def test_a_subject_no_source_given_names_is_searched_on_its_own_and_answered_only_from_one_naming_it():
    # Seen on the real corpora: the card that answers ranked seventh for the question's many words; searched on
    # its most telling word alone it ranks first.
    knee = Src(A, "Knee pain › Exercise", "Offer exercise and weight loss to everyone with knee arthritis.")
    hip = Src(B, "Hip pain › Tablets", "Paracetamol tablets help hip arthritis pain for a few weeks.")
    card = Src(
        C, "Knee arthritis › Supplements", "Do not offer glucosamine or chondroitin for knee arthritis."
    )
    question = "do glucosamine tablets help knee arthritis"
    system = {"role": "system", "content": system_message("prompt", "CANARY", [knee, hip])}
    asked = [system, {"role": "user", "content": question}]
    first = extractive.answer(asked, tools=["search_kb"])
    assert first.search == "glucosamine", first.search
    found = extractive.answer([*asked, *_searched("glucosamine", [card])], tools=["search_kb"])
    text = extractive.render(found)
    assert "Do not offer glucosamine" in text and cited_ids(text) == [C], text
    # What that search finds without naming glucosamine answers nothing, however it reweighs the rest.
    other = Src(
        C, "Arthritis › Help at home", "Tablets and aids at home help people with arthritis of the knee."
    )
    missed = extractive.answer([*asked, *_searched("glucosamine", [other])], tools=[])
    assert "does not cover" in extractive.render(missed) and not cited_ids(extractive.render(missed))


def test_a_follow_on_part_is_answered_from_the_section_that_answered_the_part_before(monkeypatch):
    # Seen on a real card: "…, how long to immobilise after reduction" asks about the elbow dislocation; a
    # fracture card's cast covered its words a little better than the dislocation section's sling did.
    elbow = Src(
        A, "Elbow dislocation › Management", "Simple posterior elbow dislocation: reduce under sedation."
    )
    fracture = Src(
        B, "Supracondylar fracture › Management", "After reduction, immobilise in a cast for 3 weeks."
    )
    sling = Src(C, "Elbow dislocation › Management", "After reduction, 1 week in a sling.")
    question = "simple posterior elbow dislocation, how long to immobilise after reduction"
    system = {"role": "system", "content": system_message("prompt", "CANARY", [elbow, fracture, sling])}
    ctx = extractive.Context.from_messages([system, {"role": "user", "content": question}])
    first, follow_on = ctx.parts()
    by_id = {s.id: s for s in ctx.sources}
    ranked = {first.text: [(1.0, by_id[A])], follow_on.text: [(0.73, by_id[B]), (0.72, by_id[C])]}
    monkeypatch.setattr(ctx, "rank_sources", lambda part, among=None: ranked[part.text])
    assert _answer_part(ctx, first, set())[0] == [(elbow.excerpt, A)]
    picked, _lacking = _answer_part(ctx, follow_on, set())
    assert (sling.excerpt, C) in (picked or []) and B not in {sid for _text, sid in picked or []}, picked


def test_a_charts_hr_is_the_hour_asked_about_and_its_line_says_what_its_heading_names():
    # Seen on the real corpora: of two cards that cover the question alike, the one that answers writes "1 hr"
    # in a line that names neither "status" nor "epilepticus": its heading does. The other names status
    # epilepticus in its lines and gives a time, but not the one asked about.
    other = Src(
        A,
        "Fits › The patient who is fitting",
        "Treat for status epilepticus if fits last longer than 30 minutes. Check the glucose within 24 hours.",
    )
    card = Src(
        B,
        "Epilepsy › Status epilepticus",
        "Immediate care if a seizure lasts over 5 minutes or 3 seizures in 1 hr.",
    )
    text = _answer(
        "when does a fit count as status - how many minutes or how many seizures in an hour", other, card
    )
    assert text.startswith("Immediate care if a seizure lasts over 5 minutes") and cited_ids(text)[0] == B, (
        text
    )


def test_a_course_for_another_disease_does_not_answer_how_long_to_treat_the_one_asked_about():
    # Seen on the real corpora: a child's pneumonia card gives a course ("for 5 days") and never names
    # Legionnaires' disease; the card on Legionnaires' disease given gives no duration. The answer is that
    # card's, and the answerer searches for the duration its other passages give.
    child = Src(
        A,
        "Childhood illness › Give amoxicillin for pneumonia",
        "Treat pneumonia in a child with amoxicillin three times daily for 5 days.",
    )
    card = Src(
        B,
        "Legionnaires disease › Background",
        "Legionnaires disease is a pneumonia caught from water systems, seen most often in smokers.",
    )
    question = "legionnaires pneumonia how long do i treat for"
    system = {"role": "system", "content": system_message("prompt", "CANARY", [child, card])}
    first = extractive.answer([system, {"role": "user", "content": question}], tools=["search_kb"])
    text = extractive.render(first)
    assert cited_ids(text) == [B] and "5 days" not in text, text
    assert first.search is not None and "legionnaires" in first.search and "duration" in first.search


def test_monitoring_asked_after_a_drug_is_asked_of_that_drug():
    # "Monitoring" is read as its synonym group's word ("observe"): still a facet of the drug asked about, not a
    # subject of its own that a card on observing head injuries answers.
    start = Src(A, "Lithium in bipolar disorder", "Lithium is the first choice to prevent relapse.")
    levels = Src(
        B, "Lithium in bipolar disorder", "Monitor the serum lithium level every 3 months once stable."
    )
    head = Src(C, "Head injury › Observation", "Monitor the GCS every 30 minutes until it is 15.")
    messages = [
        {"role": "system", "content": system_message("prompt", "CANARY", [head, start, levels])},
        {"role": "user", "content": "lithium for bipolar disorder, and what monitoring?"},
    ]
    text = extractive.render(extractive.answer(messages))
    assert "serum lithium level every 3 months" in text, text
    assert "GCS" not in text, text


def test_worth_is_a_word_of_asking_not_a_subject_a_source_must_name():
    # Seen on the real corpora: "glucosamine for knee arthritis - worth prescribing?" abstained, as if a card
    # had to say "worth": a word of asking whether, as "is it any good", never what the question is about.
    card = Src(
        A, "Osteoarthritis › Supplements", "Do not offer glucosamine or chondroitin for osteoarthritis."
    )
    gout = Src(B, "Gout › Diet", "Advise less beer and red meat to prevent gout.")
    knee = Src(C, "Osteoarthritis › Exercise", "Offer exercise for osteoarthritis of the knee.")
    text = _answer("glucosamine for osteoarthritis - worth prescribing?", card, gout, knee)
    assert text.startswith("Do not offer glucosamine"), text
    assert cited_ids(text) == [A]


def test_a_term_answers_the_everyday_words_its_definition_says():
    # Seen on the real corpora: "… how big does the neck node have to be to count" was answered with the card's
    # other criteria, never its "Cervical lymphadenopathy (> 1.5 cm diameter)": lymphadenopathy is swollen
    # lymph nodes (the lexicon's gloss), which a question may ask about in those words.
    card = Src(
        A,
        "Kawasaki disease › Criteria",
        "Fever for at least 5 days.\nChanges in the lips: redness and cracking.\n"
        "Cervical lymphadenopathy (> 1.5 cm diameter), usually on one side.",
    )
    other = Src(B, "Lymph nodes › Examination", "Feel for lymph nodes in the neck and in the armpit.")
    text = _answer("kawasaki, how big does a swollen lymph node have to be", card, other)
    assert "Cervical lymphadenopathy (> 1.5 cm diameter)" in text and cited_ids(text) == [A], text


def test_a_named_score_is_not_answered_by_what_a_cards_terms_mean():
    # "HEART score" names a tool: a card on a pain score whose "myocardial infarction" means a heart attack does
    # not name it, and the answer says the knowledge base does not cover it.
    card = Src(
        A,
        "Chest pain › Severity",
        "A pain score of 9 or 10 gives no more risk of myocardial infarction than a lower pain score.",
    )
    other = Src(B, "Gout › Diet", "Advise less beer and red meat to prevent gout.")
    text = _answer("HEART score for chest pain - what score is low risk", card, other)
    assert "does not cover" in text and not cited_ids(text), text


# "Osteoarthritis" is arthritis (of the bone, by its combining form, as the judge reads it): a card that says
# "do not offer glucosamine for osteoarthritis" answers "glucosamine for arthritis", alone: not with one on
# septic arthritis that never names glucosamine. "Hypoxic" is defined as its noun, hypoxia, is: low oxygen.
SAID_BY_ITS_TERMS = [
    (
        "glucosamine for arthritis",
        ("Joint pain › Supplements", "Do not offer glucosamine or chondroitin for osteoarthritis."),
        ("Septic arthritis › Knee", "A hot swollen knee is septic arthritis until aspirated."),
    ),
    (
        "bronchiolitis and low oxygen, admit?",
        ("Bronchiolitis › Admission", "Admit an infant who is hypoxic or not feeding."),
        ("Oxygen › Cylinders", "Check the oxygen cylinders every day."),
    ),
    # A title says what its term says, as a line does: the card's lines write only "OA".
    (
        "glucosamine for knee arthritis - worth prescribing?",
        ("Osteoarthritis › Supplements", "Do not offer glucosamine or chondroitin for OA."),
        ("Knee injury › Examination", "A knee effusion after a twisting injury needs an X-ray."),
    ),
]


@pytest.mark.parametrize(("question", "card", "other"), SAID_BY_ITS_TERMS)
def test_a_compound_or_an_adjective_says_what_its_parts_or_its_noun_mean(question, card, other):
    text = _answer(question, Src(A, *card), Src(B, *other))
    assert text.startswith(card[1].split(" or ")[0]), text
    assert cited_ids(text) == [A]


def _answer_after_search(question: str, sources: list[Src], query: str, found: list[Src]) -> str:
    """The answer to ``question`` over ``sources``, after a search for ``query`` that found ``found``."""
    system = {"role": "system", "content": system_message("prompt", "CANARY", sources)}
    messages = [system, {"role": "user", "content": question}, *_searched(query, found)]
    return extractive.render(extractive.answer(messages))


def test_a_word_searched_alone_and_found_only_off_the_subject_is_context_not_the_subject():
    # Seen on the real corpora: no source said "arriving", so it was searched alone; the search found it only in
    # an audit of waiting times, which names nothing else asked. It is the asker's context: the card on the
    # subject answers, as it would have if the word were never searched.
    card = Src(A, "Sickle cell crisis › Analgesia", "Give analgesia within 30 minutes of presentation.")
    other = Src(B, "Asthma › Inhalers", "Check inhaler technique at every review.")
    audit = Src(C, "Clinic audit › Waiting times", "Most patients arriving before 9 am waited over an hour.")
    question = "how quickly should pain relief be given to someone arriving with a sickle cell crisis"
    text = _answer_after_search(question, [card, other], "arriving", [audit])
    assert "within 30 minutes" in text and cited_ids(text) == [A], text


def test_a_word_searched_alone_and_found_nowhere_is_still_required():
    # "Loading" found in no passage: the only card on a vitamin's dose (another vitamin's) does not answer.
    card = Src(
        A, "Vitamin B12 deficiency", "Hydroxocobalamin 1 mg three times a week for vitamin B12 deficiency."
    )
    question = "vitamin D loading dose for deficiency"
    text = _answer_after_search(question, [card], "loading", [])
    assert "does not cover" in text and not cited_ids(text), text


# A card that only seems to answer does not: "Pneumonia Severity Index (PSI)" names a score, not the index at
# the back of a book; "not pregnant" is no pregnancy (seen on the real corpora: "headache with BP 190/115 … not
# pregnant - what do I give stat" was answered from a pre-eclampsia card, the phrase read word by word).
SEEMING = [
    (
        "PSI class I pneumonia - can they go home as an outpatient?",
        (
            "Pneumonia scores › Pneumonia Severity Index (PSI)",
            "PSI class I: under 51 points, 30-day mortality 0.1%, treat as an outpatient.",
        ),
        ("Pneumonia guide › INDEX OF CONDITIONS", "Pneumonia severity, class I, outpatient 51"),
        "treat as an outpatient",
    ),
    (
        "BP 190/115 and not pregnant - what do I give stat",
        ("Hypertension › Severe", "Give amlodipine 10 mg orally stat for a BP of 180/110 or more."),
        (
            "Hypertension in pregnancy › Severe",
            "Give labetalol 200 mg orally stat for a BP of 160/110 or more.",
        ),
        "amlodipine",
    ),
]


@pytest.mark.parametrize(("question", "card", "other", "said"), SEEMING)
def test_the_card_that_answers_is_chosen_over_one_that_only_seems_to(question, card, other, said):
    text = _answer(question, Src(A, *card), Src(B, *other))
    assert said in text and cited_ids(text) == [A], text


def test_an_age_group_of_a_table_does_not_answer_how_soon():
    # Seen on the real corpora: a vitamin A table's "Infants 6–11 months old" row was read as a time, and
    # answered "how soon after delivery should baby go to the breast" over the card on breastfeeding.
    table = Src(
        A,
        "Vitamin A › Dosing by age",
        "Give to the mother at birth if breast fed.\nInfants 6–11 months old: 100 000 units once.\n"
        "Children 12 months to 5 yrs: 200 000 units once.",
    )
    card = Src(
        B,
        "Breastfeeding › Early initiation",
        "Help mothers start breastfeeding within the first hour after delivery.",
    )
    text = _answer("how soon after delivery should baby go to the breast", table, card)
    assert "Help mothers start breastfeeding" in text and cited_ids(text) == [B], text


def test_a_noun_searched_alone_and_found_only_off_the_subject_is_still_the_subject():
    # Seen on new questions: "gastric bypass" was searched alone and found only in a surgical list that names no
    # vitamin. Dropped as context, the question was answered with vitamin D advice for kidney disease.
    card = Src(
        A, "Kidney disease › Vitamins", "Vitamin supplements needed long term in CKD: vitamin D and calcium."
    )
    other = Src(B, "Asthma › Inhalers", "Check inhaler technique at every review.")
    listing = Src(C, "Theatre list › Procedures", "Gastric bypass and sleeve procedures are listed weekly.")
    question = "which vitamin supplements are needed long term after gastric bypass"
    text = _answer_after_search(question, [card, other], "gastric bypass", [listing])
    assert "does not cover" in text and not cited_ids(text), text


def test_a_noun_ending_like_a_participle_searched_alone_is_still_the_subject():
    # "Oxygen" ends as "bitten" does, but it is what the question asks about, not the asker's circumstance.
    card = Src(
        A,
        "Bronchiolitis › Admission",
        "Admit a baby with bronchiolitis who is not feeding or has a high fever.",
    )
    cylinders = Src(C, "Ward stock › Cylinders", "Oxygen cylinders are checked every day.")
    question = "how much oxygen for a baby with bronchiolitis who is not feeding and has a high fever"
    text = _answer_after_search(question, [card], "oxygen", [cylinders])
    assert "does not cover" in text and not cited_ids(text), text


def test_an_everyday_word_searched_alone_is_the_askers_where_a_card_says_the_rest():
    # Seen on the real corpora: no source said "home", so it was searched alone; the search found it under many
    # titles, none on a fever. Where the card on fever in neonates says all the rest, it answers.
    card = Src(
        A,
        "Fever in neonates",
        "An infant aged 28 days or under with a temperature of 38°C or more is admitted for a septic screen.",
    )
    found = [
        Src(B, "Community nursing › Visits", "Home visits are booked every two weeks."),
        Src(C, "Oxygen › Supply", "Home oxygen concentrators are ordered by the clinic."),
        Src(D, "Dialysis › Options", "Home dialysis is peritoneal dialysis overnight."),
    ]
    question = "3 week old temp 38.2 but looks well, admit or send home?"
    text = _answer_after_search(question, [card], "home", found)
    assert "admitted for a septic screen" in text and cited_ids(text) == [A], text


def test_an_everyday_word_searched_alone_is_still_required_where_another_subject_is_missing_too():
    # The kidney card says vitamins and supplements, but neither "bypass" nor "gastric".
    card = Src(A, "Kidney disease › Vitamins", "Vitamin D supplements are given in chronic kidney disease.")
    found = [
        Src(B, "Cardiac surgery › Grafts", "A coronary bypass graft uses a vein from the leg."),
        Src(C, "Vascular surgery › Grafts", "A femoral bypass restores blood flow to the leg."),
        Src(D, "Theatre list › Cases", "Bypass cases are listed on Mondays."),
    ]
    question = "what vitamin supplements does a patient need long term after gastric bypass"
    text = _answer_after_search(question, [card], "bypass", found)
    assert "does not cover" in text and not cited_ids(text), text


def test_prophylactic_is_what_a_card_calls_prophylaxis():
    # Seen on the real corpora: "start prophylactic antibiotics" for a CSF leak missed the card's "antibiotic
    # prophylaxis", read as another word that no source used.
    assert extractive.content_words("antibiotic prophylaxis") <= extractive.content_words(
        "prophylactic antibiotics"
    )


def test_a_source_touching_only_the_circumstances_of_a_treatment_question_does_not_answer_it():
    # Seen on the real corpora: "motion sickness tablets for a ferry trip" was answered with a report on
    # tuberculosis care that names a place called Ferry and patients' trips to hospital. It gives no drug's dose,
    # its title names nothing asked, and it never says motion or sickness: the question is not covered.
    report = Src(
        A,
        "Multi-drug resistant tuberculosis › Care",
        "Patients travel from Tugela Ferry for their medication.\nMonthly trips to hospital are long and costly.",
    )
    shoulder = Src(B, "Shoulder › Examination", "Test the range of motion of the shoulder.")
    nausea = Src(D, "Nausea › Causes", "Nausea has many causes, such as sickness in pregnancy or vertigo.")
    text = _answer("motion sickness tablets for a ferry trip", report, shoulder, nausea)
    assert "does not cover" in text and not cited_ids(text), text
    # A card on the subject that gives no dose still answers from what it says.
    card = Src(
        C, "Motion sickness › Prevention", "Sit facing forward and look at the horizon on a ferry trip."
    )
    text = _answer("motion sickness tablets for a ferry trip", card, report)
    assert cited_ids(text) == [C], text


def test_the_treatment_asked_for_leads_and_the_score_it_refers_to_follows():
    # The demo's "What is the treatment for community-acquired pneumonia?" led with how to work out the score;
    # the line with the treatment leads, and the statement introducing its score still comes with it.
    card = Src(
        A,
        "Community-acquired pneumonia in adults",
        "Use the CRB-65 score to assess pneumonia: confusion, respiratory rate of 30 or more and age 65 or over "
        "each score 1. A score of 0 indicates low severity; amoxicillin 500 mg three times daily for 5 days is "
        "first-line. A score of 2 or more indicates that hospital assessment should be considered.",
    )
    other = Src(B, "Gout › Diet", "Advise less beer and red meat to prevent gout.")
    text = _answer("What is the treatment for community-acquired pneumonia?", card, other)
    assert text.startswith("A score of 0 indicates low severity; amoxicillin"), text
    assert "Use the CRB-65 score" in text and cited_ids(text) == [A], text
