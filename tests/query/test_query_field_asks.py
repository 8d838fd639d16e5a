"""What a question asks of the one record its filter names, when it names the attribute otherwise
than by its whole name: "When was the Quill Stand Mixer recall announced?" asks the record's one
date; "How many units of X were recalled?" its count of units; "In which year was X recalled?"
its year. The words left besides may be what the attribute's own description says it records
("announced", "recalled"); a word it does not ("expanded", "sold") asks about another event, and the
stored value is no answer to it."""

from __future__ import annotations

from typing import Any

import pytest

from selfrag.schema import CollectionSchema
from workflows.set_answers import asked_attribute

RECALLS = CollectionSchema.model_validate({"description": "Product recall notices", "attributes": [
    {"name": "recall_id", "type": "string", "description": "identifier of the recall notice", "kind": "identifier"},
    {"name": "product", "type": "string", "description": "name of the recalled product", "kind": "name"},
    {"name": "recall_date", "type": "date", "description": "date the recall was announced", "kind": "date"},
    {"name": "year", "type": "integer", "description": "year the recall was announced", "kind": "year"},
    {"name": "units_affected", "type": "integer", "description": "number of units recalled", "kind": "count"}]})
CARS = CollectionSchema.model_validate({"description": "Used-car listings", "attributes": [
    {"name": "model", "type": "string", "kind": "name"},
    {"name": "listed_on", "type": "date", "description": "date the car was listed for sale"},
    {"name": "sold_on", "type": "date", "description": "date the car was sold"}]})
PRODUCT: dict[str, Any] = {"attribute": "product", "comparator": "eq", "value": "Orbit Smart Scale"}
MODEL: dict[str, Any] = {"attribute": "model", "comparator": "eq", "value": "Corvane 300"}


def _asked(question: str, search: str, schema: CollectionSchema = RECALLS, where: dict[str, Any] = PRODUCT) -> str | None:
    found = asked_attribute(question, search, schema, where)
    return found.name if found is not None else None


@pytest.mark.parametrize(("question", "search", "expected"), [
    ("When was the Orbit Smart Scale recall announced?", "recall announced", "recall_date"),
    ("When was the Orbit Smart Scale recalled?", "When was the Orbit Smart Scale recalled?", "recall_date"),
    ("In which year was the Orbit Smart Scale recalled?", "year was the recalled", "year"),
    ("How many units of the Orbit Smart Scale were recalled?", "units of the were recalled", "units_affected"),
])
def test_an_attribute_named_by_its_kind_or_its_description_is_asked(question: str, search: str, expected: str) -> None:
    # Each was read by the reader and flagged, where the record's own value answers it.
    assert _asked(question, search) == expected


@pytest.mark.parametrize(("question", "search"), [
    ("When was the Orbit Smart Scale recall expanded?", "recall expanded"),
    ("How many units of the Orbit Smart Scale were sold?", "units of the were sold"),
    ("How many units of the Orbit Smart Scale were recalled in Canada?", "units of the were recalled in Canada"),
    ("Why was the Orbit Smart Scale recalled?", "Why was the recalled"),
])
def test_a_word_the_attribute_does_not_record_asks_about_something_else(question: str, search: str) -> None:
    assert _asked(question, search) is None


def test_when_with_two_dates_is_the_one_the_question_s_words_name() -> None:
    assert _asked("When was the Corvane 300 sold?", "sold", CARS, MODEL) == "sold_on"
    assert _asked("When was the Corvane 300 listed?", "listed", CARS, MODEL) == "listed_on"
    assert _asked("When was the Corvane 300 repaired?", "repaired", CARS, MODEL) is None


def test_how_many_of_a_list_s_elements_is_their_number() -> None:
    # "How many countries was the Nova Hair Dryer sold in?" was answered "Germany, France, Italy".
    from workflows.set_answers import field_answer

    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "product", "type": "string", "kind": "name"},
        {"name": "countries", "type": "string[]", "description": "countries where it was sold"}]})
    assert _asked("How many countries was the Nova Hair Dryer sold in?", "countries was sold in", schema,
                  {"attribute": "product", "comparator": "eq", "value": "Nova Hair Dryer"}) == "countries"
    document: Any = {"id": "r1", "text": "Aurel is recalling Nova Hair Dryers.", "resource": "recalls",
                     "metadata": {"product": "Nova Hair Dryer", "countries": ["Germany", "France", "Italy"]}}
    counted = field_answer(document, schema.attributes[1], count=True)
    assert counted is not None and counted.short_answer == "3" and "Germany, France, Italy" in counted.answer
    listed = field_answer(document, schema.attributes[1])
    assert listed is not None and listed.short_answer == "Germany, France, Italy"


BOOKS = CollectionSchema.model_validate({"description": "A bookshop's catalogue", "attributes": [
    {"name": "title", "type": "string", "kind": "name", "description": "title of the book"},
    {"name": "author", "type": "string", "kind": "name", "description": "author who wrote the book"},
    {"name": "publisher", "type": "string", "description": "publisher of the book"}]})
TITLE: dict[str, Any] = {"attribute": "title", "comparator": "eq", "value": "Winter Lanterns"}


@pytest.mark.parametrize(("question", "search", "expected"), [
    # A new user's bookshop: "Who wrote Winter Lanterns?" went to the reader, which named the publisher.
    ("Who wrote Winter Lanterns?", "Who wrote", "author"),
    ("who wrote winter lanterns", "who wrote", "author"),
    ("Who wrote the foreword to Winter Lanterns?", "Who wrote the foreword", None),
    ("Who reviewed Winter Lanterns?", "Who reviewed", None),
])
def test_who_with_the_verb_a_name_attribute_s_description_uses_asks_that_name(question: str, search: str,
                                                                               expected: str | None) -> None:
    assert _asked(question, search, BOOKS, TITLE) == expected


def test_a_word_of_the_filter_s_own_value_names_no_attribute() -> None:
    # A new user's papers: "How many pages is Clustering Search Results by Topic?" went to the reader:
    # "Topic", a word of the title the filter holds, named the topics attribute beside pages.
    papers = CollectionSchema.model_validate({"description": "Research papers", "attributes": [
        {"name": "title", "type": "string", "kind": "name", "description": "title of the paper"},
        {"name": "topics", "type": "string[]", "description": "topics the paper covers"},
        {"name": "pages", "type": "integer", "kind": "count", "description": "number of pages"}]})
    where: dict[str, Any] = {"attribute": "title", "comparator": "eq", "value": "Clustering Search Results by Topic"}
    assert _asked("How many pages is Clustering Search Results by Topic?", "pages", papers, where) == "pages"
