"""One coercion: what ingest stores a value as is what a query filters by (``selfrag.values``)."""

from __future__ import annotations

from typing import Any

import pytest

from selfrag.query._coerce import coerce_value as query_value
from selfrag.schema import AttributeType
from selfrag.store import coerce_value as stored_value
from selfrag.values import coerce

ACCEPTED: list[tuple[Any, AttributeType, Any]] = [
    ("2023", "integer", 2023),
    (" 1,234 ", "integer", 1234),
    (2023.0, "integer", 2023),
    ("2023.0", "integer", 2023),
    ("1e3", "integer", 1000),
    (-(2**63), "integer", -(2**63)),
    ("8.6", "float", 8.6),
    (8, "float", 8.0),
    ("yes", "boolean", True),
    ("t", "boolean", True),
    ("F", "boolean", False),
    (" Off ", "boolean", False),
    (0, "boolean", False),
    (1993, "string", "1993"),
    (2019.0, "string", "2019"),
    (8.5, "string", "8.5"),
    (True, "string", "True"),
    ("  Greta   Gerwig ", "string", "Greta Gerwig"),
]
REFUSED: list[tuple[Any, AttributeType]] = [
    ("FY23", "integer"), (7.5, "integer"), (True, "integer"), (2**63, "integer"), (1e20, "integer"),
    (True, "float"), ("nan", "float"), ("inf", "float"), (float("inf"), "float"), (10**400, "float"),
    ("maybe", "boolean"), (2, "boolean"), ("", "boolean"),
    ([1], "string"), ("  ", "string"), ("bad \ud800", "string"), (None, "integer"),
]  # fmt: skip


@pytest.mark.parametrize(("value", "type_", "expected"), ACCEPTED)
def test_ingest_and_query_read_a_value_alike(value: Any, type_: AttributeType, expected: Any) -> None:
    for got in (coerce(value, type_), stored_value(value, type_), query_value(value, type_, "eq")):
        assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(("value", "type_"), REFUSED)
def test_ingest_and_query_refuse_a_value_alike(value: Any, type_: AttributeType) -> None:
    assert coerce(value, type_) is None
    assert query_value(value, type_, "eq") is None
    with pytest.raises(ValueError, match="is not a valid"):
        stored_value(value, type_)


def test_only_a_query_bound_rounds_a_fraction_on_an_integer() -> None:
    assert query_value("1990.5", "integer", "gt") == 1990 and query_value(1990.5, "integer", "gte") == 1991
    assert query_value(1990.5, "integer", "eq") is None
    with pytest.raises(ValueError):
        stored_value(1990.5, "integer")
