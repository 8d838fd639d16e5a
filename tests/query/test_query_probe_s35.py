"""What session 35 found signed wrong in the self-query's reading: negations, dotted versions, names two
attributes hold, "only" and "the first"."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query._grounding import clauses
from selfrag.schema import CollectionSchema

# The eleventh new user's advisories (session 34), asked otherwise.
from tests.query.test_query_probe_s34 import PLANNER, _plan


@pytest.mark.parametrize(("question", "comparators"), [
    # "How many advisories do not have a cvss of 9.8?" was read as cvss = 9.8 and its matches
    # listed as the answer: the negation stood four words before the number.
    ("How many advisories do not have a cvss of 9.8?", {"lt", "gt"}),
    ("Which advisories don't have a CVSS score of 9.8?", {"lt", "gt"}),
    ("Which advisories do not have a CVSS above 7?", {"lte"}),
])
def test_a_negation_before_a_verb_of_having_governs_the_number(question: str, comparators: set[str]) -> None:
    plan = _plan(question)
    assert {c.comparator for c in clauses(plan.query.filter) if c.attribute == "cvss"} == comparators
    assert plan.negated == ("cvss",) or comparators == {"lte"}


@pytest.mark.parametrize("question", [
    "How many advisories were not patched before 2023?",
    "Which advisories were not patched in 2022?",
])
def test_a_negated_date_names_the_attribute_it_needs(question: str) -> None:
    assert _plan(question).negated == ("patched",)


def test_a_negation_of_another_clause_does_not_reach_the_number() -> None:
    plan = _plan("Which advisories are not exploited and have a cvss of 9.8?")
    assert ("cvss", "eq", 9.8) in {(c.attribute, c.comparator, c.value) for c in clauses(plan.query.filter)}


@pytest.mark.parametrize("question", [
    "Which advisories affect versions other than 2.0?",
    "advisories for versions apart from 2.0",
])
def test_a_negation_phrase_before_a_list_element_negates_it(question: str) -> None:
    # "Which advisories affect versions other than 2.0?" was signed with the five that affect 2.0.
    plan = _plan(question)
    assert ("affected_versions", "contains", "2.0") not in {(c.attribute, c.comparator, c.value)
                                                           for c in clauses(plan.query.filter)}


@pytest.mark.parametrize("question", [
    "Which advisories did not affect version 2.2 or 2.1?",
    "advisories that don't affect 2.2 or version 2.1",
])
def test_a_negation_carries_over_a_list_s_elements_joined_by_or(question: str) -> None:
    # "did not affect version 2.2 or 2.1" was read as "not 2.2, or 2.1": 33 advisories signed,
    # among them those affecting 2.1.
    plan = _plan(question)
    assert plan.query.filter is not None
    assert {(c.attribute, c.comparator, c.value) for c in clauses(plan.query.filter)} == {
        ("affected_versions", "not_contains", "2.2"), ("affected_versions", "not_contains", "2.1")}
    assert plan.query.filter.model_dump(exclude_none=True)["operator"] == "and"


STAFF = CollectionSchema.model_validate(json.loads((Path(__file__).parent / "schemas" / "staff.json").read_text()))
PEOPLE = {"name": ["Lena Fischer", "Ruby Chen"], "manager": ["Lena Fischer"], "department": ["Engineering", "Sales"], "city": ["Berlin", "London"],
          "skills": ["Python", "SQL"], "languages": ["English", "French", "German"]}


@pytest.mark.parametrize(("question", "attribute", "values"), [
    # "Which employees speak neither French nor German?" was signed with eleven who speak French.
    ("Which employees speak neither French nor German?", "languages", {"French", "German"}),
    ("employees who know neither Python nor SQL", "skills", {"Python", "SQL"}),
])
def test_neither_negates_the_first_of_a_list_s_elements(question: str, attribute: str, values: set[str]) -> None:
    plan = PLANNER.plan(question, STAFF, PEOPLE, today=date(2026, 6, 1))
    assert {(c.attribute, c.comparator, c.value) for c in clauses(plan.query.filter)} == {
        (attribute, "not_contains", v) for v in values}


@pytest.mark.parametrize("question", [
    "Who reports to Lena Fischer?",
    "How many people report to Lena Fischer?",
    "Which employees report directly to Lena Fischer?",
])
def test_a_verb_before_a_name_two_attributes_hold_names_the_one_its_description_uses(question: str) -> None:
    # "Who reports to X?" was never answered: X is a name and a manager, and which one was not
    # read. The manager's description says "the person they report to".
    plan = PLANNER.plan(question, STAFF, PEOPLE, today=date(2026, 6, 1))
    assert {(c.attribute, c.comparator, c.value) for c in clauses(plan.query.filter)} == {("manager", "eq", "Lena Fischer")}
    assert not any(c.kind == "either_attribute" for c in plan.changes)


@pytest.mark.parametrize("question", [
    "Who does Lena Fischer report to?",
    "What languages does Lena Fischer speak?",
])
def test_a_name_before_its_verb_is_still_either(question: str) -> None:
    plan = PLANNER.plan(question, STAFF, PEOPLE, today=date(2026, 6, 1))
    assert ("manager", "eq", "Lena Fischer") not in {(c.attribute, c.comparator, c.value)
                                                      for c in clauses(plan.query.filter)} or \
        any(c.kind == "either_attribute" for c in plan.changes)


@pytest.mark.parametrize(("question", "expected"), [
    # "Isn't Grace Liu remote?" was read as "name is not Grace Liu and remote", and signed "Yes"
    # from the other remote employees: the negation of a question's opening verb negates nothing.
    ("Isn't Ruby Chen remote?", {("name", "eq", "Ruby Chen"), ("remote", "eq", True)}),
    ("Is not Ruby Chen remote?", {("name", "eq", "Ruby Chen"), ("remote", "eq", True)}),
    ("Doesn't Ruby Chen speak French?", {("name", "eq", "Ruby Chen"), ("languages", "contains", "French")}),
    ("Aren't Engineering employees in Berlin?", {("department", "eq", "Engineering"), ("city", "eq", "Berlin")}),
    ("Wasn't Ruby Chen hired before 2018?", {("name", "eq", "Ruby Chen"), ("hire_date", "lt", 20180101)}),
])
def test_a_negated_opening_verb_negates_no_condition(question: str, expected: set[tuple[str, str, object]]) -> None:
    plan = PLANNER.plan(question, STAFF, PEOPLE, today=date(2026, 6, 1))
    assert {(c.attribute, c.comparator, c.value) for c in clauses(plan.query.filter)} == expected


def test_a_negation_inside_the_question_still_negates() -> None:
    plan = PLANNER.plan("Which employees aren't in Berlin?", STAFF, PEOPLE, today=date(2026, 6, 1))
    assert {(c.attribute, c.comparator, c.value) for c in clauses(plan.query.filter)} == {("city", "ne", "Berlin")}


RELEASES = CollectionSchema.model_validate(json.loads((Path(__file__).parent / "schemas" / "releases.json").read_text()))
VERSIONS = {"product": ["Harbor", "Quill", "Tern"], "version": ["1.2", "1.2.3", "3.0", "3.0.1", "3.10.1", "10.2"],
            "channel": ["stable", "beta", "lts"], "platforms": ["Linux", "macOS", "Windows"], "lead_engineer": ["Ana Ruiz"]}


def _release_plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, RELEASES, VERSIONS, today=date(2026, 11, 29))


@pytest.mark.parametrize(("question", "version"), [
    # "What channel was Tern 1.2.3 released in?" was read as version 1.2 and signed with 1.2's channel.
    ("What channel was Tern 1.2.3 released in?", "1.2.3"),
    ("Which channel was Harbor 3.0.1 released in?", "3.0.1"),
    ("What channel is Harbor 3.10.1?", "3.10.1"),
])
def test_a_dotted_version_is_no_number_it_starts_with(question: str, version: str) -> None:
    assert ("version", "eq", version) in {(c.attribute, c.comparator, c.value) for c in clauses(_release_plan(question).query.filter)}


def test_a_dotted_version_nobody_has_is_an_unknown_name() -> None:
    # Its answer must cite a document writing "3.10.7", or it is about another release.
    plan = _release_plan("What channel is Harbor 3.10.7?")
    assert "3.10.7" in plan.unknown_names and plan.asks is None


@pytest.mark.parametrize("question", ["is quill 10.2 still supported", "Is Harbor 3.10.1 still supported?"])
def test_a_word_a_date_s_description_uses_as_a_noun_is_still_asked(question: str) -> None:
    # "is quill 10.2 still supported" was signed "Yes: the document with version 10.2 has product
    # Quill": "supported" was taken for the verb of end_of_support's "date support for the release
    # ends", which says only that the item took place, and the product became what was asked.
    plan = _release_plan(question)
    assert plan.whether is None and plan.asks is None


@pytest.mark.parametrize("question", [
    "Which releases support only Linux?",
    "Which releases are Linux only?",
    "Which releases run only on Linux?",
    "How many releases support Linux exclusively?",
])
def test_only_one_element_of_a_list_is_no_contains_answer(question: str) -> None:
    # "Which releases support only Linux?" was signed with all 31 that support Linux among others.
    plan = _release_plan(question)
    assert plan.asks is None and plan.computed is None and plan.whether is None
    assert any(c.kind == "exclusive_element" for c in plan.changes)


def test_a_category_value_with_only_is_still_its_value() -> None:
    assert _release_plan("Which releases are only stable?").asks == "documents"


@pytest.mark.parametrize("question", ["What was the first Quill release?", "the last release of Tern"])
def test_the_first_or_last_item_is_no_listing(question: str) -> None:
    # "What was the first Quill release?" was signed "9 matching documents", newest first.
    plan = _release_plan(question)
    assert plan.asks is None


def test_the_first_few_items_are_still_a_listing() -> None:
    assert _release_plan("Show me the first 3 Quill releases").asks == "documents"


@pytest.mark.parametrize("question", [
    # "How many releases did Mac Donnelly not lead?" was read as lead_engineer = Mac Donnelly and
    # signed "5 matching documents", his own: the "not" after the name negated nothing read.
    "How many releases did Ana Ruiz not lead?",
    "Which releases did Ana Ruiz not lead?",
])
def test_a_negation_no_condition_holds_is_no_set_answer(question: str) -> None:
    plan = _release_plan(question)
    assert plan.asks is None and plan.computed is None and plan.whether is None
    assert any(c.kind == "negation_not_held" for c in plan.changes)


@pytest.mark.parametrize("question", [
    "Which releases were not led by Ana Ruiz?",
    "How many releases were not released in 2024?",
    "Which releases do not support Windows?",
])
def test_a_negation_a_condition_holds_still_answers(question: str) -> None:
    plan = _release_plan(question)
    assert plan.asks == "documents" and not any(c.kind == "negation_not_held" for c in plan.changes)


def test_no_part_of_a_dotted_code_is_a_number() -> None:
    # "What is the insured value of 1987.12.3?" (an accession number) was read as a value of 1987.1.
    from selfrag.query._numbers import find_numbers

    assert find_numbers("What is the insured value of 1987.12.3?") == []
    assert [n.value for n in find_numbers("rated 4.5 or more, under 1,250")] == [4.5, 1250]


ARTWORKS = CollectionSchema.model_validate(json.loads((Path(__file__).parent / "schemas" / "artworks.json").read_text()))
HOLDINGS = {"title": ["1917", "Number 8", "Morning at Lake Constance"], "artist": ["Anna Weiss", "Otto Weiss"],
            "gallery": ["Room 2", "Room 4"], "medium": ["oil on canvas", "bronze"]}


@pytest.mark.parametrize("question", ["How many artworks date from 1917?", "Which works are from 1917?"])
def test_a_bare_year_beside_a_year_attribute_bounds_no_date_its_words_do_not_name(question: str) -> None:
    # "How many artworks date from 1917?" was read as acquired in 1917 and signed "0 matching
    # documents": the work made in 1917 (the year attribute) was the answer.
    plan = PLANNER.plan(question, ARTWORKS, HOLDINGS, today=date(2026, 11, 29))
    assert "acquired" not in {c.attribute for c in clauses(plan.query.filter)}


def test_a_bare_year_the_date_s_verb_names_still_bounds_the_date() -> None:
    plan = PLANNER.plan("How many artworks were acquired in 1995?", ARTWORKS, HOLDINGS, today=date(2026, 11, 29))
    assert {(c.attribute, c.comparator) for c in clauses(plan.query.filter)} == {("acquired", "gte"), ("acquired", "lt")}
    assert plan.asks == "documents"
