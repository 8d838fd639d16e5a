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
