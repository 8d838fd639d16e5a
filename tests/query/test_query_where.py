"""parse_where: a caller's Chroma filter is checked strictly, with one-line errors."""

from __future__ import annotations

from typing import Any

import pytest

from selfrag.errors import InvalidFilter
from selfrag.query import Comparison, Operation, parse_where, to_where
from selfrag.schema import CollectionSchema


def test_shorthand_and_operators(schema):
    assert parse_where({"genre": "comedy"}, schema) == Comparison(attribute="genre", comparator="eq", value="comedy")
    assert parse_where({"rating": {"$gte": 8}}, schema) == Comparison(attribute="rating", comparator="gte", value=8.0)
    node = parse_where({"$and": [{"year": {"$in": [1999, 2000]}}, {"director": {"$ne": "Luc Besson"}}]}, schema)
    assert node == Operation(
        operator="and",
        arguments=[
            Comparison(attribute="year", comparator="in", value=[1999, 2000]),
            Comparison(attribute="director", comparator="ne", value="Luc Besson"),
        ],
    )


def test_several_fields_in_one_object_are_anded(schema):
    node = parse_where({"genre": "comedy", "year": 1999}, schema)
    assert isinstance(node, Operation) and node.operator == "and" and len(node.arguments) == 2


def test_round_trip_through_to_where(schema):
    where = {"$or": [{"genre": {"$eq": "comedy"}}, {"rating": {"$gt": 8.5}}]}
    assert to_where(parse_where(where, schema)) == where


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"studio": "Pixar"}, "unknown attribute 'studio'"),
        ({"year": "1999"}, "year is integer"),
        ({"year": True}, "year is integer"),
        ({"rating": {"$gt": "8"}}, "rating is float"),
        ({"genre": {"$gt": 3}}, "$gt needs a number"),
        ({"genre": {"$like": "com"}}, "unsupported operator '$like'"),
        ({"$not": {"genre": "comedy"}}, "unsupported operator '$not'"),
        ({"genre": {"$in": "comedy"}}, "needs a non-empty list"),
        ({"genre": {"$in": []}}, "needs a non-empty list"),
        ({"genre": {"$eq": "a", "$ne": "b"}}, "exactly one operator"),
        ({"$and": {"genre": "comedy"}}, "$and needs a non-empty list"),
        ({}, "non-empty object"),
    ],
)
def test_problems_raise_invalid_filter(schema, where: dict[str, Any], message: str):
    with pytest.raises(InvalidFilter) as info:
        parse_where(where, schema)
    assert message in str(info.value)
    assert "\n" not in info.value.one_line()
    assert info.value.code == "filter_invalid"


# -- list attributes: $contains and $not_contains, on string[] only ------------------------------
COURSES = CollectionSchema.model_validate({"description": "Courses", "attributes": [
    {"name": "department", "type": "string"},
    {"name": "capacity", "type": "integer"},
    {"name": "topics", "type": "string[]", "description": "Topics the course covers"},
]})  # fmt: skip


@pytest.mark.parametrize("op", ["$contains", "$not_contains"])
def test_a_list_attribute_is_tested_by_membership(op: str) -> None:
    where = {"topics": {op: "coral reefs"}}
    node = parse_where(where, COURSES)
    assert node == Comparison(attribute="topics", comparator=op[1:], value="coral reefs")
    assert to_where(node) == where
    assert to_where(parse_where({"$and": [{"department": "Marine Biology"}, where]}, COURSES)) == {
        "$and": [{"department": {"$eq": "Marine Biology"}}, where]}


def test_not_over_contains_is_not_contains() -> None:
    node = Operation(operator="not", arguments=[Comparison(attribute="topics", comparator="contains", value="stars")])
    assert to_where(node) == {"topics": {"$not_contains": "stars"}}


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"department": {"$contains": "Music"}}, "$contains tests the elements of a list (string[]) attribute; department is string"),
        ({"capacity": {"$not_contains": 3}}, "$not_contains tests the elements of a list (string[]) attribute; capacity is integer"),
        ({"topics": {"$eq": "stars"}}, "topics is a list attribute: test it with $contains or $not_contains"),
        ({"topics": "stars"}, "topics is a list attribute: test it with $contains or $not_contains"),
        ({"topics": {"$contains": ["stars", "planets"]}}, "$contains on topics needs one string"),
        ({"topics": {"$contains": 3}}, "$contains on topics needs one string"),
    ],
)
def test_membership_is_refused_elsewhere_with_a_clear_message(where: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidFilter) as err:
        parse_where(where, COURSES)
    assert message in str(err.value)


def test_a_callers_contains_filter_selects_in_chroma(tmp_path: Any) -> None:
    import chromadb
    from chromadb.config import Settings

    from selfrag.query import SelfQueryPlanner

    client = chromadb.PersistentClient(path=str(tmp_path), settings=Settings(anonymized_telemetry=False))
    col = client.get_or_create_collection("courses", embedding_function=None)
    col.add(ids=["mbio-330", "astr-110"], embeddings=[[1.0, 0.0], [0.0, 1.0]],
            metadatas=[{"department": "Marine Biology", "topics": ["coral reefs", "fieldwork"]},
                       {"department": "Astronomy", "topics": ["stars", "planets"]}])
    planner = SelfQueryPlanner(None, mode="rules")
    for op, ids in (("$contains", ["mbio-330"]), ("$not_contains", ["astr-110"])):
        plan = planner.plan("which courses are there?", COURSES, {}, mandatory_where={"topics": {op: "coral reefs"}})
        assert col.get(where=plan.where)["ids"] == ids


def test_membership_is_judged_satisfiable_like_chroma() -> None:
    from selfrag.query._satisfy import satisfiable

    stars = Comparison(attribute="topics", comparator="contains", value="stars")
    assert satisfiable(stars, COURSES)
    assert satisfiable(Operation(operator="and", arguments=[stars, Comparison(attribute="topics", comparator="contains", value="reefs")]), COURSES)
    assert not satisfiable(Operation(operator="and", arguments=[stars, Comparison(attribute="topics", comparator="not_contains", value="stars")]), COURSES)
