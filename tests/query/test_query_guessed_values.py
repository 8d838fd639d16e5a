"""A value linked by meaning, not by spelling ("purple" → Blue, "Mercedes" → BMW under the
collection's embedding model), is a guess: an embedding cannot tell a synonym ("veggie" for
vegetarian) from a sibling (another colour, another make). The filter still searches with it,
but nothing computed from it is signed: no listing, no count, no "none match", no ranking, no
yes/no about a named item. A new user's car stock answered "Are there any purple cars?" with
"Yes" and four blue cars, and "Is the 2019 Golf purple?" with "Yes … has colour Blue"."""

from __future__ import annotations

from datetime import date

from selfrag.query import SelfQueryPlanner
from selfrag.query._grounding import clauses
from selfrag.schema import CollectionSchema
from tests.query.word_vectors import WordVectors

CARS = CollectionSchema.model_validate({"description": "Used cars in stock", "attributes": [
    {"name": "model", "type": "string", "description": "model name of the car", "kind": "name"},
    {"name": "colour", "type": "string", "description": "paint colour", "kind": "category"},
    {"name": "year", "type": "integer", "kind": "year", "description": "model year"},
    {"name": "price", "type": "integer", "kind": "money", "description": "asking price in euros"}]})
CATALOGUE = {"model": ["Golf", "Polo"], "colour": ["Blue", "Red"]}
GROUPS = [("purple", "blue"), ("scarlet", "red")]
OWN = {"purple": 0.55, "blue": 0.55, "scarlet": 0.2, "red": 0.2}
"""How far each word stands from its group's direction: purple is near blue (0.77, a sibling's
similarity), scarlet all but one with red (0.96, a synonym's)."""


PLANNER = SelfQueryPlanner(None, mode="rules", today=date(2025, 6, 1), embeddings=WordVectors(GROUPS, OWN))


def _plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, CARS, CATALOGUE)


def test_a_value_linked_by_meaning_still_filters_but_asks_for_nothing_signed() -> None:
    plan = _plan("Are there any purple cars?")
    assert ("colour", "Blue") in {(c.attribute, c.value) for c in clauses(plan.query.filter)}
    assert plan.asks is None
    assert any(c.kind == "guessed_value" and "purple" in c.detail for c in plan.changes)


def test_a_value_linked_by_spelling_is_still_a_listing() -> None:
    assert _plan("Are there any blue cars?").asks == "documents"


def test_a_ranking_over_a_guessed_value_is_not_the_answer() -> None:
    plan = _plan("What is the cheapest purple car?")
    assert plan.computed is not None and not plan.computed.whole


def test_a_yes_no_about_a_named_item_s_guessed_value_is_not_counted() -> None:
    plan = _plan("Is the Golf purple?")
    assert plan.whether is None


def test_the_one_record_a_guessed_value_selects_gives_no_value_of_its_own() -> None:
    # "What is the price of the purple Golf?": the blue Golf's price would be signed.
    from typing import Any

    from workflows._phase import asked_field

    def state(guessed: bool) -> Any:
        where = {"operator": "and", "arguments": [{"attribute": "model", "comparator": "eq", "value": "Golf"},
                                                  {"attribute": "colour", "comparator": "eq", "value": "Blue"}]}
        return {"resource_plans": [{"resource": "cars", "query": "price", "filter": where, "error": None,
                                    "guessed": guessed}],
                "relaxations": [], "standalone_question": "What is the price of the purple Golf?"}

    found = asked_field(state(False), lambda _: CARS)
    assert found is not None and found.name == "price"
    assert asked_field(state(True), lambda _: CARS) is None


def test_a_word_derived_from_a_known_value_is_read_by_spelling_not_guessed() -> None:
    # "Which recalls offered a replacement in 2024?": "replacement" is the remedy Replace, read by
    # its ending, not a guess by meaning (which signs nothing).
    from selfrag.query.rules import read_question

    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "remedy", "type": "string", "kind": "category", "allowed_values": ["Refund", "Replace", "Repair"]},
        {"name": "year", "type": "integer", "kind": "year"}]})
    reading = read_question("Which recalls offered a replacement in 2024?", schema, {}, today=date(2025, 6, 1))
    assert ("remedy", "Replace") in {(c.attribute, c.value) for c in clauses(reading.query.filter)}
    assert not reading.guessed


def test_a_link_as_close_as_a_known_alias_is_no_guess() -> None:
    # "NYC" for New York scores 0.94 under the bundled model, "Mercedes" for BMW 0.77: past the
    # alias floor a link is read as the value it names.
    plan = _plan("Are there any scarlet cars?")
    assert ("colour", "Red") in {(c.attribute, c.value) for c in clauses(plan.query.filter)}
    assert plan.asks == "documents"
    assert not any(c.kind == "guessed_value" for c in plan.changes)
