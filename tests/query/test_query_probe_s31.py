"""What a sixth new user's product-recall notices found the self-query reading wrong, each signed
as an answer: a count of records for "how many <product> were recalled", "the largest recall"
ranked by its date, a product name one word longer than a known one read as that one, and a
"what" question about a value read as a request for the records."""

from __future__ import annotations

from datetime import date

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.query._grounding import clauses
from selfrag.schema import CollectionSchema

RECALLS = CollectionSchema.model_validate({"description": "Product recall notices", "attributes": [
    {"name": "recall_id", "type": "string", "description": "identifier of the recall notice", "kind": "identifier"},
    {"name": "product", "type": "string", "description": "name of the recalled product", "kind": "name"},
    {"name": "brand", "type": "string", "description": "brand or company that issued the recall", "kind": "name"},
    {"name": "category", "type": "string", "description": "product category", "kind": "category",
     "allowed_values": ["Toys", "Kitchen Appliances", "Electronics", "Cosmetics"]},
    {"name": "recall_date", "type": "date", "description": "date the recall was announced", "kind": "date"},
    {"name": "year", "type": "integer", "description": "year the recall was announced", "kind": "year"},
    {"name": "units_affected", "type": "integer", "description": "number of units recalled", "kind": "count"},
    {"name": "hazard", "type": "string", "description": "the hazard the product poses", "kind": "category"},
    {"name": "remedy", "type": "string", "description": "remedy offered to consumers", "kind": "category",
     "allowed_values": ["Refund", "Replace", "Repair"]}]})
CATALOGUE = {"product": ["BrightBrew 10-Cup Coffee Maker", "Kestrel Toaster Oven", "Luma Glow Night Cream",
                         "Orbit Smart Scale", "Orbit Smart Scale Plus", "Nova Hair Dryer", "Pebble Rattle"],
             "brand": ["Kestrel Home", "Luma"], "hazard": ["fire", "bacterial contamination", "battery leak", "burn"]}
PLANNER = SelfQueryPlanner(None, mode="rules")


def _plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, RECALLS, CATALOGUE, today=date(2025, 6, 1))


@pytest.mark.parametrize("question", [
    "How many BrightBrew 10-Cup Coffee Makers were recalled?",
    "How many fires were reported for the Kestrel Toaster Oven?",
])
def test_how_many_of_a_thing_a_value_names_is_no_count_of_records(question: str) -> None:
    # One notice of the coffee maker: "1 matching document" was signed for 12,500 units.
    assert _plan(question).asks is None


@pytest.mark.parametrize("question", [
    "How many recalls were there in 2023?",
    "How many Kestrel Home recalls were there?",
    "How many notices are about a fire hazard?",
])
def test_how_many_of_the_collection_s_items_is_still_a_count(question: str) -> None:
    assert _plan(question).asks == "documents"


@pytest.mark.parametrize("question", [
    "What was the largest recall in 2024?",
    "What was the smallest recall?",
    "What was the biggest recall in 2023?",
])
def test_a_size_superlative_never_ranks_by_a_date(question: str) -> None:
    # "largest recall" named recall_date by its word "recall": the latest notice was signed.
    computed = _plan(question).computed
    assert computed is None or computed.attribute != "recall_date"


def test_a_date_superlative_still_ranks_by_the_date() -> None:
    computed = _plan("What was the most recent recall?").computed
    assert computed is not None and "recall_date" in (computed.attribute, *computed.candidates)


@pytest.mark.parametrize("question", [
    "What remedy is offered for the Orbit Smart Scale Pro?",
    "What category is the Nova Hair Dryer Pro in?",
])
def test_a_name_one_word_longer_than_a_known_one_is_not_that_one(question: str) -> None:
    plan = _plan(question)
    assert not [c for c in clauses(plan.query.filter) if c.attribute == "product"]
    assert plan.asks is None


def test_a_known_name_followed_by_a_lower_case_word_is_still_read() -> None:
    plan = _plan("What remedy is offered for the Orbit Smart Scale owners?")
    assert [(c.attribute, c.value) for c in clauses(plan.query.filter)] == [("product", "Orbit Smart Scale")]


@pytest.mark.parametrize("question", [
    "What bacteria contaminated the Luma Glow Night Cream?",
    "What did the Orbit Smart Scale batteries leak onto?",
])
def test_a_what_question_about_a_value_s_specifics_is_no_listing(question: str) -> None:
    assert _plan(question).asks is None


def test_what_items_a_filter_selects_is_still_a_listing() -> None:
    assert _plan("What recalls were there in 2023?").asks == "documents"


@pytest.mark.parametrize("question", [
    "How many recalls affected more than 50,000 units?",
    "How many recalls affected fewer than 5,000 units?",
])
def test_how_many_items_a_bound_selects_is_a_count(question: str) -> None:
    # The phrase counted ends in "units", which the bound took; it counts recalls all the same.
    assert _plan(question).asks == "documents"


@pytest.mark.parametrize(("question", "start", "end"), [
    ("How many recalls were announced after June 2024?", 20240701, None),
    ("Which recalls were announced in June 2024?", 20240601, 20240701),
])
def test_a_month_and_its_year_are_one_date_not_a_year_and_this_year_s_month(
        question: str, start: int, end: int | None) -> None:
    # "after June 2024" was year = 2024 and a date from June of the current year: no match, and
    # "0 matching documents" signed.
    found = {(c.attribute, c.comparator): c.value for c in clauses(_plan(question).query.filter)}
    assert ("year", "eq") not in found
    assert found.get(("recall_date", "gte")) == start and found.get(("recall_date", "lt")) == end


def test_a_yes_no_question_about_a_named_product_s_value_is_counted_for_that_product() -> None:
    plan = _plan("Is the Pebble Rattle a fire hazard?")
    assert plan.whether is not None and plan.asks is None
    assert [(c.attribute, c.value) for c in clauses(plan.whether.predicate)] == [("hazard", "fire")]


@pytest.mark.parametrize("question", [
    "Were there any recalls of toys in 2023?",
    "How many electronics in 2023 were recalled?",
])
def test_a_year_after_a_category_s_plural_value_is_still_the_year(question: str) -> None:
    # "toys in 2023" names the items and their year, no event of the value's own ("sold in 2023").
    assert {c.attribute: c.value for c in clauses(_plan(question).query.filter)}.get("year") == 2023
