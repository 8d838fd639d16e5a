"""A question about the thing its filter names is no request for the matching documents: "What is
the Ostrava Duo 14 good for?" filters the model, and the words left ("good for") are filler to a
search but the whole question to a person. A new user's probe (laptop spec sheets, clinical trial
summaries) found 20 such questions answered with "1 matching document" and its first sentence,
signed. The listing is for requests, existence questions and counts whose every other word is a
function word or the collection's word for its items."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.query._grounding import clauses
from selfrag.schema import CollectionSchema

TODAY = date(2026, 6, 1)
HERE = Path(__file__).parent / "schemas"
LAPTOPS = CollectionSchema.model_validate(json.loads((HERE / "laptops.schema.json").read_text()))
TRIALS = CollectionSchema.model_validate(json.loads((HERE / "trials.schema.json").read_text()))
LAPTOP_VALUES = {"model": ["ZX-14", "ZX-16", "Slate 13", "Aero 14", "Aero 14 Pro", "Duo 14", "Volt 17", "Scout 16"],
                 "brand": ["Korvane", "Lumetra", "Brisk", "Halden", "Ostrava"], "cpu": ["R7 7840U", "i5-1335U"]}
TRIAL_VALUES = {"condition": ["chronic migraine", "rheumatoid arthritis", "heart failure"]}
PLANNER = SelfQueryPlanner(None, mode="rules", today=TODAY)


@pytest.mark.parametrize(("question", "schema", "values"), [
    ("What is the Ostrava Duo 14 good for?", LAPTOPS, LAPTOP_VALUES),
    ("What is the Lumetra Aero 14 made of?", LAPTOPS, LAPTOP_VALUES),
    ("What is the Brisk Volt 17 best for?", LAPTOPS, LAPTOP_VALUES),
    ("Is the Korvane ZX-16 good?", LAPTOPS, LAPTOP_VALUES),
    ("What did the 2019 trial show?", TRIALS, TRIAL_VALUES),
    ("What did the trial in chronic migraine from 2022 find?", TRIALS, TRIAL_VALUES),
    ("What are phase 3 trials good for?", TRIALS, TRIAL_VALUES),
])  # fmt: skip
def test_words_beyond_the_filter_ask_about_the_thing_not_for_the_documents(
        question: str, schema: CollectionSchema, values: dict[str, list[str]]) -> None:
    assert PLANNER.plan(question, schema, values).asks is None


@pytest.mark.parametrize(("question", "schema", "values"), [
    ("Show me good Brisk laptops", LAPTOPS, LAPTOP_VALUES),          # a request: its filler is filler
    ("What Halden laptops are there?", LAPTOPS, LAPTOP_VALUES),
    ("Are there touchscreen laptops from Lumetra?", LAPTOPS, LAPTOP_VALUES),
    ("How many phase 3 trials are there?", TRIALS, TRIAL_VALUES),
    ("What trials were in 2019?", TRIALS, TRIAL_VALUES),
])  # fmt: skip
def test_requests_existence_and_counts_are_still_listed(question: str, schema: CollectionSchema,
                                                       values: dict[str, list[str]]) -> None:
    assert PLANNER.plan(question, schema, values).asks == "documents"


def test_an_attribute_is_named_without_its_unit() -> None:
    # "price of the Aero 14" asked price_usd by name, but "usd" is not written: the reader read the
    # weight (flagged) where the record's own value answers it.
    from workflows.set_answers import asked_attribute

    assert [a.name for a in LAPTOPS.named_in("price of the Aero 14")] == ["price_usd"]
    assert [a.name for a in LAPTOPS.named_in("battery of the Aero 14")] == ["battery_hours"]
    attribute = asked_attribute("price of the Aero 14", "price", LAPTOPS,
                                {"attribute": "model", "comparator": "eq", "value": "Aero 14"})
    assert attribute is not None and attribute.name == "price_usd"


def test_a_what_question_the_filter_holds_whole_is_still_listed() -> None:
    # The demo's question: every word is a condition, the attribute's word or a word for the items.
    movies = CollectionSchema.model_validate(json.loads(
        (Path(__file__).resolve().parents[2] / "selfrag" / "samples" / "movies" / "schema.json").read_text()))
    plan = PLANNER.plan("What's a highly rated (above 8.5) science fiction film?", movies,
                        {"genre": ["science fiction", "drama", "animation"]})
    assert plan.asks == "documents"


def test_a_generic_word_alone_names_no_attribute() -> None:
    # "total_minutes" less its unit is "total": it named the attribute in "the total calories of
    # Italian recipes", whose total was then not computed (bench/superlatives.py).
    recipes = CollectionSchema.model_validate(json.loads(
        (Path(__file__).resolve().parents[2] / "eval" / "sets" / "recipes" / "schema.json").read_text()))
    assert [a.name for a in recipes.named_in("What is the total calories of italian recipes?")] == ["calories"]


@pytest.mark.parametrize("question", [
    "What is in the Aero 14 Pro that the Aero 14 lacks?",  # a negation no filter holds
    "alternatives to the Brisk Volt 17",                 # a request for other laptops than the one it names
])  # fmt: skip
def test_what_the_filter_does_not_hold_is_no_listing(question: str) -> None:
    # Both were answered with the laptops the filter named ("1 matching document: Volt 17"), signed.
    assert PLANNER.plan(question, LAPTOPS, LAPTOP_VALUES).asks is None


MODEL_AERO = {"attribute": "model", "comparator": "eq", "value": "Aero 14 Pro"}


@pytest.mark.parametrize(("question", "search", "expected"), [
    # "How much does the Aero 14 Pro cost?" named no attribute: the reader read it (flagged) where
    # the record's own price answers it.
    ("How much does the Aero 14 Pro cost?", "How much does cost", "price_usd"),
    ("How expensive is the Aero 14 Pro?", "How expensive", "price_usd"),
    ("How much does the Aero 14 Pro weigh?", "How much does weigh", "weight_kg"),
    ("How heavy is the Aero 14 Pro?", "How heavy", "weight_kg"),
    # words beyond the measure are a question about something else
    ("How much does a charger for the Aero 14 Pro cost?", "How much does a charger cost", None),
])
def test_a_measure_s_own_word_asks_the_one_attribute_of_that_kind(question: str, search: str, expected: str | None) -> None:
    from workflows.set_answers import asked_attribute

    attribute = asked_attribute(question, search, LAPTOPS, MODEL_AERO)
    assert (attribute.name if attribute is not None else None) == expected


def test_millimetres_are_a_unit_nobody_asks_for() -> None:
    # "How much rain did Marlow Cross get in 2021?" named no attribute: rain_mm's "mm" was no unit.
    rain = CollectionSchema(attributes=[{"name": "rain_mm", "type": "float", "description": "Total rainfall in millimetres"},
                                        {"name": "rainy_days", "type": "integer"}])  # type: ignore[list-item]
    assert [a.name for a in rain.named_in("How much rain did Marlow Cross get in 2021?")] == ["rain_mm"]
    assert rain.attribute("rain_mm").kind == "length"  # type: ignore[union-attr]


def test_the_collection_s_own_word_for_its_items_is_no_word_left() -> None:
    # "records" is a generic word for results, and also what the collection calls its items
    # ("Yearly rainfall records per town"): "How many records are from the north?" is a count.
    rain = CollectionSchema(description="Yearly rainfall records per town", attributes=[
        {"name": "town", "type": "string"}, {"name": "region", "type": "string", "allowed_values": ["north", "south"]}])  # type: ignore[list-item]
    assert PLANNER.plan("How many records are from the north?", rain, {}).asks == "documents"
    assert PLANNER.plan("What did the records from the north show?", rain, {}).asks is None


@pytest.mark.parametrize(("question", "bound"), [
    ("Which towns got more than 1500 mm of rain?", ("gt", 1500)),
    ("Which towns got more than 1500mm of rain?", ("gt", 1500)),
    ("towns with under 700 millimetres of rain", ("lt", 700)),
])
def test_millimetres_after_a_number_bound_the_attribute_measured_in_them(question: str, bound: tuple[str, float]) -> None:
    # "more than 1500 mm" was read as 1.5 billion ("mm" as a banker's million) and bounded nothing.
    rain = CollectionSchema(description="Yearly rainfall records per town", attributes=[
        {"name": "town", "type": "string"}, {"name": "rain_mm", "type": "float", "description": "Total rainfall in millimetres"},
        {"name": "rainy_days", "type": "integer", "description": "Number of rainy days"}])  # type: ignore[list-item]
    plan = PLANNER.plan(question, rain, {})
    assert [(c.attribute, c.comparator, c.value) for c in clauses(plan.query.filter)] == [("rain_mm", *bound)]


def test_millimetres_are_no_scale_but_a_banker_s_mm_after_money_is() -> None:
    from selfrag.query._numbers import find_numbers

    assert [(n.value, n.unit) for n in find_numbers("more than 1500 mm of rain")] == [(1500.0, "mm")]
    assert [n.value for n in find_numbers("revenue above $5mm")] == [5e6]
