"""A question whose only condition is a date phrase the date reader holds ("in March 2023", "after
June 2024") asks for the records that date selects, as one with a year or a bound does: the
phrase's words are no topic left for a search, and neither is a verb right before it that the
date attribute's own description uses ("announced" of "date the recall was announced"). A verb the
description does not use ("expanded") names another event than the one the date records."""

from __future__ import annotations

from datetime import date

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.query._grounding import clauses
from selfrag.schema import CollectionSchema

RECALLS = CollectionSchema.model_validate({"description": "Product recall notices", "attributes": [
    {"name": "recall_id", "type": "string", "description": "identifier of the recall notice", "kind": "identifier"},
    {"name": "product", "type": "string", "description": "name of the recalled product", "kind": "name"},
    {"name": "category", "type": "string", "description": "product category", "kind": "category",
     "allowed_values": ["Toys", "Kitchen Appliances", "Electronics"]},
    {"name": "recall_date", "type": "date", "description": "date the recall was announced", "kind": "date"},
    {"name": "year", "type": "integer", "description": "year the recall was announced", "kind": "year"},
    {"name": "units_affected", "type": "integer", "description": "number of units recalled", "kind": "count"}]})
READINGS = CollectionSchema.model_validate({"description": "River gauge readings", "attributes": [
    {"name": "station", "type": "string", "description": "gauge station name", "kind": "name"},
    {"name": "taken_on", "type": "date", "description": "date the reading was taken", "kind": "date"},
    {"name": "level_cm", "type": "float", "description": "water level in centimetres"}]})
CATALOGUE = {"product": ["Orbit Smart Scale", "Pebble Rattle"], "station": ["Ostby", "Kelbridge"]}
PLANNER = SelfQueryPlanner(None, mode="rules")


def _plan(question: str, schema: CollectionSchema = RECALLS):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, schema, CATALOGUE, today=date(2025, 6, 1))


@pytest.mark.parametrize(("question", "start", "end"), [
    ("Which recalls were announced in March 2023?", 20230301, 20230401),
    ("Which recalls were announced after June 2024?", 20240701, None),
    ("How many recalls were announced before December 2022?", None, 20221201),
    ("List the recalls from March 2023", 20230301, None),
])
def test_a_date_phrase_alone_selects_the_records_it_dates(question: str, start: int | None, end: int | None) -> None:
    plan = _plan(question)
    found = {c.comparator: c.value for c in clauses(plan.query.filter) if c.attribute == "recall_date"}
    assert found.get("gte") == start and found.get("lt") == end
    assert plan.asks == "documents"


def test_a_verb_the_date_s_description_uses_belongs_to_the_date_in_any_schema() -> None:
    assert _plan("Which readings were taken after June 2023?", READINGS).asks == "documents"


@pytest.mark.parametrize("question", [
    "Which recalls were expanded in March 2023?",
    "Which recalls were reported by hospitals in March 2023?",
    "Which readings were corrected after June 2023?",
])
def test_a_verb_naming_another_event_is_no_listing_of_what_the_date_selects(question: str) -> None:
    # The date records the announcement (or the reading): what was expanded or corrected in March
    # is not said by it.
    schema = READINGS if "readings" in question else RECALLS
    assert _plan(question, schema).asks is None


RECALL_CATALOGUE = {**CATALOGUE, "hazard": ["fire", "choking"], "countries": ["Canada", "Japan", "Germany"]}
RECALLS_WITH_LISTS = CollectionSchema.model_validate({**RECALLS.model_dump(), "attributes": [
    *RECALLS.model_dump()["attributes"],
    {"name": "hazard", "type": "string", "description": "the hazard the product poses", "kind": "category"},
    {"name": "countries", "type": "string[]", "description": "countries where it was sold", "kind": "place"}]})


@pytest.mark.parametrize(("question", "asks"), [
    ("How many recalls involved a fire hazard?", "documents"),
    ("Which recalls affected Japan?", "documents"),
    ("Which recalls included Canada?", "documents"),
])
def test_a_verb_saying_an_item_has_a_value_is_held_by_that_value_s_condition(question: str, asks: str) -> None:
    # "affected", "involved" were left as the question's topic: flagged, never listed or counted.
    plan = PLANNER.plan(question, RECALLS_WITH_LISTS, RECALL_CATALOGUE, today=date(2025, 6, 1))
    assert plan.asks == asks


@pytest.mark.parametrize("question", [
    "Which recalls excluded Japan?",
    "Which recalls skipped Canada?",
])
def test_a_verb_that_may_deny_the_value_is_no_condition_s_own(question: str) -> None:
    plan = PLANNER.plan(question, RECALLS_WITH_LISTS, RECALL_CATALOGUE, today=date(2025, 6, 1))
    assert plan.asks is None


def test_a_verb_before_a_superlative_s_measure_is_held_by_the_ranking() -> None:
    plan = PLANNER.plan("Which recall affected the most units?", RECALLS_WITH_LISTS, RECALL_CATALOGUE,
                        today=date(2025, 6, 1))
    assert plan.computed is not None and plan.computed.attribute == "units_affected" and plan.computed.whole


@pytest.mark.parametrize("question", [
    "Which electronics recalls did not affect Germany?",
    "Which recalls didn't involve a fire hazard?",
    "Which recalls never affected Canada?",
])
def test_a_negated_linking_verb_never_leaves_its_value_selected(question: str) -> None:
    # "did not affect Germany" was listed as the recalls that affected Germany.
    plan = PLANNER.plan(question, RECALLS_WITH_LISTS, RECALL_CATALOGUE, today=date(2025, 6, 1))
    held = {(c.attribute, c.comparator) for c in clauses(plan.query.filter)}
    assert plan.asks is None or not held & {("countries", "contains"), ("hazard", "eq")}


def test_a_list_element_a_negated_linking_verb_governs_is_excluded() -> None:
    plan = PLANNER.plan("Which recalls did not affect Germany?", RECALLS_WITH_LISTS, RECALL_CATALOGUE,
                        today=date(2025, 6, 1))
    assert [(c.attribute, c.comparator, c.value) for c in clauses(plan.query.filter)] == [
        ("countries", "not_contains", "Germany")]


CARS = CollectionSchema.model_validate({"description": "Used cars in stock at a car dealership, one listing per car",
                                        "attributes": [
    {"name": "model", "type": "string", "description": "model name of the car", "kind": "name"},
    {"name": "fuel", "type": "string", "description": "fuel type", "allowed_values": ["petrol", "diesel", "electric"]},
    {"name": "year", "type": "integer", "kind": "year", "description": "model year the car was first registered"},
    {"name": "listed_on", "type": "date", "kind": "date", "description": "date the car was listed for sale"}]})


@pytest.mark.parametrize(("question", "start", "end"), [
    ("How many cars were listed in 2024?", 20240101, 20250101),
    ("Any cars listed in 2022?", 20220101, 20230101),
    ("Were any cars listed during 2025?", 20250101, 20260101),
    ("How many cars listed in 2024 are diesel?", 20240101, 20250101),
])
def test_a_year_a_date_s_own_verb_dates_is_that_date_s_not_the_year_attribute_s(
        question: str, start: int, end: int) -> None:
    # "How many cars were listed in 2025?" was read as model year 2025: "0 matching documents" signed
    # for twelve listings.
    plan = PLANNER.plan(question, CARS, {}, today=date(2025, 12, 1))
    found = {(c.attribute, c.comparator): c.value for c in clauses(plan.query.filter)}
    assert ("year", "eq") not in found
    assert found.get(("listed_on", "gte")) == start and found.get(("listed_on", "lt")) == end


@pytest.mark.parametrize("question", ["Which cars were registered in 2019?", "How many cars are from 2019?",
                                      "Which cars from 2019 are diesel?"])
def test_a_year_the_year_attribute_s_words_date_stays_the_year_attribute_s(question: str) -> None:
    plan = PLANNER.plan(question, CARS, {}, today=date(2025, 12, 1))
    assert ("year", "eq", 2019) in {(c.attribute, c.comparator, c.value) for c in clauses(plan.query.filter)}


@pytest.mark.parametrize("question", ["What is the cheapest car listed in 2025?",
                                      "What is the cheapest car listed after March 2025?"])
def test_a_superlative_before_a_date_phrase_ranks_by_its_own_measure(question: str) -> None:
    # "cheapest car listed in 2025" read "listed" as naming listed_on, which "cheapest" cannot rank:
    # nothing was ranked.
    PRICED = CollectionSchema.model_validate({**CARS.model_dump(), "attributes": [
        *CARS.model_dump()["attributes"], {"name": "price", "type": "integer", "kind": "money",
                                           "description": "asking price in euros"}]})
    computed = PLANNER.plan(question, PRICED, {}, today=date(2025, 12, 1)).computed
    assert computed is not None and computed.attribute == "price" and not computed.highest and computed.whole


@pytest.mark.parametrize(("question", "predicate"), [
    ("Was the Polo listed before March 2024?", {("listed_on", "lt", 20240301)}),
    ("Was the Golf listed in 2024?", {("listed_on", "gte", 20240101), ("listed_on", "lt", 20250101)}),
    ("Was the Sportage registered in 2023?", {("year", "eq", 2023)}),
])
def test_a_date_that_is_all_a_yes_no_question_asks_of_a_named_item_is_what_it_asks(
        question: str, predicate: set[tuple[str, str, object]]) -> None:
    # With nothing else asked, the date is no choice of which record but the question itself.
    plan = PLANNER.plan(question, CARS, {"model": ["Polo", "Golf", "Sportage"]}, today=date(2025, 12, 1))
    assert plan.whether is not None
    assert {(c.attribute, c.comparator, c.value) for c in clauses(plan.whether.predicate)} == predicate
    assert [(c.attribute, c.value) for c in clauses(plan.whether.subject)] == [("model", question.split()[2])]


def test_a_date_beside_another_condition_still_says_which_record() -> None:
    plan = PLANNER.plan("Was the Golf listed in 2024 a diesel?", CARS, {"model": ["Golf"]}, today=date(2025, 12, 1))
    assert plan.whether is not None
    assert {c.attribute for c in clauses(plan.whether.subject)} == {"model", "listed_on"}
