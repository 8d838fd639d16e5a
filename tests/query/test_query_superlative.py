"""Superlatives read as rankings (``selfrag.query._computed``): the attribute the question names
after the superlative, or the one attribute of the kind a superlative names by itself; never a
bound ("at most 150"), never an attribute the question leaves unsaid."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import SelfQueryPlanner, read_question, to_where
from selfrag.schema import AttributeInfo as A
from selfrag.schema import CollectionSchema

TODAY = date(2025, 6, 1)
SETS = Path(__file__).resolve().parents[2] / "eval" / "sets"
HOTELS = CollectionSchema.model_validate(json.loads((SETS / "hotels" / "schema.json").read_text()))
CLUBS = CollectionSchema.model_validate(json.loads((SETS / "clubs" / "schema.json").read_text()))
CLUB_NAMES = [json.loads(line)["metadata"]["name"] for line in (SETS / "clubs" / "records.jsonl").read_text().splitlines()]
CLUB_VALUES = {"name": CLUB_NAMES, "activity": ["chess", "rowing", "hiking", "tennis"], "city": ["Boston", "Denver"]}
HOTEL_VALUES = {"city": ["Rome", "Vienna"], "chain": ["Hilton", "Ibis"]}
LAPTOPS = CollectionSchema(description="Laptops", attributes=[
    A(name="model", type="string", kind="identifier"),
    A(name="price_usd", type="float", description="Price in US dollars"),
    A(name="weight_kg", type="float", description="Weight in kilograms"),
    A(name="battery_hours", type="float", description="Battery life in hours"),
    A(name="release_year", type="integer", description="Year it was released"),
])  # fmt: skip


def extreme(question: str, schema: CollectionSchema = HOTELS, values: dict[str, list[str]] = HOTEL_VALUES) -> tuple[str, bool] | None:
    found = read_question(question, schema.scalar_view(), values, today=TODAY).extreme
    return None if found is None or not found.attribute else (found.attribute, found.highest)


@pytest.mark.parametrize(("question", "schema", "values", "expected"), [
    ("Which hotel is the cheapest?", HOTELS, HOTEL_VALUES, ("price_per_night", False)),
    ("the most expensive hotel in Vienna", HOTELS, HOTEL_VALUES, ("price_per_night", True)),
    ("Which Rome hotel has the highest guest score?", HOTELS, HOTEL_VALUES, ("guest_score", True)),
    ("the hotel closest to the center in Rome", HOTELS, HOTEL_VALUES, ("distance_to_center_km", False)),
    ("Which club has the fewest members?", CLUBS, CLUB_VALUES, ("members", False)),
    ("the oldest hiking club", CLUBS, CLUB_VALUES, ("founded", False)),
    ("Which laptop has the longest battery life?", LAPTOPS, {}, ("battery_hours", True)),
    ("the lightest laptop", LAPTOPS, {}, ("weight_kg", False)),
    ("the newest laptop", LAPTOPS, {}, ("release_year", True)),
])  # fmt: skip
def test_a_superlative_ranks_by_the_attribute_it_names(question: str, schema: CollectionSchema,
                                                       values: dict[str, list[str]], expected: tuple[str, bool]) -> None:
    assert extreme(question, schema, values) == expected


@pytest.mark.parametrize("question", [
    "hotels at most 150 euros",         # a bound, read as a condition
    "the best hotel in Rome",           # "best" by what is not said
    "the best rated hotel in Rome",     # two scores (stars, guest score): which one is not said
    "the best price in Rome",           # "best" ranks by a measure adjective only: the best price is the lowest
    "the largest hotel in Rome",        # largest by what is not said
])  # fmt: skip
def test_no_ranking_where_the_attribute_is_not_said(question: str) -> None:
    assert extreme(question) is None


def test_the_superlative_and_its_attribute_are_not_searched_for() -> None:
    reading = read_question("Which hotel in Rome has the lowest price per night?", HOTELS.scalar_view(), HOTEL_VALUES,
                            today=TODAY)
    assert to_where(reading.query.filter) == {"city": {"$eq": "Rome"}}
    assert reading.residual == ""


def test_the_plan_ranks_whole_only_when_nothing_else_is_asked() -> None:
    planner = SelfQueryPlanner(None, mode="rules", today=TODAY)
    whole = planner.plan("the 3 cheapest hotels in Rome", HOTELS, HOTEL_VALUES)
    assert whole.computed is not None and whole.computed.whole
    assert (whole.computed.attribute, whole.computed.highest, whole.computed.n) == ("price_per_night", False, 3)
    assert whole.asks is None  # a ranking, never the matches unranked
    topic = planner.plan("the cheapest hotel near the beach in Rome", HOTELS, HOTEL_VALUES)
    assert topic.computed is not None and not topic.computed.whole


@pytest.mark.parametrize(("question", "where"), [
    # "chess club" is part of one club's name ("Boston Knights Chess Club"), written as a common
    # noun: it filtered that one club, and "Is there a chess club in Denver?" contradicted itself.
    ("Which chess club has the most members?", {"activity": {"$eq": "chess"}}),
    ("Is there a chess club in Denver?", {"$and": [{"activity": {"$eq": "chess"}}, {"city": {"$eq": "Denver"}}]}),
    # written as a name, a part of one still names it
    ("When does Boston Knights meet?", {"name": {"$eq": "Boston Knights Chess Club"}}),
])  # fmt: skip
def test_part_of_a_name_names_it_only_written_as_a_name(question: str, where: dict[str, object]) -> None:
    assert to_where(read_question(question, CLUBS.scalar_view(), CLUB_VALUES, today=TODAY).query.filter) == where


def test_best_rated_ranks_by_the_one_score() -> None:
    clubs = read_question("the 3 best rated choir clubs", CLUBS.scalar_view(), CLUB_VALUES, today=TODAY)
    assert clubs.extreme is not None and (clubs.extreme.attribute, clubs.extreme.highest) == ("review_score", True)
    assert clubs.query.limit == 3


def test_every_word_of_the_attributes_name_is_the_ranking_s() -> None:
    reading = read_question("Which hotel has the lowest distance to center km?", HOTELS.scalar_view(), HOTEL_VALUES,
                            today=TODAY)
    assert reading.extreme is not None and reading.extreme.attribute == "distance_to_center_km"
    assert reading.residual == ""


def test_the_noun_before_the_descriptions_plural_names_the_items() -> None:
    # "Job postings with the employer, ...": "Which job" was left to search, so the ranking was
    # not the whole question and the reader answered, flagged.
    jobs = CollectionSchema.model_validate(json.loads((SETS / "jobs" / "schema.json").read_text()))
    reading = read_question("Which job has the highest salary?", jobs.scalar_view(), {}, today=TODAY)
    assert reading.extreme is not None and reading.extreme.attribute == "salary_usd"
    assert reading.residual == ""


def test_a_measure_that_fits_several_attributes_is_no_ranking_but_is_recorded() -> None:
    # Hotels have stars and a guest score: "best rated" by which is not said, and a passage's
    # "highly rated" hotel must not be signed as the best rated.
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan("the best rated hotel in Rome", HOTELS, HOTEL_VALUES)
    assert plan.computed is not None and plan.computed.attribute == "" and not plan.computed.whole
    assert set(plan.computed.candidates) == {"stars", "guest_score"}
    assert "rated" in plan.query.query  # its words still searched


def aggregate(question: str, schema: CollectionSchema = CLUBS, values: dict[str, list[str]] = CLUB_VALUES) -> tuple[str, str] | None:
    found = read_question(question, schema.scalar_view(), values, today=TODAY).aggregate
    return None if found is None else (found.attribute, found.op)


@pytest.mark.parametrize(("question", "expected"), [
    ("What is the average yearly fee of chess clubs?", ("yearly_fee", "average")),
    ("How many members do chess clubs have in total?", ("members", "total")),
    ("How many members do the rowing clubs have altogether?", ("members", "total")),
    ("the mean review score of hiking clubs", ("review_score", "average")),
])  # fmt: skip
def test_an_aggregate_is_of_the_attribute_the_question_names(question: str, expected: tuple[str, str]) -> None:
    assert aggregate(question) == expected


@pytest.mark.parametrize("question", [
    "What does Boston Knights mean to its members?",  # "mean" as a verb
    "What is the total founded of chess clubs?",      # years do not add up
    "What is the average of chess clubs?",            # of what is not said
])  # fmt: skip
def test_no_aggregate_where_it_would_mean_nothing(question: str) -> None:
    assert aggregate(question) is None


def test_a_word_of_the_attributes_own_name_is_no_aggregate() -> None:
    recipes = CollectionSchema.model_validate(json.loads((SETS / "recipes" / "schema.json").read_text()))
    assert read_question("the total minutes of the carbonara", recipes.scalar_view(), {}, today=TODAY).aggregate is None


@pytest.mark.parametrize("question", [
    "Which club do most members attend?",  # "most members" as a quantifier: the superlative takes "the"
    "What do least members want?",
])  # fmt: skip
def test_most_without_the_is_a_quantifier(question: str) -> None:
    assert extreme(question, CLUBS, CLUB_VALUES) is None


@pytest.mark.parametrize("question", [
    "Is Ibis Roma Centro the cheapest hotel in Rome?",
    "Is the average price per night of Rome hotels above 200?",
])  # fmt: skip
def test_a_yes_no_question_is_never_answered_by_the_computation(question: str) -> None:
    # The ranking of the one hotel its name filters says "the lowest of 1", whatever the others cost.
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, HOTELS, {**HOTEL_VALUES, "name": ["Ibis Roma Centro"]})
    assert plan.computed is not None and not plan.computed.whole


def test_a_plural_attribute_is_not_a_plural_of_the_items() -> None:
    # "calories" is a plural noun of the recipes' description: "the highest calories" asked for
    # the one recipe, and got a page of four (bench/superlatives.py).
    recipes = CollectionSchema.model_validate(json.loads((SETS / "recipes" / "schema.json").read_text()))
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan("Which recipe has the highest calories?", recipes, {})
    assert plan.computed is not None and plan.computed.n == 1


def test_the_attributes_description_words_after_its_name_are_its_own() -> None:
    # "the longest battery life": "life" is the description's word ("Battery life in hours"), and
    # left in the search text it kept the ranking from being the whole question.
    reading = read_question("Which laptop has the longest battery life?", LAPTOPS.scalar_view(), {}, today=TODAY)
    assert reading.extreme is not None and reading.extreme.attribute == "battery_hours"
    assert reading.residual == ""


def unmeasured(question: str, schema: CollectionSchema = CLUBS, values: dict[str, list[str]] = CLUB_VALUES) -> str | None:
    found = read_question(question, schema.scalar_view(), values, today=TODAY).extreme
    return None if found is None or found.attribute or found.candidates else found.phrase


@pytest.mark.parametrize(("question", "phrase"), [
    ("the friendliest rowing club", "friendliest"),
    ("Which chess club is the most popular?", "most"),
    ("Which is the best hiking club in Denver?", "best"),
    ("Which tennis club is the nicest?", "nicest"),
    ("Which chess club is most popular?", "most"),
])
def test_a_superlative_of_the_items_no_attribute_measures_is_read_without_one(question: str, phrase: str | None) -> None:
    assert unmeasured(question) == phrase


@pytest.mark.parametrize("question", [
    "clubs with at least 50 members",  # a bound
    "Which club has the most members?",  # measured: members
    "Do clubs take an interest in juniors?",  # "interest" is no superlative
    "What is the best way to join a club?",  # the best of no item
])
def test_no_superlative_of_the_items_is_read_where_none_is(question: str) -> None:
    assert unmeasured(question) is None


def test_a_collection_without_attributes_has_no_items_to_rank() -> None:
    # Free text: "the largest city in Norway" is a fact a passage states, not a ranking of records.
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan("What is the largest city in Norway?",
                                                                  CollectionSchema(attributes=[]), {})
    assert plan.computed is None


@pytest.mark.parametrize("question", ["Which one is the oldest?", "What is the best place to see the band?"])
def test_generic_words_for_results_name_no_items_to_rank(question: str) -> None:
    # HaluEval's collections declare a bookkeeping attribute (``row``): their passages are about
    # the world, and "the best place" ranks none of them.
    evaluation = CollectionSchema(description="Evaluation documents", attributes=[A(name="row", type="integer")])
    assert unmeasured(question, evaluation, {}) is None


def test_a_name_s_own_word_beats_a_name_it_abbreviates() -> None:
    rain = CollectionSchema(description="Yearly rainfall records per town", attributes=[
        A(name="town", type="string"), A(name="rain_mm", type="float", description="Total rainfall in millimetres"),
        A(name="rainy_days", type="integer", description="Number of rainy days")])
    assert extreme("Which town had the most rain in 2022?", rain, {}) == ("rain_mm", True)
    assert extreme("Which town had the most rainy days?", rain, {}) == ("rainy_days", True)


def test_of_a_year_and_a_date_the_words_after_say_which() -> None:
    # "the most recent reading" ranked by ``year`` named ten records tied; the reading's date says.
    rain = CollectionSchema(description="Yearly rainfall records, one per town and year", attributes=[
        A(name="town", type="string"), A(name="year", type="integer", description="calendar year of the record"),
        A(name="measured_on", type="date", description="date of the last reading of the year")])
    found = read_question("What is the most recent reading?", rain.scalar_view(), {}, today=TODAY, full=rain).extreme
    assert found is not None and (found.attribute, found.highest) == ("measured_on", True)
    # "record" is the collection's word for its items: which measure is still not said
    newest = read_question("What is the newest record?", rain.scalar_view(), {}, today=TODAY, full=rain).extreme
    assert newest is not None and newest.attribute == "" and set(newest.candidates) == {"year", "measured_on"}
