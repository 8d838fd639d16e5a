"""What an eleventh new user's security advisories found signed wrong: two date attributes
(published, patched), a category whose values are "low" … "critical", and a list of versions."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.query._grounding import clauses
from selfrag.schema import CollectionSchema

ADVISORIES = CollectionSchema.model_validate(json.loads((Path(__file__).parent / "schemas" / "advisories.json").read_text()))
CATALOGUE = {"advisory_id": ["SA-2021-0003", "SA-2022-0055"], "product": ["Corvid", "Corvid Edge", "Heron DB"],
             "vendor": ["Nightjar Labs", "Current"], "affected_versions": ["2.0", "2.1", "2.2"],
             "cwe": ["path traversal", "SQL injection"]}
PLANNER = SelfQueryPlanner(None, mode="rules")


def _plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, ADVISORIES, CATALOGUE, today=date(2026, 6, 1))


@pytest.mark.parametrize("question", [
    "How many advisories affect version 2.0?",
    "Which advisories affect version 2.1?",
])
def test_the_items_word_first_asks_for_the_items_not_an_attribute_s_values(question: str) -> None:
    # "How many advisories affect version 2.0?" was signed "3: 2.0, 2.1, 2.2", the distinct versions
    # ("affect" named affected_versions); the five advisories were the answer.
    plan = _plan(question)
    assert plan.computed is None and plan.asks == "documents"


def _bounds(question: str) -> set[tuple[str, str, object]]:
    return {(c.attribute, c.comparator, c.value) for c in clauses(_plan(question).query.filter)}


@pytest.mark.parametrize(("question", "expected"), [
    # "patched in 2023" was dropped and the 8 advisories published in 2022 listed, signed.
    ("Which advisories were published in 2022 and patched in 2023?",
     {("published", "gte", 20220101), ("published", "lt", 20230101), ("patched", "gte", 20230101), ("patched", "lt", 20240101)}),
    ("Which advisories were patched before 2022 and published after 2020?",
     {("patched", "lt", 20220101), ("published", "gte", 20210101)}),
])
def test_each_date_phrase_bounds_the_date_its_verb_names(question: str, expected: set[tuple[str, str, object]]) -> None:
    assert _bounds(question) == expected


def test_a_second_date_phrase_joined_by_or_is_no_second_bound() -> None:
    plan = _plan("Which advisories were published in 2022 or patched in 2023?")
    assert plan.asks is None and not {c.attribute for c in clauses(plan.query.filter)} >= {"published", "patched"}


@pytest.mark.parametrize("question", [
    "How many advisories were not published in 2024?",
    "Which advisories weren't published in 2024?",
    "advisories not published in 2024",
])
def test_a_negated_date_phrase_selects_the_dates_outside_it(question: str) -> None:
    # "How many advisories were not published in 2024?" was signed "10 matching documents", the 2024 ones.
    plan = _plan(question)
    assert plan.query.filter is not None
    assert plan.query.filter.model_dump(exclude_none=True) == {
        "operator": "or", "arguments": [{"attribute": "published", "comparator": "lt", "value": 20240101},
                                        {"attribute": "published", "comparator": "gte", "value": 20250101}]}


@pytest.mark.parametrize("question", [
    "Which advisories were published in 2022 or 2023?",
    "How many advisories were published in 2024 or 2025?",
    "Which advisories were published in March 2024 or April 2024?",
])
def test_a_date_with_an_alternative_after_it_is_not_answered_from_one_of_them(question: str) -> None:
    # "published in 2022 or 2023" listed the 2022 ones alone, signed.
    assert _plan(question).asks is None


@pytest.mark.parametrize("question", [
    "Which advisory has the highest CVSS score?",
    "Which advisory has the lowest cvss?",
    "Which Corvid advisory has the highest CVSS?",
])
def test_a_superlative_is_no_category_value_its_stem_spells(question: str) -> None:
    # "highest" was read as severity = high: no score was ranked (15 questions).
    plan = _plan(question)
    assert "severity" not in {c.attribute for c in clauses(plan.query.filter)}
    assert plan.computed is not None and plan.computed.attribute == "cvss"


def test_a_comparative_is_no_category_value_either() -> None:
    plan = _plan("Which advisories have a CVSS score higher than 9?")
    assert {(c.attribute, c.comparator) for c in clauses(plan.query.filter)} == {("cvss", "gt")}


# A twelfth new user's bookshop: titles that are numbers ("2084") or a surname ("Hunter").
BOOKS = CollectionSchema.model_validate(json.loads((Path(__file__).parent / "schemas" / "books.json").read_text()))
SHELF = {"title": ["Winter Lanterns", "2084", "Hunter", "The Long Road", "The Long Road Home"],
         "author": ["Mara Hunter", "Sasha Kline"], "publisher": ["Northlight Books"], "genres": ["history", "fantasy"]}


def _book_plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, BOOKS, SHELF, today=date(2026, 6, 1))


@pytest.mark.parametrize("question", [
    "What is Winter Lanterns about?",
    "What is The Long Road Home for?",
])
def test_a_preposition_left_at_the_end_asks_something_the_filter_does_not_hold(question: str) -> None:
    # "What is Winter Lanterns about?" was signed "1 matching document: Winter Lanterns by Mara Hunter
    # was published …", the record's first sentence, which says nothing of what the book is about.
    assert _book_plan(question).asks is None


@pytest.mark.parametrize("question", ["price of 2084?", "How many pages does 2084 have?"])
def test_a_number_that_is_a_known_title_is_the_title(question: str) -> None:
    # "price of 2084?" was signed "No: no document in 'books' has price 2084."
    found = {(c.attribute, c.value) for c in clauses(_book_plan(question).query.filter)}
    assert found == {("title", "2084")}


def test_a_price_with_its_currency_stays_a_price_beside_a_numeric_title() -> None:
    found = {(c.attribute, c.comparator) for c in clauses(_book_plan("books with a price of $2084").query.filter)}
    assert found == {("price", "eq")}


@pytest.mark.parametrize("question", ["Books by Hunter?", "How many books did Hunter write?"])
def test_a_name_that_is_also_another_name_s_word_is_no_answer_from_the_filter(question: str) -> None:
    # "Books by Hunter?" was signed "Yes: 1 matching document: Hunter by Sasha Kline": the title
    # "Hunter", where Mara Hunter's four books were asked for.
    plan = _book_plan(question)
    assert plan.asks is None and any(c.kind == "ambiguous_name" for c in plan.changes)


def test_a_name_written_whole_is_not_ambiguous() -> None:
    plan = _book_plan("Books by Mara Hunter?")
    assert {(c.attribute, c.value) for c in clauses(plan.query.filter)} == {("author", "Mara Hunter")}
    assert not any(c.kind == "ambiguous_name" for c in plan.changes)


def test_a_list_element_inside_a_known_name_is_part_of_the_name() -> None:
    # "Is A Short History of Bridges rated above 4?" added genres contains "history", from the title:
    # a book of another genre would be answered "No" whatever its rating.
    plan = PLANNER.plan("Is A Short History of Bridges rated above 4?", BOOKS,
                        {**SHELF, "title": [*SHELF["title"], "A Short History of Bridges"]}, today=date(2026, 6, 1))
    assert "genres" not in {c.attribute for c in clauses(plan.query.filter)}


# A thirteenth new user's staff directory: a manager is another employee, by name.
STAFF = CollectionSchema.model_validate(json.loads((Path(__file__).parent / "schemas" / "staff.json").read_text()))
PEOPLE = {"name": ["Yuki Tanaka", "Ruby Chen", "Leo Brandt"], "manager": ["Yuki Tanaka", "Leo Brandt"],
          "city": ["Austin", "Berlin", "Paris"], "skills": ["Ruby", "Python"], "languages": ["Japanese", "French"]}


def _staff_plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, STAFF, PEOPLE, today=date(2026, 6, 1))


@pytest.mark.parametrize("question", ["What languages does Yuki Tanaka speak?", "Which city is Yuki Tanaka based in?"])
def test_a_name_the_records_are_called_by_and_another_attribute_holds_is_no_answer_from_both(question: str) -> None:
    # "What languages does Yuki Tanaka speak?" was signed with her languages and her two reports'
    # (name = Yuki Tanaka or manager = Yuki Tanaka).
    assert _staff_plan(question).asks is None


def test_a_first_name_that_is_a_skill_is_part_of_the_name() -> None:
    # "Is Ruby Chen remote?" was signed "No": "Ruby" read as the skill.
    assert "skills" not in {c.attribute for c in clauses(_staff_plan("Is Ruby Chen remote?").query.filter)}


def test_a_preposition_whose_object_is_the_items_asked_for_keeps_the_listing() -> None:
    # An intermediate commit unsigned "Which matches did Edu Santos score in?" (a ninth user's probe).
    from tests.query.test_query_probe_s33 import _match_plan

    assert _match_plan("Which matches did Arlow City play in?").asks == "documents"


@pytest.mark.parametrize("question", ["Is Marta Kowalska an Engineering Manager?", "Is Yuki Tanaka a Sales Manager?"])
def test_a_word_of_a_known_value_names_no_attribute(question: str) -> None:
    # "Is Marta Kowalska an Engineering Manager?" was answered from whether her reports work in
    # Engineering: "Manager", a word of the title "Engineering Manager", named the manager attribute.
    catalogue = {**PEOPLE, "name": [*PEOPLE["name"], "Marta Kowalska"], "manager": [*PEOPLE["manager"], "Marta Kowalska"],
                 "title": ["Engineering Manager", "Sales Manager", "Support Team Lead"],
                 "department": ["Engineering", "Sales", "Support"]}
    plan = PLANNER.plan(question, STAFF, catalogue, today=date(2026, 6, 1))
    found = {c.attribute for c in clauses(plan.query.filter)}
    assert "title" in found and "department" not in found and plan.whether is None


def test_a_brand_that_opens_or_sits_inside_other_names_is_no_surname() -> None:
    # An intermediate commit unsigned "Marriott hotels in Paris" (a self-query set's listing): the
    # chain is a word of its hotels' names ("Paris Marriott Champs-Elysees"), not a surname.
    hotels = CollectionSchema.model_validate({"description": "Hotel listings", "attributes": [
        {"name": "name", "type": "string", "kind": "name", "description": "The hotel's name"},
        {"name": "chain", "type": "string", "kind": "name", "description": "Hotel chain or brand"},
        {"name": "city", "type": "string", "kind": "place", "description": "City the hotel is in"}]})
    catalogue = {"name": ["Paris Marriott Champs-Elysees", "Ibis Berlin Alexanderplatz"], "chain": ["Marriott", "Ibis"],
                 "city": ["Paris", "Berlin"]}
    plan = PLANNER.plan("Marriott hotels in Paris", hotels, catalogue, today=date(2026, 6, 1))
    assert plan.asks == "documents" and not any(c.kind == "ambiguous_name" for c in plan.changes)


@pytest.mark.parametrize("question", ["What city is Austin Chen in?", "What is Carlos Chen's salary?"])
def test_a_surname_after_another_first_name_is_nobody_known(question: str) -> None:
    # "What city is Austin Chen in?" (no such employee) was signed "0 matching documents: no document
    # has city Austin and name Ruby Chen": "Chen" read as Ruby Chen, "Austin" as the city.
    plan = _staff_plan(question)
    assert not {c.attribute for c in clauses(plan.query.filter)} & {"name", "city"}
    assert plan.asks is None


def test_a_misspelt_first_name_before_a_known_surname_is_still_that_person() -> None:
    # An intermediate commit unsigned "Who is Dnaiel Brandt's manager?" (Daniel Brandt, misspelt).
    plan = _staff_plan("Who is Dnaiel Brandt's manager?")
    assert ("name", "Leo Brandt") not in {(c.attribute, c.value) for c in clauses(plan.query.filter)}
    plan = PLANNER.plan("Who is Dnaiel Brandt's manager?", STAFF, {**PEOPLE, "name": ["Daniel Brandt", "Ruby Chen"]},
                        today=date(2026, 6, 1))
    assert ("name", "Daniel Brandt") in {(c.attribute, c.value) for c in clauses(plan.query.filter)}
