"""Which of two attributes of one kind a number is about, when no word of the question names either
one: the collection's embedding model compares the words beside the number with the words that
tell the attributes apart ("bought" is near "acquired", not "made")."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings

from selfrag.query import SelfQueryPlanner
from selfrag.schema import AttributeInfo, CollectionSchema
from tests.query.word_vectors import WordVectors

TODAY = date(2025, 6, 1)
GALLERY = CollectionSchema(
    description="Catalogue of objects in a city gallery",
    attributes=[
        AttributeInfo(name="artist", type="string", description="artist or maker of the object"),
        AttributeInfo(name="year_made", type="integer", description="year the object was made", kind="year"),
        AttributeInfo(name="year_acquired", type="integer", description="year the gallery acquired the object", kind="year"),
        AttributeInfo(name="room", type="integer", description="gallery room where the object hangs", minimum=1, maximum=9),
    ],
)
SYNONYMS = [("bought", "purchased", "acquired"), ("created", "made")]
"""Words a model would place together; every other word is far from every other one."""


VECTORS = WordVectors(SYNONYMS)


def where(question: str, embeddings: Embeddings | None = VECTORS) -> Any:
    return SelfQueryPlanner(None, mode="rules", today=TODAY, embeddings=embeddings).plan(question, GALLERY, {}).where


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("anything bought between 1950 and 1970?", {"$and": [{"year_acquired": {"$gte": 1950}}, {"year_acquired": {"$lte": 1970}}]}),
        ("objects purchased in the 1960s", {"$and": [{"year_acquired": {"$gte": 1960}}, {"year_acquired": {"$lte": 1969}}]}),
        ("objects created before 1900", {"year_made": {"$lt": 1900}}),
    ],
)
def test_a_word_near_in_meaning_to_one_attribute_s_own_words_chooses_it(question: str, expected: Any) -> None:
    assert where(question) == expected


@pytest.mark.parametrize("question", ["anything bought between 1950 and 1970?", "objects created before 1900"])
def test_without_the_embedding_model_a_tie_still_reads_nothing(question: str) -> None:
    assert where(question, None) is None


@pytest.mark.parametrize("question", ["anything seen between 1950 and 1970?", "objects before 1900"])
def test_a_word_near_neither_attribute_chooses_none(question: str) -> None:
    assert where(question) is None


def test_the_word_that_chose_the_attribute_is_held_by_the_filter_as_the_attribute_s_own_word_is() -> None:
    planner = SelfQueryPlanner(None, mode="rules", today=TODAY, embeddings=VECTORS)
    by_meaning = planner.plan("anything bought between 1950 and 1970?", GALLERY, {})
    by_name = planner.plan("anything acquired between 1950 and 1970?", GALLERY, {})
    assert by_meaning.where == by_name.where
    assert by_meaning.asks == by_name.asks == "documents"
