"""Search forgives a clinician's wording: UK/US spelling, word forms, abbreviations and lay words."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippo_tui.models import Source
from hippo_tui.store import Store
from hippo_tui.store.open import open_postgres
from hippo_tui.store.wording import fold, fold_signature, numbered, search_terms, snippet
from tests.support.passages import store_of

PASSAGES = {
    "stroke": ("Stroke › Acute care", "Give aspirin 300 mg once a haemorrhage has been excluded in acute ischemic stroke."),
    "lysis": ("Stroke › Reperfusion", "Thrombolytics are given within 4.5 hours of onset when no bleed is seen."),
    "art": ("South African ART guideline", "Infants of unknown exposure receive NVP prophylaxis for six weeks."),
    "ors": ("Diarrhoea › Plan B", "Give oral rehydration solution 75 ml/kg over four hours."),
    "teeth": ("Dental trauma", "Avulsed permanent teeth are replanted; primary teeth are never replanted."),
    # Lay terms' passages, each with another passage holding the question's other words.
    "neuropathic": ("Neuropathic pain › Management", "Offer amitriptyline, duloxetine, gabapentin or pregabalin."),
    "open": ("Open fractures › Antibiotics", "Cefazolin within the hour for every open fracture."),
    "anaphylaxis": ("Anaphylaxis › Adrenaline", "Adrenaline 0.5 mg intramuscular, repeated after five minutes."),
    "coc": ("Postpartum contraception", "Combined oral contraceptives from 21 days after birth if not breastfeeding."),
    "nerve": ("Nerve conduction studies", "Nerve studies need no tablets stopped beforehand."),
    "fracture": ("Fracture clinic › Tibia", "A tibia fracture in plaster is seen again at one week."),
    "reaction": ("Dental block › Reaction", "An adult reaction to the adrenaline in a dental block: palpitations."),
    "pill": ("Pill esophagitis", "A pill taken lying down may start ulcers after a delivery of many doses."),
    "mother": ("Rubella › Mother", "A mother found not immune is vaccinated after the birth."),
    "child": ("Rubella › Child", "A child with rubella stays off nursery; vaccinate the contacts."),
    "gastroenteritis": ("Gastroenteritis in children", "Oral rehydration solution, 50 ml/kg over four hours."),
    "reflux": ("Gastro-oesophageal reflux in children", "Gastro-oesophageal reflux in infants rarely needs tests."),
    "oa": ("Osteoarthritis › Management", "Exercise and weight loss first; do not offer glucosamine."),
    "bv": ("Vaginal discharge › Treatment", "Metronidazole 400 mg twice daily for seven days."),
    "breech": ("Breech presentation", "External cephalic version is offered from 37 weeks."),
    "clinic": ("Baby clinic", "A baby is weighed at 6 weeks, at 10 weeks and at 14 weeks; try to attend each."),
    "preterm": ("Preterm infants › Feeding", "Cup feeding until the infant can suckle at the breast."),
    "demand": ("Feeding › On demand", "Feed the baby on demand; a baby who is not able to suckle is seen."),
}  # fmt: skip


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = await store_of(tmp_path / "hippo.db", PASSAGES.values())
    yield s
    assert await s.integrity_check() == "ok"
    await s.close()


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("aspirin after acute ischaemic stroke", "stroke"),  # UK spelling, US text
        ("once hemorrhage is excluded", "stroke"),  # and the other way round: the text is UK here
        ("thrombolysis", "lysis"),  # a noun finds its adjective
        ("prophylaxis for babies in South Africa", "art"),  # a place finds its people
        ("nevirapine for an infant of unknown exposure", "art"),  # the full name finds the abbreviation
        ("how much ORS for diarrhoea", "ors"),  # the abbreviation finds the full name, and is not "or"
        ("should a knocked out tooth be replanted", "teeth"),  # an irregular plural
        ("first line tablets for nerve pain", "neuropathic"),  # a lay term
        ("compound fracture of the tibia, which antibiotic", "open"),
        ("IM adrenaline dose, adult anaphylactic reaction", "anaphylaxis"),
        ("when can she start the combined pill after delivery", "coc"),
        ("mum with rubella, vaccinate when?", "mother"),
        ("how much ORS for a child with gastro", "gastroenteritis"),  # a clinician's shorthand for the illness
        ("arthritis of the knee", "oa"),  # osteoarthritis is a kind of arthritis
        ("how long is flagyl given", "bv"),  # a brand name finds the medicine
        ("baby still bum first at 36 weeks, when do we try turning it", "breech"),  # lay words for breech
        ("prem baby not able to suckle yet, how to feed", "preterm"),  # the UK shorthand for preterm
    ],
)
async def test_a_question_finds_its_passage_in_other_words(store: Store, question: str, wanted: str) -> None:
    hits = await store.search(question, k=1)
    assert hits and hits[0].title == PASSAGES[wanted][0], [h.title for h in hits]


async def test_the_snippet_marks_the_passage_own_words(store: Store) -> None:
    (hit,) = await store.search("ischaemic stroke", k=1)
    assert "«ischemic» «stroke»" in hit.snippet  # as the passage spells it, not as the index folds it


def test_index_and_question_meet_in_one_form() -> None:
    assert fold("Ischaemic HAEMORRHAGE") == fold("ischemic hemorrhage")
    assert fold(None) is None
    assert fold("anaphylactic prophylactic diagnostic") == fold("anaphylaxis prophylaxis diagnosis")
    assert fold("diagnoses metastases traumatic asthmatic anaesthetic dosage") == fold(
        "diagnosis metastatic trauma asthma anaesthesia dose"
    )
    # "Inflammatory bowel disease" is a name: "inflammation" does not find it.
    assert fold("inflammatory") != fold("inflammation")
    assert fold("breastfed breastfeeds was fed") == fold("breastfeeding breastfeeding was feeding")
    # Every term is a phrase of plain words: quoting it can never make query syntax.
    for term in search_terms('NEAR(a b) "x* OR title:y -z ^q'):
        assert term.replace(" ", "").isalnum()


def test_a_snippet_cuts_to_the_densest_window_with_ellipses() -> None:
    text = " ".join(["filler"] * 40) + " warfarin target INR 2.5 " + " ".join(["filler"] * 40)
    cut = snippet(text, search_terms("warfarin INR"), width=10)
    assert cut.startswith("…") and cut.endswith("…")
    assert "«warfarin» target «INR»" in cut and len(cut.split()) <= 10


def test_of_two_windows_as_good_the_snippet_quotes_the_one_that_starts_a_sentence() -> None:
    text = (
        "For adults of African family origin a calcium-channel blocker such as amlodipine is the usual "
        "first-line drug. Amlodipine is commonly started at 5 mg once daily."
    )
    cut = snippet(text, search_terms("amlodipine start dose"), width=12)
    assert cut == "…«Amlodipine» is commonly «started» at 5 mg once daily."


async def _fold_as_an_older_release(s: Store) -> None:
    """The index as a release with other folding rules left it: words unfolded, another signature."""
    db = s.db
    await db.execute("INSERT INTO sources_fts (sources_fts) VALUES ('delete-all')")
    await db.execute(
        "INSERT INTO sources_fts (rowid, title, excerpt, body) "
        "SELECT rowid, lower(title), lower(excerpt), lower(coalesce(body, '')) FROM sources WHERE status = 'active'"
    )
    await db.execute("UPDATE meta SET value = 'an-older-release' WHERE key = 'fold'")


async def test_an_index_folded_by_other_rules_is_rebuilt_on_opening(store: Store) -> None:
    await _fold_as_an_older_release(store)
    assert not await store.search("thrombolysis", k=1)  # the stale index misses it
    again = await Store.open(store.path, seed=None)
    try:
        hits = await again.search("thrombolysis", k=1)
        assert hits and hits[0].title == PASSAGES["lysis"][0]
        # Retiring deletes the row from the index by its folded text: sound only on a rebuilt index.
        await again.retire(hits[0].id, "replaced")
        assert await again.integrity_check() == "ok"
        assert await again.get_meta("fold") == fold_signature()
    finally:
        await again.close()


async def test_a_postgres_index_folded_by_other_rules_is_folded_again(pg_url: str) -> None:
    s = await open_postgres(pg_url, seed=None)
    title, excerpt = PASSAGES["lysis"]
    await s.upsert([Source(id="00000000-0000-4000-8000-000000000001", title=title, excerpt=excerpt)])
    async with s._transaction() as db:  # as an older release folded it: "thrombolytics" whole
        await db.execute("UPDATE sources SET tsv = to_tsvector('simple', lower(excerpt)), tsv_stale = false")
        await db.execute("UPDATE meta SET value = 'an-older-release' WHERE key = 'fold'")
    assert not await s.search("thrombolysis", k=1)
    await s.close()
    async with await open_postgres(pg_url, seed=None) as again:
        hits = await again.search("thrombolysis", k=1)
        assert hits and hits[0].title == PASSAGES["lysis"][0]


def test_uk_spelling_rules_leave_words_that_only_look_uk_alone() -> None:
    from hippo_tui.verification.lexicon import spelling

    assert [spelling(w) for w in ("oedema", "oesophagus", "diarrhoea", "coeliac", "foetus")] == [
        "edema", "esophagus", "diarrhea", "celiac", "fetus"
    ]  # fmt: skip
    # "does" read as "des" was a word of its own, so "how much does X lower Y" asked about "des".
    assert [spelling(w) for w in ("does", "goes", "shoe", "toes")] == ["does", "goes", "shoe", "toes"]


def test_a_drug_is_searched_by_its_other_names_and_everyday_words_are_not_searched() -> None:
    # A US card writes "albuterol" where a UK clinician types "salbutamol" (and the other way round).
    assert "albuterol" in search_terms("nebulised salbutamol for hyperkalaemia")
    assert "acetaminophen" in search_terms("paracetamol overdose")
    # "count", "much" and "many" name nothing a passage is about; the subject's words stay.
    got = search_terms("when does a fit count as status, how many minutes and how much diazepam")
    assert {"count", "much", "mani", "many"} & set(got) == set()
    assert {"fit", "status", "diazepam"} <= set(got)


def test_a_drugs_other_names_are_the_ones_its_classes_name() -> None:
    # The drug names the lexicon's classes name, asked of all classes at once (``_all_classes``): the same
    # answer as asking each class, for every word the lexicon has and for names only a class's stem gives.
    from hippo_tui.store.wording import _all_classes
    from hippo_tui.verification.lexicon import lexicon

    lex = lexicon()
    words = {w for phrase in (*lex.replacements, *lex.replacements.values()) for w in phrase.split()}
    words |= {f"{p}zzzz" for c in lex.classes for p in c.prefixes} | {f"zz{s}" for c in lex.classes for s in c.suffixes}
    words |= {m for c in lex.classes for m in c.members} | {"aspirin", "zzzzzz", "olol"}
    in_a_class = _all_classes(lex.classes).has
    assert {w for w in words if in_a_class(w)} == {w for w in words if lex.drug_classes(w)}
    assert any(in_a_class(w) for w in words) and not all(in_a_class(w) for w in words)


def test_ages_read_as_the_group_they_name() -> None:
    from hippo_tui.verification.ages import as_groups, stated_groups

    assert as_groups("a 6 week old with a cough") == "a infant with a cough"
    assert stated_groups("a 62 yo man") == {"adults"} and stated_groups("aged 4") == {"children"}
    assert stated_groups("10 mg for 5 days") == set()  # a duration is no age


@pytest.mark.parametrize(
    ("question", "passages"),
    [
        # Both passages have "type", "1" and "HbA1c"; only one says "type 1", the other has more of the words.
        ("HbA1c target for type 1 diabetes", {
            "Type 1 diabetes › Monitoring": "Aim for an HbA1c of 48 mmol/mol or lower.",
            "Type 2 diabetes › HbA1c targets": "Aim for an HbA1c target of 48; review the target every 1 to 3 months.",
        }),
        # A letter names which one too: "plan C" (not "a" nor "i", which are words).
        ("IV fluid plan C", {
            "Dehydration › Severe": "Plan C: give IV fluid 20 ml/kg quickly, before referral.",
            "Dehydration › Plan B":
                "IV fluid is not needed in plan B; give ORS by mouth, with vitamin C, and IV fluid only if plan B fails.",
        }),
    ],
)  # fmt: skip
async def test_a_word_and_what_names_which_one_are_searched_together(
    tmp_path: Path, question: str, passages: dict[str, str]
) -> None:
    s = await store_of(tmp_path / "hippo.db", passages.items())
    try:
        hits = await s.search(question, k=2)
    finally:
        await s.close()
    assert [h.title for h in hits] == list(passages)


def test_what_names_which_one_is_a_number_or_a_letter_but_not_a_word() -> None:
    assert list(numbered("type 1 or type II diabetes, hepatitis b, a plan a, i know")) == ["type 1", "hepatitis b"]
    # A count after a word names nothing, though searching it as a phrase still helps rank ("aspirin 300 mg").
    assert list(numbered("bitten by a dog 3 days ago, type 1", names_only=True)) == ["type 1"]
    assert "aspirin 300" in numbered("aspirin 300 mg")


async def test_a_non_word_is_not_the_word_it_negates(tmp_path: Path) -> None:
    passages = [
        ("Hypertension › Advice", "Avoid non-steroidal anti-inflammatory drugs; they raise the pressure."),
        ("Angioedema › Treatment", "Steroids and antihistamines do not help; give adrenaline for stridor."),
    ]
    s = await store_of(tmp_path / "hippo.db", passages)
    try:
        steroids = [h.title for h in await s.search("will steroids help a swollen tongue", k=2)]
        nsaids = [h.title for h in await s.search("which non steroidal drugs raise the pressure", k=2)]
        unmentioned = await s.unmentioned("non-steroidal drugs and pressure")
    finally:
        await s.close()
    assert steroids == ["Angioedema › Treatment"]  # "non-steroidal" says nothing of steroids
    assert nsaids[0] == "Hypertension › Advice"  # typed with a space or a hyphen, it is one word
    assert unmentioned == []
