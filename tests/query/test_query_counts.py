""""How many hatchbacks are there?" counts the cars the value selects: the phrase counted ends in a
word a value took, as "How many BrightBrew Coffee Makers were recalled?" does, but nothing follows
it but "are there" (or "do you have"), and the filter names no one item by its name. The reader
had answered "40 kWh" and "1"."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.schema import CollectionSchema

ROOT = Path(__file__).resolve().parents[2]
STOCK = CollectionSchema.model_validate(json.loads(
    (ROOT / "bench/results/probes/s31-stock/corpus/stock.schema.json").read_text()))
CATALOGUE = {"model": ["Golf", "Polo", "Qashqai"], "make": ["Volkswagen", "Nissan", "BMW"],
             "colour": ["Red", "Blue"], "features": ["sunroof", "tow hitch"]}
PLANNER = SelfQueryPlanner(None, mode="rules")


def _plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, STOCK, CATALOGUE, today=date(2025, 12, 1))


@pytest.mark.parametrize("question", [
    "How many hatchbacks are there?",
    "How many Volkswagens are there?",
    "How many red hatchbacks are there?",
    "How many SUVs do you have?",
])
def test_how_many_of_a_category_value_that_merely_exist_is_a_count(question: str) -> None:
    assert _plan(question).asks == "documents"


@pytest.mark.parametrize("question", [
    "How many Golfs are there?",  # a name: how many of that model, which a notice may state
    "How many hatchbacks were sold last year?",  # a verb beyond the value asks about something else
])
def test_how_many_of_a_name_or_with_a_verb_of_its_own_is_no_count_of_records(question: str) -> None:
    assert _plan(question).asks is None


@pytest.mark.parametrize("question", [
    "How many SUVs were listed in 2024?",  # the date's own verb ("date the car was listed") is no verb of its own
    "How many hatchbacks were listed in March 2024?",
    "How many Volkswagens were listed after June 2024?",
])
def test_how_many_of_a_category_value_with_the_date_s_own_phrase_is_a_count(question: str) -> None:
    assert _plan(question).asks == "documents"


@pytest.mark.parametrize("question", [
    "Which SUVs were listed in 2024?",
    "Which hatchbacks are red?",
    "Which diesel hatchbacks have a sunroof?",
])
def test_which_before_a_category_value_asks_for_the_items_it_selects(question: str) -> None:
    assert _plan(question).asks == "documents"


@pytest.mark.parametrize("question", [
    "How many hatchbacks were sold in 2024?",  # "sold" is no word of the listing date's description
    "Which SUVs were repainted in 2024?",
    "Which Golf is red?",  # a name: which of that model's records, the reader's to say
])
def test_a_verb_the_date_does_not_record_or_a_name_is_still_no_listing(question: str) -> None:
    assert _plan(question).asks is None
