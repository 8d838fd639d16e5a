"""What a seventh new user's used-car listings found signed wrong: a capitalised month read as an
unknown branch ("listed in January 2025" → branch January, "0 matching documents"), a car that does
not exist answered as its base model ("Vesta Aurora Sport" → the Aurora's mileage), and a yes/no
question naming a car by make and model read as whether any such car exists."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.query._grounding import clauses
from selfrag.schema import CollectionSchema

ROOT = Path(__file__).resolve().parents[2]
CARS = CollectionSchema.model_validate(json.loads(
    (ROOT / "bench/results/probes/s32-new-user/corpus/cars.schema.json").read_text()))
CATALOGUE = {"make": ["Halden", "Torvik", "Vesta", "Okapi"],
             "model": ["Aurora", "Corvane 300", "Corvane 300 Sport", "Ridgeback", "Ridgeback HD", "Lumo", "Lumo Plus"],
             "branch": ["Northgate", "Riverside", "Eastfield"]}
PLANNER = SelfQueryPlanner(None, mode="rules")


def _plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, CARS, CATALOGUE, today=date(2026, 6, 1))


@pytest.mark.parametrize(("question", "start", "end"), [
    ("How many cars were listed in January 2025?", 20250101, 20250201),
    ("Were any SUVs listed in October 2024?", 20241001, 20241101),
    ("Cars listed in June 2025", 20250601, 20250701),
    ("Which cars were listed after September 2025?", 20251001, None),
])
def test_a_capitalised_month_is_a_date_never_an_unknown_place(question: str, start: int, end: int | None) -> None:
    found = {(c.attribute, c.comparator): c.value for c in clauses(_plan(question).query.filter)}
    assert ("branch", "eq") not in found
    assert found.get(("listed_on", "gte")) == start and found.get(("listed_on", "lt")) == end


@pytest.mark.parametrize("question", [
    "What's the mileage on the Vesta Aurora Sport?",
    "Is the Vesta Aurora Sport a hybrid?",
    "How much is the Lumo Sport?",
])
def test_a_name_one_word_longer_than_a_known_one_selects_no_known_car(question: str) -> None:
    plan = _plan(question)
    assert not any(c.attribute == "model" for c in clauses(plan.query.filter))


def test_a_yes_no_question_naming_a_car_by_make_and_model_asks_of_that_car() -> None:
    # "Is the Torvik Ridgeback a diesel?" was "Yes: 1 matching document": the 2018 one is, the
    # 2020 one is not.
    plan = _plan("Is the Torvik Ridgeback a diesel?")
    assert plan.whether is not None and plan.asks is None
    assert {c.attribute for c in clauses(plan.whether.subject)} == {"make", "model"}
    assert [(c.attribute, c.value) for c in clauses(plan.whether.predicate)] == [("fuel_type", "diesel")]


@pytest.mark.parametrize("question", [
    "How many SUVs do not have a tow hitch?",
    "Which SUVs don't have a sunroof?",
])
def test_a_list_element_a_negation_governs_through_have_is_excluded(question: str) -> None:
    # "How many SUVs do not have a tow hitch?" counted the SUVs that have one, signed.
    catalogue = {**CATALOGUE, "features": ["tow hitch", "sunroof", "heated seats"]}
    plan = PLANNER.plan(question, CARS, catalogue, today=date(2026, 6, 1))
    held = {(c.attribute, c.comparator) for c in clauses(plan.query.filter)}
    assert ("features", "not_contains") in held and ("features", "contains") not in held


@pytest.mark.parametrize("question", [
    "How many SUVs are there that nobody has reserved?",
    "Which cars never had a sunroof fitted?",
])
def test_a_negation_no_condition_holds_leaves_nothing_signed(question: str) -> None:
    catalogue = {**CATALOGUE, "features": ["tow hitch", "sunroof", "heated seats"]}
    plan = PLANNER.plan(question, CARS, catalogue, today=date(2026, 6, 1))
    assert plan.asks is None and plan.computed is None and plan.whether is None


@pytest.mark.parametrize(("question", "unknown"), [
    ("What's the mileage on the Vesta Aurora Sport?", "Aurora Sport"),
    ("What is the mileage of the Halden Brisa HD?", "Brisa HD"),
])
def test_a_known_name_written_longer_is_kept_as_an_unknown_name(question: str, unknown: str) -> None:
    # The reader then read the Aurora's mileage and signed it: the answer must name what was asked.
    catalogue = {**CATALOGUE, "model": [*CATALOGUE["model"], "Brisa"]}
    plan = PLANNER.plan(question, CARS, catalogue, today=date(2026, 6, 1))
    assert plan.unknown_names == (unknown,)


def test_an_unknown_name_no_cited_passage_writes_is_reported() -> None:
    from graders.figures import unnamed_phrases

    passages = [("The 2021 Vesta Aurora is a luxury petrol sedan.", {"model": "Aurora", "make": "Vesta"})]
    assert unnamed_phrases(["Aurora Sport"], passages) == ["Aurora Sport"]
    assert unnamed_phrases(["Vesta Aurora"], passages) == []


@pytest.mark.parametrize("question", [
    "Which cars were sold in 2025?",
    "How many SUVs were sold in 2024?",
    "Were any hatchbacks sold in 2024?",
])
def test_a_year_of_an_event_a_value_names_is_no_model_year(question: str) -> None:
    # "Which cars were sold in 2025?" listed the sold cars of model year 2025, signed: the year is
    # when they were sold, which no attribute records (status says only that they were).
    plan = _plan(question)
    found = {c.attribute: c.value for c in clauses(plan.query.filter)}
    assert "model_year" not in found and found.get("status") == "sold"
    assert plan.asks is None and plan.whether is None


@pytest.mark.parametrize(("question", "year"), [
    ("Which cars from 2024 were sold?", 2024),
    ("Which sold cars are from 2021?", 2021),
    ("How many 2022 SUVs are available?", 2022),
])
def test_a_year_the_value_does_not_take_is_still_a_model_year(question: str, year: int) -> None:
    assert {c.attribute: c.value for c in clauses(_plan(question).query.filter)}.get("model_year") == year


@pytest.mark.parametrize("question", [
    "Which cars were sold in March 2024?",
    "How many cars were sold after June 2024?",
    "Which cars were sold last year?",
])
def test_a_date_of_an_event_a_value_names_is_no_listing_date_or_model_year(question: str) -> None:
    # "Which cars were sold in March 2024?" listed the sold cars listed for sale in March 2024,
    # signed: when they were sold is recorded nowhere.
    plan = _plan(question)
    found = {c.attribute for c in clauses(plan.query.filter)}
    assert found == {"status"} and plan.asks is None


def test_a_date_phrase_after_the_date_s_own_verb_is_still_that_date() -> None:
    found = {(c.attribute, c.comparator): c.value for c in clauses(_plan("Which sold cars were listed in March 2024?").query.filter)}
    assert found == {("status", "eq"): "sold", ("listed_on", "gte"): 20240301, ("listed_on", "lt"): 20240401}
