"""A question's words as a tired clinician types them: a contraction's ending and a unit glued to its number
are not words a search should look for."""

from __future__ import annotations

from hippo_tui.store.query import terms
from hippo_tui.store.wording import search_terms


def test_a_contraction_ending_is_no_word_of_the_question() -> None:
    assert terms("face droop, can't close eye") == ["face", "droop", "close", "eye"]
    assert terms("kid's ear infection, won't settle") == ["kid", "ear", "infection", "settle"]
    assert terms("they’re sure it isn’t sepsis") == ["sure", "sepsis"]
    # Not "can t" as a name, like "plan c" or "hepatitis b".
    assert "can t" not in search_terms("can't close eye")


def test_a_unit_glued_to_its_number_is_read_as_a_unit() -> None:
    assert terms("first line for 45yo man, 80kg") == ["first", "line", "45", "yo", "man", "80", "kg"]
    assert "year old" in search_terms("BP in a 45yo")  # "yo" is the lexicon's "year old"
    assert terms("2nd line after 3rd dose") == ["2nd", "line", "3rd", "dose"]  # an ordinal stays whole
