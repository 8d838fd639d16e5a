"""The self-query reads each attribute's declared kind: a fee per year is money, "founded" a year.

Issue 28's "clubs" schema: with ``yearly_fee: "Membership fee per year in dollars"`` beside
``founded: "When the club was founded"``, "clubs founded before 1950" used to become
``yearly_fee < 1950`` (the word "year" in the fee's description made it a calendar year).
"""

from __future__ import annotations

from datetime import date

import pytest

from selfrag.query import read_question, to_where
from selfrag.schema import AttributeInfo, CollectionSchema

TODAY = date(2025, 6, 1)
CLUBS = CollectionSchema(
    attributes=[
        AttributeInfo(name="yearly_fee", type="integer", description="Membership fee per year in dollars"),
        AttributeInfo(name="founded", type="integer", description="When the club was founded"),
    ]
)


def _where(question: str, schema: CollectionSchema = CLUBS) -> object:
    reading = read_question(question, schema, {}, today=TODAY)
    return to_where(reading.query.filter)


def test_the_clubs_schema_is_read_by_kind() -> None:
    assert [(a.kind, a.unit) for a in CLUBS.attributes] == [("money", "dollar"), ("year", None)]
    assert _where("clubs founded before 1950") == {"founded": {"$lt": 1950}}
    assert _where("clubs with a yearly fee under 200 dollars") == {"yearly_fee": {"$lt": 200}}
    assert _where("clubs charging 1200 dollars or more a year") == {"yearly_fee": {"$gte": 1200}}


@pytest.mark.parametrize(
    ("declared", "question", "expected"),
    [
        # The same words, the other way round: the declaration wins over any reading of words.
        ({"yearly_fee": ("year", None), "founded": ("money", "dollar")}, "clubs founded before 1950", {"yearly_fee": {"$lt": 1950}}),
        ({"yearly_fee": ("money", "dollar"), "founded": ("count", None)}, "before 1950", None),
    ],
)
def test_a_declared_kind_is_what_the_readers_use(declared: dict[str, tuple[str, str | None]], question: str, expected: object) -> None:
    schema = CollectionSchema(attributes=[
        AttributeInfo.model_validate({"name": n, "type": "integer", "description": a.description, "kind": k, "unit": u})
        for a in CLUBS.attributes for n, (k, u) in declared.items() if n == a.name
    ])  # fmt: skip
    assert _where(question, schema) == expected
