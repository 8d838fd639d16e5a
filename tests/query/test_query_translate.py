"""to_where / and_where: Chroma-valid where clauses."""

from __future__ import annotations

from selfrag.query import Comparison, Operation, and_where, to_where


def c(attribute: str, comparator: str, value: object) -> Comparison:
    return Comparison.model_validate({"attribute": attribute, "comparator": comparator, "value": value})


def op(operator: str, *arguments) -> Operation:
    return Operation.model_validate({"operator": operator, "arguments": list(arguments)})


def test_comparison_and_groups():
    assert to_where(None) is None
    assert to_where(c("rating", "gt", 8.5)) == {"rating": {"$gt": 8.5}}
    assert to_where(op("and", c("genre", "eq", "comedy"), c("year", "in", [1999, 2000]))) == {
        "$and": [{"genre": {"$eq": "comedy"}}, {"year": {"$in": [1999, 2000]}}]
    }


def test_nested_same_operator_is_flattened():
    node = op("and", op("and", c("year", "gt", 1990), c("year", "lt", 2000)), c("rating", "gt", 8.0))
    assert to_where(node) == {"$and": [{"year": {"$gt": 1990}}, {"year": {"$lt": 2000}}, {"rating": {"$gt": 8.0}}]}


def test_not_negates_comparators():
    pairs = {"eq": "ne", "ne": "eq", "gt": "lte", "lte": "gt", "gte": "lt", "lt": "gte"}
    for comparator, negated in pairs.items():
        assert to_where(op("not", c("year", comparator, 2000))) == {"year": {f"${negated}": 2000}}
    assert to_where(op("not", c("genre", "in", ["comedy"]))) == {"genre": {"$nin": ["comedy"]}}
    assert to_where(op("not", c("genre", "nin", ["comedy"]))) == {"genre": {"$in": ["comedy"]}}


def test_de_morgan_and_double_negation():
    node = op("not", op("and", c("genre", "eq", "comedy"), c("year", "gt", 2000)))
    assert to_where(node) == {"$or": [{"genre": {"$ne": "comedy"}}, {"year": {"$lte": 2000}}]}
    node = op("not", op("or", c("genre", "eq", "comedy"), op("not", c("year", "gt", 2000))))
    assert to_where(node) == {"$and": [{"genre": {"$ne": "comedy"}}, {"year": {"$gt": 2000}}]}


def test_not_over_several_arguments_means_none_of_them():
    node = Operation.model_construct(operator="not", arguments=[c("genre", "eq", "comedy"), c("genre", "eq", "drama")])
    assert to_where(node) == {"$and": [{"genre": {"$ne": "comedy"}}, {"genre": {"$ne": "drama"}}]}


def test_and_where_adds_never_replaces():
    mandatory = {"tenant": {"$eq": "acme"}}
    generated = {"$and": [{"genre": {"$eq": "comedy"}}, {"year": {"$gt": 2000}}]}
    assert and_where(None, None) is None
    assert and_where(mandatory, None) == mandatory
    assert and_where(None, generated) == generated
    assert and_where(mandatory, generated) == {
        "$and": [{"tenant": {"$eq": "acme"}}, {"genre": {"$eq": "comedy"}}, {"year": {"$gt": 2000}}]
    }
    assert and_where({"$and": [{"a": 1}, {"b": 2}]}, {"c": 3}) == {"$and": [{"a": 1}, {"b": 2}, {"c": 3}]}
