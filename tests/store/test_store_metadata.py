"""Metadata is coerced to the schema's types so schema-built filters match stored values."""

from __future__ import annotations

from typing import Any

import pytest

from selfrag.schema import AttributeInfo, AttributeType, CollectionSchema
from selfrag.store import clean_metadata, coerce_value


@pytest.mark.parametrize(
    ("value", "type_", "expected"),
    [
        ("2023", "integer", 2023),
        (" 1,234 ", "integer", 1234),
        (2023.0, "integer", 2023),
        ("2023.0", "integer", 2023),
        ("8.6", "float", 8.6),
        (8, "float", 8.0),
        ("yes", "boolean", True),
        ("False", "boolean", False),
        (1, "boolean", True),
        (1993, "string", "1993"),
        ("  Greta Gerwig ", "string", "Greta Gerwig"),
    ],
)
def test_coerce_value_accepts_clear_intent(value: Any, type_: AttributeType, expected: Any) -> None:
    result = coerce_value(value, type_)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("value", "type_"),
    [("FY23", "integer"), (7.5, "integer"), (True, "integer"), (True, "float"), ("nan", "float"),
     ("maybe", "boolean"), (2, "boolean"), ([1], "string"), (None, "integer")],
)
def test_coerce_value_rejects_ambiguous_values(value: Any, type_: AttributeType) -> None:
    with pytest.raises(ValueError, match="is not a valid"):
        coerce_value(value, type_)


def test_clean_metadata_coerces_declared_and_keeps_others() -> None:
    schema = CollectionSchema(
        attributes=[AttributeInfo(name="year", type="integer"), AttributeInfo(name="genre", type="string")]
    )
    cleaned = clean_metadata(
        {"year": "1993", "genre": "", "note": None, "tags": ["a", "b"], "nested": {"k": 1}, "ok": True,
         "score": float("inf"), "chroma:document": "x", "source": "a.txt"},
        schema,
    )
    assert cleaned == {"year": 1993, "tags": '["a", "b"]', "nested": '{"k": 1}', "ok": True, "source": "a.txt"}


def test_clean_metadata_names_the_bad_attribute() -> None:
    schema = CollectionSchema(attributes=[AttributeInfo(name="year", type="integer")])
    with pytest.raises(ValueError, match="attribute 'year': 'unknown' is not a valid integer"):
        clean_metadata({"year": "unknown"}, schema)


@pytest.mark.parametrize(
    ("value", "message"),
    [(99, "attribute 'room': 99 is above its declared maximum 8"), ("0", "attribute 'room': 0 is below its declared minimum 1")],
)
def test_clean_metadata_refuses_a_value_outside_the_declared_range(value: Any, message: str) -> None:
    # A filter outside the declared range is dropped as matching nothing: a stored value there
    # would be unreachable, so the document is refused, as a value of the wrong type is.
    schema = CollectionSchema(attributes=[AttributeInfo(name="room", type="integer", minimum=1, maximum=8)])
    with pytest.raises(ValueError, match=message):
        clean_metadata({"room": value}, schema)
    assert clean_metadata({"room": 8}, schema) == {"room": 8}


def test_clean_metadata_keeps_a_value_to_its_allowed_values() -> None:
    # The self-query maps a filter's value onto the declared allowed values and never filters on
    # anything else, and Chroma's equality is exact: "painting" beside allowed "Painting", or a
    # value not declared at all, would be stored where no filter could reach it.
    schema = CollectionSchema(attributes=[
        AttributeInfo(name="medium", type="string", allowed_values=["Painting", "Sculpture"]),
        AttributeInfo(name="tags", type="string[]", allowed_values=["loan", "new"]),
        AttributeInfo(name="floor", type="integer", allowed_values=[1, 2]),
    ])
    assert clean_metadata({"medium": " painting ", "tags": ["Loan"], "floor": "2"}, schema) == {
        "medium": "Painting", "tags": ["loan"], "floor": 2}
    with pytest.raises(ValueError, match="attribute 'medium': 'Print' is not one of its allowed values"):
        clean_metadata({"medium": "Print"}, schema)
    with pytest.raises(ValueError, match="attribute 'tags': 'old' is not one of its allowed values"):
        clean_metadata({"tags": ["new", "old"]}, schema)
    with pytest.raises(ValueError, match="attribute 'floor': 3 is not one of its allowed values"):
        clean_metadata({"floor": 3}, schema)
