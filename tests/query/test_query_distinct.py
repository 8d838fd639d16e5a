""""How many towns …?" of records kept one per town and year counts towns: the distinct values of
the word attribute it names, among what the filter selects. A count of the collection's own items,
or of an identifier, is still the count of records."""

from __future__ import annotations

from datetime import date

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.schema import CollectionSchema

RAIN = CollectionSchema.model_validate({"description": "Yearly rainfall records per town", "attributes": [
    {"name": "town", "type": "string", "description": "The town's name", "kind": "name"},
    {"name": "region", "type": "string", "description": "Region of the town", "kind": "category",
     "allowed_values": ["north", "coast", "south"]},
    {"name": "record_id", "type": "string", "description": "identifier of the record", "kind": "identifier"},
    {"name": "year", "type": "integer", "description": "Year of the record"},
    {"name": "rain_mm", "type": "float", "description": "Total rainfall in millimetres"}]})
CATALOGUE = {"town": ["Ostby", "Kelbridge", "Rudstone"]}
PLANNER = SelfQueryPlanner(None, mode="rules")


def _plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, RAIN, CATALOGUE, today=date(2025, 6, 1))


@pytest.mark.parametrize("question", [
    "How many coast towns are there?",
    "How many towns are in the north region?",
    "How many towns got more than 900 mm in 2022?",
])
def test_how_many_of_a_word_attribute_counts_its_distinct_values(question: str) -> None:
    plan = _plan(question)
    assert plan.computed is not None and (plan.computed.op, plan.computed.attribute) == ("distinct", "town")
    assert plan.computed.whole and plan.asks is None


@pytest.mark.parametrize("question", [
    "How many records are there for 2022?",
    "How many records are from the coast region?",
])
def test_how_many_records_is_still_a_count_of_records(question: str) -> None:
    plan = _plan(question)
    assert plan.computed is None and plan.asks == "documents"


def test_how_many_of_a_figure_is_no_count_of_values() -> None:
    # "How many millimetres …" asks a stored figure, not how many values.
    plan = _plan("How many millimetres of rain did Ostby get in 2022?")
    assert plan.computed is None or plan.computed.op != "distinct"


def test_a_comparative_after_which_was_names_no_attribute_each_match_is_shown_by() -> None:
    # "Which was wetter in 2023, Sallowby or Tarnhill?" read "wetter" as naming wettest_month:
    # the two records' wettest months were listed and signed, "December and February".
    schema = CollectionSchema.model_validate({"description": "Yearly rainfall records, one per town and year",
                                              "attributes": [*RAIN.model_dump()["attributes"], {
                                                  "name": "wettest_month", "type": "string",
                                                  "description": "month with the most rain that year"}]})
    plan = PLANNER.plan("Which was wetter in 2023, Ostby or Rudstone?", schema, CATALOGUE, today=date(2025, 6, 1))
    assert plan.asks is None
    assert plan.computed is None or plan.computed.attribute != "wettest_month"


@pytest.mark.parametrize("question", [
    "How many different towns are there?",
    "How many distinct towns are in the north region?",
    "how many unique towns got more than 900 mm in 2022",
])
def test_different_after_how_many_asks_nothing_of_its_own(question: str) -> None:
    # "How many different judges heard …" searched for "different" and counted nothing.
    plan = _plan(question)
    assert plan.computed is not None and (plan.computed.op, plan.computed.attribute) == ("distinct", "town")
    assert plan.computed.whole


@pytest.mark.parametrize("question", ["How many towns are there?", "How many different towns are there?",
                                      "how many towns"])
def test_how_many_of_a_word_attribute_with_no_condition_counts_every_record_s_values(question: str) -> None:
    # "How many different judges are there?" went to the reader, which quoted one case.
    plan = _plan(question)
    assert plan.where is None
    assert plan.computed is not None and (plan.computed.op, plan.computed.attribute) == ("distinct", "town")
    assert plan.computed.whole and plan.asks is None


@pytest.mark.parametrize("question", ["How many records are there?", "how many records"])
def test_how_many_of_the_items_with_no_condition_counts_every_record(question: str) -> None:
    plan = _plan(question)
    assert plan.where is None and plan.computed is None and plan.asks == "documents"


@pytest.mark.parametrize("question", [
    "How many towns are there in Wexmoor?",  # a place no value holds: not every town
    "How many towns flooded?",  # a condition no filter holds
    "How many towns are there with a river?",
    "How many records were wrong?",
])
def test_how_many_with_words_no_condition_holds_is_not_every_record(question: str) -> None:
    plan = _plan(question)
    assert plan.computed is None and plan.asks is None
