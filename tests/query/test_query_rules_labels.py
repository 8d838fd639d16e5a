"""Numbers and names that label a thing ("route 62", "platform 3", "from Kingsford Central") are
not counts of results, and a label is a filter value only when the collection knows it as one."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from selfrag.query import SelfQueryPlanner, read_question, to_where
from selfrag.schema import AttributeInfo, CollectionSchema

TODAY = date(2025, 6, 1)
TRANSIT = CollectionSchema(
    description="Public transport timetables",
    attributes=[
        AttributeInfo(name="route", type="string", description="Route name or number"),
        AttributeInfo(name="mode", type="string", description="Mode of transport", allowed_values=["rail", "bus", "ferry"]),
        AttributeInfo(name="effective_year", type="integer", description="Year the timetable takes effect"),
    ],
)
ROUTES = {"route": ["R1", "R2", "14", "62", "F1", "N62"]}
FLIGHTS = CollectionSchema(
    description="Flight departures",
    attributes=[
        AttributeInfo(name="airline", type="string", description="The airline operating the flight"),
        AttributeInfo(name="destination", type="string", description="City the flight goes to", kind="place"),
        AttributeInfo(name="price", type="float", description="Cheapest fare in euros"),
    ],
)
AIRLINES = {"airline": ["Lufthansa", "KLM", "Ryanair"], "destination": ["Lisbon", "Oslo", "Rome"]}
ROOMS = CollectionSchema(
    description="Hotel rooms",
    attributes=[
        AttributeInfo(name="hotel", type="string", description="Name of the hotel"),
        AttributeInfo(name="beds", type="integer", description="Number of beds"),
        AttributeInfo(name="sea_view", type="boolean", description="Whether the room looks out to sea"),
    ],
)
HOTELS = {"hotel": ["Grand Hotel", "Harbour Inn"]}


def limit(question: str, schema: CollectionSchema = TRANSIT, catalogue: dict[str, list[str]] = ROUTES) -> int | None:
    return read_question(question, schema, catalogue, today=TODAY).query.limit


@pytest.mark.parametrize(
    ("question", "schema", "catalogue"),
    [
        # a noun right before a number: the number names one of them
        ("How often do buses run on route 62 on weekdays?", TRANSIT, ROUTES),
        ("Does bus 62 run on Saturdays?", TRANSIT, ROUTES),
        ("Which trains leave from platform 3 on Sundays?", TRANSIT, ROUTES),
        ("How often does line 4 run on weekdays?", TRANSIT, ROUTES),
        ("Which gate does flight 24 board from on Mondays?", FLIGHTS, AIRLINES),
        ("Is gate 12 close to the lounges?", FLIGHTS, AIRLINES),
        ("Is room 12 free on weekends?", ROOMS, HOTELS),
        ("Do rooms on floor 3 have balconies?", ROOMS, HOTELS),
        # the things a count counts come right after it, not after a preposition
        ("Which trains leave at 6 on Sundays?", TRANSIT, ROUTES),
        ("Which flights leave at 9 on weekdays?", FLIGHTS, AIRLINES),
    ],
)
def test_a_number_that_names_something_is_not_a_limit(question: str, schema: CollectionSchema, catalogue: dict[str, list[str]]) -> None:
    assert limit(question, schema, catalogue) is None


@pytest.mark.parametrize(
    ("question", "schema", "catalogue", "count"),
    [
        ("show me 5 bus routes", TRANSIT, ROUTES, 5),
        ("top 3 ferry routes", TRANSIT, ROUTES, 3),
        ("the quietest 3 rooms at the Grand Hotel", ROOMS, HOTELS, 3),
        ("another 5 flights to Oslo", FLIGHTS, AIRLINES, 5),
        ("the next 2 flights to Lisbon", FLIGHTS, AIRLINES, 2),
        ("5 of the KLM flights", FLIGHTS, AIRLINES, 5),
        ("4 rooms with a sea view", ROOMS, HOTELS, 4),
        ("3 sea view rooms at the Harbour Inn", ROOMS, HOTELS, 3),
    ],
)
def test_a_count_of_results_is_still_a_limit(question: str, schema: CollectionSchema, catalogue: dict[str, list[str]], count: int) -> None:
    assert limit(question, schema, catalogue) == count


@pytest.mark.parametrize(
    ("question", "count", "expected"),
    [
        # price is described as the "cheapest fare": the superlative names it, the number counts flights
        ("the cheapest 3 flights", 3, None),
        ("the 2 cheapest flights", 2, None),
        ("the 2 cheapest KLM flights", 2, {"airline": {"$eq": "KLM"}}),
        ("3 cheap flights to Oslo", 3, {"destination": {"$eq": "Oslo"}}),
    ],
)
def test_a_count_beside_a_word_naming_an_attribute_is_a_limit_not_its_value(question: str, count: int, expected: Any) -> None:
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, FLIGHTS, AIRLINES)
    assert (plan.query.limit, plan.where) == (count, expected)
    # the engine has no sort: the superlative stays in the search text, which ranks by it
    assert "cheap" in plan.query.query


def test_a_route_number_is_not_clamped_into_a_limit() -> None:
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan("Does bus 62 run on Saturdays?", TRANSIT, ROUTES)
    assert plan.query.limit is None
    assert "clamped_limit" not in [c.kind for c in plan.changes]


HOMES = CollectionSchema(
    description="Homes for sale",
    attributes=[
        AttributeInfo(name="suburb", type="string", description="Suburb the home is in", kind="place"),
        AttributeInfo(name="postcode", type="string", description="Postal code"),
        AttributeInfo(name="price", type="integer", description="Asking price in dollars"),
        AttributeInfo(name="year_built", type="integer", description="Year the home was built"),
    ],
)
SUBURBS = {"suburb": ["Richmond", "Carlton"], "postcode": ["2000", "3121", "3053"]}


def where(question: str, schema: CollectionSchema = TRANSIT, catalogue: dict[str, list[str]] = ROUTES) -> Any:
    return to_where(read_question(question, schema, catalogue, today=TODAY).query.filter)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How often do buses run on route 62 on weekdays?", {"$and": [{"mode": {"$eq": "bus"}}, {"route": {"$eq": "62"}}]}),
        ("Does bus 62 run on Saturdays?", {"$and": [{"mode": {"$eq": "bus"}}, {"route": {"$eq": "62"}}]}),
        ("When does the last 14 leave?", {"route": {"$eq": "14"}}),
        ("timetables for every route except 62", {"route": {"$ne": "62"}}),
        ("Do route 14 and route R2 share a stop?", {"route": {"$in": ["14", "R2"]}}),
    ],
)
def test_a_number_that_is_a_known_value_is_read_as_that_value(question: str, expected: Any) -> None:
    assert where(question) == expected


def test_a_known_value_number_on_another_schema() -> None:
    assert where("homes in 3121 under 900k", HOMES, SUBURBS) == {"$and": [{"postcode": {"$eq": "3121"}}, {"price": {"$lt": 900000}}]}
    # A year is read by the year reader first: 2000 is also a known postcode.
    assert where("homes built after 2000", HOMES, SUBURBS) == {"year_built": {"$gt": 2000}}


@pytest.mark.parametrize(
    ("question", "count"),
    [("show me 14 bus routes", 14), ("14 ferry routes", 14), ("Which routes take 14 minutes?", None)],
)
def test_a_count_or_a_quantity_is_not_a_value_even_when_known(question: str, count: int | None) -> None:
    query = read_question(question, TRANSIT, ROUTES, today=TODAY).query
    assert "route" not in json.dumps(to_where(query.filter))
    assert query.limit == count


def test_the_words_around_a_route_number_stay_the_search_text() -> None:
    query = read_question("What is the fare on bus 14?", TRANSIT, ROUTES, today=TODAY).query
    assert where("What is the fare on bus 14?") == {"$and": [{"mode": {"$eq": "bus"}}, {"route": {"$eq": "14"}}]}
    assert query.query == "fare"


def test_a_route_number_is_planned_as_the_route() -> None:
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan("How often do buses run on route 62 on weekdays?", TRANSIT, ROUTES)
    assert plan.where == {"$and": [{"mode": {"$eq": "bus"}}, {"route": {"$eq": "62"}}]}
    assert plan.query.limit is None and plan.changes == []


MOVIES = CollectionSchema(
    description="Brief summaries of movies",
    attributes=[
        AttributeInfo(name="genre", type="string", description="The genre of the movie", allowed_values=["drama", "comedy"]),
        AttributeInfo(name="director", type="string", description="The name of the movie director"),
    ],
)
DIRECTORS = {"director": ["Greta Gerwig", "Christopher Nolan", "Luc Besson"]}


@pytest.mark.parametrize(
    ("question", "schema", "catalogue", "expected", "searched"),
    [
        ("How long is the journey from Kingsford Central to Millbrook on R1?", TRANSIT, ROUTES, {"route": {"$eq": "R1"}}, "Kingsford Central"),
        ("Which R1 trains leave from Kingsford Central?", TRANSIT, ROUTES, {"route": {"$eq": "R1"}}, "Kingsford Central"),
        ("Christopher Nolan films shot at Pinewood", MOVIES, DIRECTORS, {"director": {"$eq": "Christopher Nolan"}}, "Pinewood"),
        ("Did Luc Besson make a comedy from Lyon?", MOVIES, DIRECTORS,
         {"$and": [{"director": {"$eq": "Luc Besson"}}, {"genre": {"$eq": "comedy"}}]}, "Lyon"),
    ],
)  # fmt: skip
def test_an_unknown_name_nothing_ties_to_a_named_value_is_not_joined_to_it(
    question: str, schema: CollectionSchema, catalogue: dict[str, list[str]], expected: Any, searched: str
) -> None:
    query = read_question(question, schema, catalogue, today=TODAY).query
    assert to_where(query.filter) == expected
    assert searched in query.query


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # alone, an unknown name after a cue is kept as written (the catalogue may lack the person)
        ("comedies by Agnès Varda", {"$and": [{"genre": {"$eq": "comedy"}}, {"director": {"$eq": "Agnès Varda"}}]}),
        # listed with a known value, it is one more of them
        ("films by Nolan or by Agnès Varda", {"director": {"$in": ["Christopher Nolan", "Agnès Varda"]}}),
        ("dramas by Luc Besson, by Agnès Varda or by Greta Gerwig",
         {"$and": [{"genre": {"$eq": "drama"}}, {"director": {"$in": ["Luc Besson", "Agnès Varda", "Greta Gerwig"]}}]}),
        # the attribute's own word ties it
        ("Greta Gerwig films or films directed by Agnès Varda", {"director": {"$in": ["Greta Gerwig", "Agnès Varda"]}}),
    ],
)  # fmt: skip
def test_an_unknown_name_tied_to_the_attribute_is_kept(question: str, expected: Any) -> None:
    assert where(question, MOVIES, DIRECTORS) == expected


def test_a_place_beside_a_route_is_not_planned_as_a_route() -> None:
    question = "How long is the journey from Kingsford Central to Millbrook on R1?"
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, TRANSIT, ROUTES)
    assert plan.where == {"route": {"$eq": "R1"}}
    assert "kept_unknown_value" not in [c.kind for c in plan.changes]


def test_unknown_names_without_a_known_value_are_kept_as_before() -> None:
    assert where("comedies by Agnès Varda or by Jacques Demy", MOVIES, DIRECTORS) == {
        "$and": [{"genre": {"$eq": "comedy"}}, {"director": {"$in": ["Agnès Varda", "Jacques Demy"]}}]
    }


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # the cue before the first name carries over the list: one attribute, one $in
        ("films by Greta Gerwig or Agnès Varda", {"director": {"$in": ["Greta Gerwig", "Agnès Varda"]}}),
        ("films by Agnès Varda or Jacques Demy", {"director": {"$in": ["Agnès Varda", "Jacques Demy"]}}),
        ("dramas by Luc Besson, Agnès Varda or Jacques Demy",
         {"$and": [{"genre": {"$eq": "drama"}}, {"director": {"$in": ["Luc Besson", "Agnès Varda", "Jacques Demy"]}}]}),
        ("films not by Greta Gerwig or Agnès Varda", {"director": {"$nin": ["Greta Gerwig", "Agnès Varda"]}}),
        # a name listed after something that is no value of a name-like attribute stays in the search text
        ("Greta Gerwig films set in Sacramento or Berkeley", {"director": {"$eq": "Greta Gerwig"}}),
        ("films by Greta Gerwig, Lady Bird above all", {"director": {"$eq": "Greta Gerwig"}}),
    ],
)  # fmt: skip
def test_a_name_listed_after_a_value_with_or_joins_its_attribute(question: str, expected: Any) -> None:
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, MOVIES, DIRECTORS)
    assert plan.where == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What time does the first bus leave Kingsford Central?", {"mode": {"$eq": "bus"}}),
        ("When does the first bus leave from Kingsford Central?", {"mode": {"$eq": "bus"}}),
        ("Which routes stop at Kingsford Central?", None),
        ("buses from Kingsford Central to Millbrook", {"mode": {"$eq": "bus"}}),
    ],
)
def test_a_name_unlike_every_known_value_of_an_attribute_stays_in_the_search_text(question: str, expected: Any) -> None:
    # route's known values are codes (R1, 14, 62): a place name after a cue is where the bus goes, not a route
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, TRANSIT, ROUTES)
    assert plan.where == expected
    assert "Kingsford Central" in plan.query.query
    assert "kept_unknown_value" not in [c.kind for c in plan.changes]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # shaped like the known values (a code), or named by the attribute's own word: still a value
        ("timetables from N63", {"route": {"$eq": "N63"}}),
        ("night buses on route Kingsford Express", {"$and": [{"mode": {"$eq": "bus"}}, {"route": {"$eq": "Kingsford Express"}}]}),
    ],
)
def test_a_name_like_the_known_values_or_named_by_the_attribute_is_still_a_value(question: str, expected: Any) -> None:
    assert where(question) == expected


def test_the_attribute_word_right_before_a_name_names_its_attribute() -> None:
    assert where("comedies with director Agnès Varda", MOVIES, DIRECTORS) == {
        "$and": [{"genre": {"$eq": "comedy"}}, {"director": {"$eq": "Agnès Varda"}}]
    }
    # capitalised, the word is part of the name, which nothing ties to an attribute (and "a bus" is
    # what the yes/no question asks of it, no filter either: test_query_rules_yes_no)
    query = read_question("Is Route Kingsford Express a bus?", TRANSIT, ROUTES, today=TODAY).query
    assert query.filter is None and "Route Kingsford Express" in query.query


FARES = CollectionSchema(
    description="Bus fares and timetables",
    attributes=[AttributeInfo(name="route", type="string", description="Route name or number")],
)
FARES_DATED = CollectionSchema(
    description=FARES.description,
    attributes=[*FARES.attributes, AttributeInfo(name="published", type="date", description="Date the notice was published")],
)
FARES_BY_ROUTE = CollectionSchema(
    description="Public transport notices",
    attributes=[AttributeInfo(name="route", type="string", description="Route the fares apply to")],
)


@pytest.mark.parametrize(
    ("question", "schema"),
    [
        # "fares" names the collection's items, yet it is all these questions ask about
        ("What are the latest fares?", FARES),
        ("How much are the fares?", FARES),
        ("return fares", FARES),
        ("fares in 2024", FARES),
        # "fares" is a word of route's description, and route 14 is read
        ("How much are the fares on route 14?", FARES_BY_ROUTE),
    ],
)
def test_a_word_naming_the_items_is_searched_when_it_is_what_the_question_asks_about(question: str, schema: CollectionSchema) -> None:
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, schema, ROUTES)
    assert "fares" in plan.query.query


def test_the_latest_items_are_searched_for_by_their_word_and_still_listed_newest_first() -> None:
    planner = SelfQueryPlanner(None, mode="rules", today=TODAY)
    plan = planner.plan("the latest fares on route 14", FARES_DATED, ROUTES)
    assert plan.where == {"route": {"$eq": "14"}}
    assert "fares" in plan.query.query
    # a word for the collection's items is no topic: "latest" still asks for the newest of them
    notices = FARES_DATED.model_copy(update={"description": "Public transport notices"})
    assert plan.latest and planner.plan("the latest notices on route 14", notices, ROUTES).latest


GALLERY = CollectionSchema(
    description="Catalogue of objects in a city gallery",
    attributes=[
        AttributeInfo(name="artist", type="string", description="artist or maker of the object"),
        AttributeInfo(name="year_made", type="integer", description="year the object was made", kind="year"),
        AttributeInfo(name="medium", type="string", description="material or technique of the object"),
        AttributeInfo(name="room", type="integer", description="gallery room where the object hangs", minimum=1, maximum=9),
    ],
)
MAKERS = {"artist": ["Ada Brenn", "Oskar Vale"], "medium": ["oil on canvas", "watercolour on paper", "bronze"]}


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("What are the dimensions of Lighthouse at Noon?", "Lighthouse at Noon"),
        ("Who painted Children in Winter?", "Children in Winter"),
        ("When was Letters from Home made?", "Letters from Home"),
        ("How big is Study of a Heron by Water?", "Study of a Heron by Water"),
    ],
)
def test_a_cue_word_inside_a_capitalised_title_does_not_split_it(question: str, title: str) -> None:
    # "at", "in", "from", "by" between two capitalised words of one title join them: "Noon" is no artist
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, GALLERY, MAKERS)
    assert plan.where is None
    assert title in plan.query.query


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("paintings by Ines Kola", "Ines Kola"),
        ("Paintings by Ines Kola", "Ines Kola"),  # capitalised only as the first word: no title
        ("Which paintings are by Ines Kola?", "Ines Kola"),
    ],
)
def test_a_name_after_a_cue_outside_a_title_is_still_a_value(question: str, name: str) -> None:
    assert where(question, GALLERY, MAKERS) == {"artist": {"$eq": name}}


RELEASES = CollectionSchema(
    description="Release notes of software products",
    attributes=[
        AttributeInfo(name="product", type="string", description="software product the release notes describe"),
        AttributeInfo(name="version", type="string", description="version number of the release"),
        AttributeInfo(name="release_year", type="integer", description="year the version was released", kind="year"),
    ],
)
VERSIONS = {"product": ["Lumen", "Quire"], "version": ["1.4", "2.0", "2.1", "3.0"]}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What changed in Lumen after version 2.0?", {"product": {"$eq": "Lumen"}}),
        ("Which Lumen releases are newer than 2.0?", {"product": {"$eq": "Lumen"}}),
        ("What was removed before version 2.1?", None),
        ("Quire changes since 1.4", {"product": {"$eq": "Quire"}}),
        ("Lumen 2.0 or later", {"product": {"$eq": "Lumen"}}),
        ("What changed in Lumen after version 2.0 released before 2023?",
         {"$and": [{"product": {"$eq": "Lumen"}}, {"release_year": {"$lt": 2023}}]}),
    ],
)
def test_a_comparison_on_a_string_attribute_is_no_equality(question: str, expected: Any) -> None:
    # Chroma cannot order strings: "after version 2.0" is searched, never read as version == 2.0
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, RELEASES, VERSIONS)
    assert plan.where == expected
    assert "version" not in json.dumps(plan.where)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What changed in Lumen 2.0?", {"$and": [{"product": {"$eq": "Lumen"}}, {"version": {"$eq": "2.0"}}]}),
        ("Lumen version 2.1 release notes", {"$and": [{"product": {"$eq": "Lumen"}}, {"version": {"$eq": "2.1"}}]}),
    ],
)
def test_a_version_named_without_a_comparison_is_still_its_value(question: str, expected: Any) -> None:
    assert where(question, RELEASES, VERSIONS) == expected


@pytest.mark.parametrize(
    ("question", "searched"),
    [
        ("What changed in Lumen after version 2.0?", "after version 2.0"),
        ("Is TLS 1.0 enabled by default in Lumen 2.1?", "TLS 1.0 enabled"),
        ("Which Lumen releases support Wi-Fi?", "Wi-Fi"),
    ],
)
def test_words_joined_by_punctuation_stay_joined_in_the_search_text(question: str, searched: str) -> None:
    # "2.0" searched as "2 0" is two numbers to the lexical index, which keeps "2.0" whole
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, RELEASES, VERSIONS)
    assert searched in plan.query.query


FARE_TABLE = CollectionSchema(
    description="Bus timetables",
    attributes=[
        AttributeInfo(name="route", type="string", description="Route name or number"),
        AttributeInfo(name="fares", type="float", description="Adult fare in dollars"),
    ],
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a noun before the number labels one thing: "route 14" is the route, "fares" what is asked of it
        ("route 14 fares", {"route": {"$eq": "14"}}),
        ("bus 62 fares", {"route": {"$eq": "62"}}),
        ("route 99 fares", None),  # no known route: nothing, and 99 is no fare either
        ("route 14 fares under 3 dollars", {"$and": [{"route": {"$eq": "14"}}, {"fares": {"$lt": 3.0}}]}),
        # no label before it: the number is still the fares'
        ("fares of 3 dollars on route 14", {"$and": [{"fares": {"$eq": 3.0}}, {"route": {"$eq": "14"}}]}),
    ],
)
def test_a_number_labelled_by_the_noun_before_it_is_no_quantity_of_the_noun_after_it(question: str, expected: Any) -> None:
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, FARE_TABLE, ROUTES)
    assert plan.where == expected


def test_a_word_of_a_string_attribute_s_description_is_no_label() -> None:
    # "serves" is a word of course's description ("served as"), not its name: 8 is still the servings
    dishes = CollectionSchema(description="Recipes", attributes=[
        AttributeInfo(name="course", type="string", description="Which course the dish is served as", allowed_values=["main", "side"]),
        AttributeInfo(name="servings", type="integer", description="How many people the recipe serves", minimum=1),
    ])
    assert where("a main that serves 8 people", dishes, {}) == {"$and": [{"course": {"$eq": "main"}}, {"servings": {"$eq": 8}}]}
