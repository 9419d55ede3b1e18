"""Which of a chosen source's lines the offline answer quotes (each a shape the real corpora showed, in our own
words): a line on the class of the drug asked about; nothing a line shares with a first line that says nothing
of the question; never a line of a table of contents.
"""

from __future__ import annotations

from hippo_tui.verification.markers import cited_ids
from tests.test_offline_answer_choice import A, Src, _answer


def test_a_line_on_the_class_of_the_drug_asked_about_is_part_of_the_answer():
    # The card names sertraline once; what to give when is written of SSRIs, the class sertraline is in.
    card = Src(
        A,
        "Depression in adults › Drug treatment",
        "Mild depression: an SSRI only if it helped before.\n"
        "Severe depression: an SSRI with high intensity psychological therapy.\n"
        "Sertraline is the first line antidepressant, before fluoxetine.\n"
        "Review the patient within 2 weeks.",
    )
    text = _answer("first line antidepressant, sertraline or fluoxetine", card)
    assert "Sertraline is the first line antidepressant" in text, text
    assert "Severe depression: an SSRI with high intensity psychological therapy" in text, text


def test_a_first_line_that_says_nothing_of_the_question_brings_no_lines_of_its_own():
    # Chosen for its title, the passage's lines never speak of gestation: its first line is quoted, but the line
    # that shares only that first line's words ("protocol") is no answer to the question either.
    card = Src(
        A,
        "Maternal cardiac arrest › After a perimortem caesarean section",
        "If not yet started, begin the massive transfusion protocol.\n"
        "Start the protocol for therapeutic hypothermia.\n"
        "Transfer to the intensive care unit.",
    )
    text = _answer(
        "pregnant woman in cardiac arrest, from what gestation does a perimortem caesarean help", card
    )
    assert cited_ids(text) == [A], text
    assert "hypothermia" not in text, text


def test_a_line_of_a_table_of_contents_is_never_quoted():
    # A chapter's first passage opens with its contents, numbered and paged, with no leader dots.
    chapter = Src(
        A,
        "Hospital guidelines › Chapter 9: Infections",
        "9.8 Tick bite fever 9.14\n"
        "Tick bite fever is treated with doxycycline 100 mg twice a day for 7 days.\n"
        "9.9 Typhoid fever 9.16",
    )
    text = _answer("tick bite fever treatment", chapter)
    assert "doxycycline 100 mg twice a day for 7 days" in text, text
    assert "9.14" not in text and "Typhoid" not in text, text


def test_the_drugs_a_lead_in_introduces_answer_which_drug_comes_first():
    # "First line:" stands on a line of its own, the drugs on the next; a later line says "first" and "drugs"
    # too, but names none: the answer to which tablets come first is the line of drugs, with its lead-in.
    card = Src(
        A,
        "Trigeminal neuralgia › Management",
        "First line:\n"
        "Carbamazepine or lamotrigine\n"
        "If the first drug does not help, try the other drugs before referral\n"
        "Consider surgery for pain that does not respond",
    )
    text = _answer("first line tablets for trigeminal neuralgia", card)
    assert "First line: Carbamazepine or lamotrigine" in text, text


def test_a_heading_word_on_its_own_line_names_the_drug_of_the_lines_below_it():
    # The card names the drug once, as a heading; the line below it gives its course. An earlier line gives
    # another drug's course: the answer to how long the heading's drug is given is the line under it, quoted
    # with its heading.
    card = Src(
        A,
        "Gout › Acute attack",
        "Naproxen for the first days\n"
        "Reduce the dose over 1-2 weeks\n"
        "Allopurinol is not started during an attack.\n"
        "Prednisolone\n"
        "If over 60 kg, 30 mg once daily for 5 days",
    )
    text = _answer("how long is prednisolone given for an acute gout attack", card)
    assert "Prednisolone: If over 60 kg, 30 mg once daily for 5 days" in text, text
    assert "Reduce the dose" not in text, text


def test_a_heading_of_a_few_words_brings_the_line_it_heads():
    # Seen on a real card: "CAP Low severity" on a line of its own, the antibiotics in the line below with no
    # dose. The heading matched the question best; quoted alone, it answered nothing.
    card = Src(
        A,
        "Pneumonia › Management",
        "Antibiotics as soon as possible after diagnosis\nCAP Low severity\n"
        "Amoxicillin favoured, doxycycline if penicillin allergic\nReview if no response in 3 days",
    )
    text = _answer("low severity community acquired pneumonia first choice antibiotic", card)
    assert "Amoxicillin favoured, doxycycline if penicillin allergic" in text and cited_ids(text) == [A], text


def test_a_line_giving_the_duration_asked_for_opens_the_answer():
    # Seen in the demo: "how long … steroids … asthma attack" opened with the card's definition of a severe
    # attack, the line before the one that answers.
    card = Src(
        A,
        "Acute asthma in adults",
        "A severe attack includes a peak flow of 33 to 50% of best. Give oral prednisolone 40 mg daily for 5 days.",
    )
    text = _answer("how long should prednisolone be taken for an asthma attack", card)
    assert text.startswith("Give oral prednisolone 40 mg daily for 5 days."), text
