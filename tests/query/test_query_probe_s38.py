"""What session 38's questions to earlier users' collections found in the self-query."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import Comparison, SelfQueryPlanner, headed_attribute, read_question
from selfrag.schema import CollectionSchema

HERE = Path(__file__).parent / "schemas"
# The seismic events of session 37's new user: event_id beside event_type, nearest_town beside depth_km.
EVENTS = CollectionSchema.model_validate(json.loads((HERE / "events.json").read_text()))
VALUES = {"event_type": ["tectonic", "volcanic"], "region": ["Coastal Shelf", "Northern Arc"],
          "nearest_town": ["Hope", "Tarn"]}
PLANNER = SelfQueryPlanner(None, mode="rules")
TODAY = date(2026, 6, 1)


@pytest.mark.parametrize(("question", "attribute", "highest"), [
    ("Which region had the most events?", "region", True),
    ("Which region had the fewest events?", "region", False),
    ("Which nearest town had the most tectonic events?", "nearest_town", True),
    ("Which event type is most common?", "event_type", True),
    ("What is the most common event type?", "event_type", True),
    ("Which analyst had the fewest events in 2024?", "analyst", False),
])
def test_the_most_items_counts_the_values_asked_for(question: str, attribute: str, highest: bool) -> None:
    plan = PLANNER.plan(question, EVENTS, VALUES, today=TODAY)
    assert plan.computed is not None
    assert (plan.computed.op, plan.computed.attribute, plan.computed.highest) == ("count_by", attribute, highest)
    assert plan.computed.whole


@pytest.mark.parametrize("question", [
    "Which event had the most damage?",      # a measure: a ranking by damage_usd
    "Which region is the most dangerous?",   # no count, nothing stored ranks it
    "Did Coastal Shelf have the most events?",  # yes/no: not the ranking as its answer
])
def test_no_count_where_the_most_is_not_of_the_items(question: str) -> None:
    plan = PLANNER.plan(question, EVENTS, VALUES, today=TODAY)
    assert plan.computed is None or plan.computed.op != "count_by" or not plan.computed.whole


def test_a_superlative_word_that_begins_a_name_is_the_name() -> None:
    # "Which nearest town …" ranked events by the lowest depth_km ("nearest": the least distance).
    reading = read_question("Which nearest town had the most tectonic events?", EVENTS, VALUES, today=TODAY)
    assert reading.extreme is None or reading.extreme.attribute != "depth_km"
    reading = read_question("Which event is the nearest to the surface?", EVENTS, VALUES, today=TODAY)
    assert reading.extreme is not None  # a superlative still, where no name is written


def test_the_name_written_whole_heads_the_question() -> None:
    # "event" begins event_id and event_type; "event type" writes one of them whole.
    assert headed_attribute("Which event type is most common?", EVENTS) == "event_type"
    assert headed_attribute("Which event had the largest magnitude?", EVENTS) == "event_id"  # the item itself


# The twentieth new user's insurance claims: amount_claimed beside amount_paid, a policyholder
# ("the person who filed the claim") beside an adjuster ("the adjuster who handled the claim").
CLAIMS = CollectionSchema.model_validate(json.loads((HERE / "claims.json").read_text()))
CLAIM_VALUES = {"policyholder": ["Tom Becker", "Nora Lindqvist"], "adjuster": ["Paris Holloway", "Dana Wu"],
                "city": ["Paris", "Austin", "Boston"], "status": ["open", "approved", "denied", "partially approved"]}


@pytest.mark.parametrize(("question", "attribute"), [
    # "claims" is the items' word, no word of amount_claimed: "paid" names the amount.
    ("How many claims paid more than $5,000?", "amount_paid"),
    ("How many claims claimed more than $5,000?", "amount_claimed"),
])
def test_the_items_word_names_no_amount(question: str, attribute: str) -> None:
    plan = PLANNER.plan(question, CLAIMS, CLAIM_VALUES, today=TODAY)
    assert [c.attribute for c in _clauses(plan.query.filter)] == [attribute]
    assert plan.asks == "documents"


def test_a_value_given_another_attributes_role_is_no_answer() -> None:
    # Paris Holloway is an adjuster; "filed by" is the policyholder's verb. Listing his claims
    # answered "Which claims did the adjuster handle?".
    plan = PLANNER.plan("Which claims were filed by Paris Holloway?", CLAIMS, CLAIM_VALUES, today=TODAY)
    assert plan.asks is None
    assert any(c.kind == "either_attribute" and "policyholder" in c.detail for c in plan.changes)
    # The adjuster's own verb, or none, is the adjuster.
    for question in ("Which claims were handled by Paris Holloway?", "Which claims did Paris Holloway handle?",
                     "Which claims were filed by Tom Becker?"):
        plan = PLANNER.plan(question, CLAIMS, CLAIM_VALUES, today=TODAY)
        assert plan.asks == "documents", question


def _clauses(node: object) -> list[Comparison]:
    if node is None:
        return []
    if isinstance(node, Comparison):
        return [node]
    return [c for a in getattr(node, "arguments", []) for c in _clauses(a)]


@pytest.mark.parametrize(("question", "attribute", "highest"), [
    # "claimed" also begins prior_claims; the word as a name writes it is amount_claimed's.
    ("Which claim had the largest amount claimed?", "amount_claimed", True),
    ("Which claim filed in 2023 had the highest amount claimed?", "amount_claimed", True),
    # "paid" fits both amounts as money; it is a word of amount_paid's name alone.
    ("Which claim was paid the most?", "amount_paid", True),
    ("Which approved claim paid the least?", "amount_paid", False),
])
def test_a_ranking_between_two_amounts_is_told_by_the_names_words(question: str, attribute: str, highest: bool) -> None:
    plan = PLANNER.plan(question, CLAIMS, CLAIM_VALUES, today=TODAY)
    assert plan.computed is not None
    assert (plan.computed.op, plan.computed.attribute, plan.computed.highest) == ("rank", attribute, highest)
    assert plan.computed.whole


def test_an_amount_the_question_does_not_tell_is_not_ranked() -> None:
    plan = PLANNER.plan("Which claim had the largest amount?", CLAIMS, CLAIM_VALUES, today=TODAY)
    assert plan.computed is None or not plan.computed.whole


@pytest.mark.parametrize(("question", "op", "attribute"), [
    # "the most claims" counts the items: it ranked claims by prior_claims, whose name has "claims".
    ("which adjuster handled the most claims", "count_by", "adjuster"),
    # "Who <verb> …": the name attribute the verb is described of.
    ("Who handled the most claims?", "count_by", "adjuster"),
    ("Who filed the most claims?", "count_by", "policyholder"),
    ("Who handled the most claims in Paris?", "count_by", "adjuster"),
    # The name written whole is the attribute.
    ("Which claim had the most prior claims?", "rank", "prior_claims"),
])
def test_the_most_of_the_items_counts_them(question: str, op: str, attribute: str) -> None:
    plan = PLANNER.plan(question, CLAIMS, CLAIM_VALUES, today=TODAY)
    assert plan.computed is not None
    assert (plan.computed.op, plan.computed.attribute) == (op, attribute)
    assert plan.computed.whole


def test_who_with_a_verb_no_attribute_is_described_by_counts_nothing() -> None:
    plan = PLANNER.plan("Who had the most claims?", CLAIMS, CLAIM_VALUES, today=TODAY)
    assert plan.computed is None or not plan.computed.whole
