"""parse_where: a caller's Chroma filter is checked strictly, with one-line errors."""

from __future__ import annotations

from typing import Any

import pytest

from selfrag.errors import InvalidFilter
from selfrag.query import Comparison, Operation, parse_where, to_where


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
