"""A card's line that ends on the study behind it is a statement, not a reference entry: read, and quoted
without the study. Our own words."""

from __future__ import annotations

from hippo_tui.verification.markers import cited_ids
from tests.test_offline_answer_choice import A, B, Src, _answer

INHALERS = Src(
    B, "Asthma › Inhalers", "Check inhaler technique at every review before stepping up treatment."
)


def test_a_statement_ending_on_its_study_is_quoted_without_the_study():
    # Seen on a real card: "Dexamethasone: Reduces severity … (Bjornson et al., NEJM, 2004)" was read as a
    # reference entry for its "et al", and the card's only line naming the drug was never quoted.
    card = Src(
        A,
        "Croup › Treatment",
        "Keep the child calm.\nBudesonide: shortens the illness, even in mild cases (Smith et al., Lancet, 2001)",
    )
    text = _answer("does budesonide help croup", card, INHALERS)
    assert "Budesonide: shortens the illness, even in mild cases." in text, text
    assert "et al" not in text and cited_ids(text) == [A], text
