"""What session 40's new users found the self-query reading wrong, each a case of a general rule."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.schema import CollectionSchema

HERE = Path(__file__).parent / "schemas"
PLANNER = SelfQueryPlanner(None, mode="rules")
TODAY = date(2026, 6, 1)

# The twenty-eighth new user's campus energy bills: "year the building was built" beside the bill's
# own reading_date, and a month billed stored as "YYYY-MM".
ENERGY = CollectionSchema.model_validate(json.loads((HERE / "energy.json").read_text()))
ENERGY_VALUES = {"building": ["Patel Institute", "Hartley Hall", "Okafor Library"],
                 "manager": ["Tom Hartley", "Anita Patel"], "read_by": ["Ravi Patel", "Lucy Chen"],
                 "tariff": ["Legacy Fixed", "Standard Day", "Green Flex"],
                 "billing_month": ["2022-11", "2022-12", "2023-01", "2023-03"]}


def _where(question: str, schema: CollectionSchema = ENERGY, values: dict[str, list[str]] = ENERGY_VALUES) -> str:
    plan = PLANNER.plan(question, schema, values, today=TODAY)
    return plan.query.filter.model_dump_json() if plan.query.filter is not None else ""


@pytest.mark.parametrize("question", [
    "How many bills does the Patel Institute have in 2023?",
    "bills in 2023",
    "Which bills of Hartley Hall were in 2022?",
])
def test_a_bare_year_of_the_records_is_not_the_year_another_attribute_s_thing_was_built(question: str) -> None:
    # "year the building was built" is the building's year, building being another attribute's
    # name: "bills ... in 2023" counted every bill of a building built in 2023.
    where = _where(question)
    assert "year_built" not in where and "reading_date" in where


@pytest.mark.parametrize("question", ["Which buildings were built in 2023?", "bills of buildings built before 1990"])
def test_a_year_with_the_year_attribute_s_own_words_stays_its_year(question: str) -> None:
    assert "year_built" in _where(question)


@pytest.mark.parametrize("question", [
    "What tariff was Hartley Hall on in December 2022?",
    "bills for Dec 2022",
])
def test_a_month_a_string_attribute_holds_as_year_and_month_is_that_value(question: str) -> None:
    # "month billed, as YYYY-MM": "in December 2022" was read as the reading date's December, and
    # the bill for December 2022 (read on 2023-01-06) was signed "0 matching documents".
    where = _where(question)
    assert '"attribute":"billing_month","comparator":"eq","value":"2022-12"' in where and "reading_date" not in where


def test_a_month_no_value_holds_is_still_a_date() -> None:
    assert "reading_date" in _where("Which bills were read in February 2023?")


def test_a_month_after_the_date_s_own_verb_is_the_date_s() -> None:
    # "How many bills were read in January 2024?": "date the meter was read", not the month billed.
    where = _where("How many bills were read in March 2023?")
    assert "reading_date" in where and "billing_month" not in where


# The twenty-sixth new user's court docket: two dates, filed and decided.
DOCKET = CollectionSchema.model_validate(json.loads((HERE / "docket.json").read_text()))


@pytest.mark.parametrize(("question", "attribute", "highest"), [
    ("Which case was filed earliest?", "filing_date", False),
    ("which case was decided most recently", "decision_date", True),
    ("Which case was filed most recently?", "filing_date", True),
])
def test_a_superlative_of_dates_is_of_the_one_its_verb_describes(question: str, attribute: str, highest: bool) -> None:
    # "Which case was filed earliest?" ranked nothing: filing_date or decision_date, "which one is
    # not said", though "date the case was filed" says it.
    plan = PLANNER.plan(question, DOCKET, {}, today=TODAY)
    assert plan.computed is not None and plan.computed.attribute == attribute and plan.computed.highest is highest


def test_a_superlative_of_dates_no_verb_describes_stays_unsaid() -> None:
    plan = PLANNER.plan("Which case is the earliest?", DOCKET, {}, today=TODAY)
    assert plan.computed is None or not plan.computed.attribute


# The twenty-ninth new user's bird sightings: "year the survey site was established" beside the
# sighting's own obs_date.
BIRDS = CollectionSchema.model_validate(json.loads((HERE / "birds.json").read_text()))
BIRD_VALUES = {"site": ["Reed Point", "Kestrel Heath", "Margaret Lind Reserve"], "species": ["Skylark", "Osprey", "Eurasian Curlew"],
               "observer": ["Elena Carver", "Tom Lind"], "verifier": ["Sara Lind", "Mark Osei"], "weather": ["rain", "clear"]}


@pytest.mark.parametrize("question", [
    "How many skylark sightings were there in 2022?",
    "Which sightings were recorded by Elena Carver in 2024?",
    "Sightings at Reed Point in 2023",
    "How many Eurasian Curlew sightings were recorded before 2023?",
    "Which Kestrel Heath sightings were in 2023?",
])
def test_a_bare_year_is_not_the_year_a_thing_of_two_words_was_established(question: str) -> None:
    # "year the survey site was established": the site's year, "site" being another attribute.
    where = _where(question, BIRDS, BIRD_VALUES)
    assert "site_established" not in where and "obs_date" in where


def test_the_site_s_own_year_stays_its_year() -> None:
    assert "site_established" in _where("Which sites were established in 2019?", BIRDS, BIRD_VALUES)


@pytest.mark.parametrize("question", [
    "Did Sara Lind observe any sightings?",
    "How many sightings has Sara Lind observed?",
])
def test_a_person_of_one_role_asked_about_another_s_verb_is_no_set_answer(question: str) -> None:
    # "Did Sara Lind observe any sightings?" was signed "Yes: 7 matching documents": she verifies
    # records (verifier), and "observe" is the observer's own verb.
    plan = PLANNER.plan(question, BIRDS, BIRD_VALUES, today=TODAY)
    assert plan.asks is None and plan.whether is None and plan.computed is None
    assert any(c.kind == "another_role" and "observer" in c.detail for c in plan.changes)


def test_a_person_asked_about_the_own_role_s_verb_is_still_a_set_answer() -> None:
    plan = PLANNER.plan("How many sightings did Sara Lind verify?", BIRDS, BIRD_VALUES, today=TODAY)
    assert not any(c.kind == "another_role" for c in plan.changes)
    assert PLANNER.plan("Which sightings did Elena Carver observe?", BIRDS, BIRD_VALUES, today=TODAY).asks is not None


# The twenty-seventh new user's pull requests: a repository "okafor" beside authors Dana and Kwame
# Okafor, and a branch "marlow" beside Priya Marlow.
PRS = CollectionSchema.model_validate(json.loads((HERE / "prs.json").read_text()))
PR_VALUES = {"repository": ["okafor", "core", "web"], "author": ["Dana Okafor", "Kwame Okafor", "Priya Marlow"],
             "reviewer": ["Jonas Berg"], "base_branch": ["main", "develop", "marlow"], "state": ["open", "merged", "closed"]}


@pytest.mark.parametrize("question", ["pull requests by Okafor", "How many pull requests by Marlow?"])
def test_by_a_surname_that_is_also_a_kind_s_value_is_ambiguous(question: str) -> None:
    # "pull requests by Okafor" was signed "7 matching documents": the okafor repository's, while
    # "by" names a person (Dana or Kwame Okafor).
    plan = PLANNER.plan(question, PRS, PR_VALUES, today=TODAY)
    assert plan.asks is None and any(c.kind == "ambiguous_name" for c in plan.changes)


def test_in_a_value_of_a_kind_stays_that_value() -> None:
    plan = PLANNER.plan("pull requests in okafor", PRS, PR_VALUES, today=TODAY)
    assert not any(c.kind == "ambiguous_name" for c in plan.changes)


SALES = CollectionSchema.model_validate(json.loads((HERE / "sales.json").read_text()))


@pytest.mark.parametrize("question", [
    "What was the most expensive sale in Brackley?",
    "What was the cheapest house sold in Harwood?",
    "Who listed the most expensive property sold in 2023?",
])
def test_an_auxiliary_or_a_verb_of_the_items_is_no_verb_of_the_measure(question: str) -> None:
    # The reruns of session 40: "was" (of "asking price the property was listed at") and "listed the
    # most expensive property" chose list_price, signed beside sale_price; which price is not said.
    plan = PLANNER.plan(question, SALES, {"city": ["Brackley", "Harwood"]}, today=TODAY)
    assert plan.computed is None or not plan.computed.attribute


INSPECTIONS = CollectionSchema.model_validate(json.loads((HERE / "inspections.json").read_text()))


@pytest.mark.parametrize("question", ["What date was Taqueria Sol inspected in 2023?", "Was Olive & Thyme inspected in 2024?"])
def test_what_is_done_to_a_name_is_no_other_role_s_verb(question: str) -> None:
    # The reruns of session 40: "Was Olive & Thyme inspected in 2024?" read "inspected" as the
    # inspector's verb, while the restaurant is what is inspected ("name of the inspected restaurant").
    plan = PLANNER.plan(question, INSPECTIONS, {"restaurant": ["Taqueria Sol", "Olive & Thyme"]}, today=TODAY)
    assert not any(c.kind == "another_role" for c in plan.changes)


BOOKS = CollectionSchema.model_validate({"description": "Books in the shop", "attributes": [
    {"name": "title", "type": "string", "kind": "name", "description": "title of the book"},
    {"name": "author", "type": "string", "kind": "name", "description": "author who wrote the book"},
    {"name": "publisher", "type": "string", "kind": "name", "description": "publisher of the book"},
    {"name": "pub_year", "type": "integer", "kind": "year", "description": "year the book was published"}]})


def test_a_participle_after_the_author_is_what_was_done_to_the_items() -> None:
    # The reruns of session 40: "Are there any books by Elena Rose published in the 2020s?" read
    # "published" as the publisher's verb, though Elena Rose wrote them.
    plan = PLANNER.plan("Are there any books by Elena Rose published in the 2020s?", BOOKS,
                        {"author": ["Elena Rose"], "publisher": ["Greenleaf Publishing"]}, today=TODAY)
    assert not any(c.kind == "another_role" for c in plan.changes)


@pytest.mark.parametrize("question", ["Which sightings were observed by Sara Lind?", "list the sightings Sara Lind observed"])
def test_another_role_s_verb_said_of_the_person_in_other_ways(question: str) -> None:
    plan = PLANNER.plan(question, BIRDS, BIRD_VALUES, today=TODAY)
    assert any(c.kind == "another_role" for c in plan.changes)
