"""Attribute kinds: guessed once where a schema is declared, stored with it, declared ones kept."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from selfrag.kinds import KINDS, guess_kind
from selfrag.schema import AttributeInfo, CollectionSchema


@pytest.mark.parametrize(
    ("type_", "name", "description", "allowed", "expected"),
    [
        ("integer", "yearly_fee", "Membership fee per year in dollars", None, ("money", "dollar")),
        ("integer", "founded", "When the club was founded", None, ("year", None)),
        ("integer", "year_built", "", None, ("year", None)),
        ("integer", "min_experience_years", "Years of experience required", None, ("duration", "year")),
        ("integer", "meetings_per_month", "How often the club meets each month", None, ("count", None)),
        ("integer", "total_minutes", "Total time, in minutes", None, ("duration", "minute")),
        ("float", "price_per_night", "Price of one night in euros", None, ("money", "euro")),
        ("float", "rating", "Average reader rating, 1 to 5 stars", None, ("score", "star")),
        ("float", "imdb_score", "IMDb user score out of 10", None, ("score", None)),
        ("float", "distance_to_center_km", "Distance to the centre in km", None, ("length", "km")),
        ("integer", "copies", "Number of copies published", None, ("count", None)),
        ("integer", "edition", "Edition number", [1990, 2001], ("count", None)),
        ("integer", "vintage", "", [1990, 2001, 2015], ("year", None)),
        ("integer", "members", "How many members the club has", None, ("count", None)),
        ("float", "sentiment", "From -1 to 1", None, (None, None)),
        ("string", "city", "City where the club meets", None, ("place", None)),
        ("string", "president", "Name of the club's president", None, ("name", None)),
        ("string", "cuisine", "The cuisine", ["thai", "greek"], ("category", None)),
        ("string", "title", "The recipe's title", None, (None, None)),
        ("boolean", "remote", "", None, ("flag", None)),
        ("date", "posted", "", None, ("date", None)),
    ],
)
def test_the_guess_reads_type_name_description_and_values(
    type_: str, name: str, description: str, allowed: list[object] | None, expected: tuple[str | None, str | None]
) -> None:
    assert guess_kind(type_, name, description, allowed) == expected
    assert expected[0] is None or expected[0] in KINDS


def test_a_declared_kind_and_unit_are_kept_and_a_missing_unit_guessed_only_for_the_same_kind() -> None:
    fee = AttributeInfo.model_validate({"name": "fee", "type": "integer", "description": "in dollars", "kind": "count"})
    assert (fee.kind, fee.unit) == ("count", None)
    money = AttributeInfo.model_validate({"name": "fee", "type": "integer", "description": "in euros", "kind": "money"})
    assert (money.kind, money.unit) == ("money", "euro")
    stated = AttributeInfo.model_validate({"name": "t", "type": "integer", "kind": "duration", "unit": "hour"})
    assert (stated.kind, stated.unit) == ("duration", "hour")


def test_an_unknown_kind_or_unit_is_refused_naming_the_attribute() -> None:
    with pytest.raises(ValidationError, match="kind"):
        AttributeInfo.model_validate({"name": "t", "type": "integer", "kind": "loudness"})
    with pytest.raises(ValidationError, match="'t'"):
        AttributeInfo.model_validate({"name": "t", "type": "integer", "kind": "duration", "unit": "fortnights"})


def test_the_guess_is_stored_and_a_legacy_schema_gets_the_same_guess() -> None:
    legacy = '{"attributes": [{"name": "founded", "type": "integer", "description": "When the club was founded"}]}'
    schema = CollectionSchema.from_json(legacy, stored=True)
    assert schema.attributes[0].kind == "year"
    stored = json.loads(schema.to_json())
    assert stored["attributes"][0]["kind"] == "year"
    assert CollectionSchema.from_json(schema.to_json(), stored=True) == schema


@pytest.mark.parametrize(("kind", "unit", "stored"), [
    ("energy", "kWh", "kwh"), ("energy", "kwh", "kwh"), ("weight", "mg", "mg"), ("weight", "milligrams", "milligram"),
])
def test_electricity_and_dose_units_are_units_selfrag_reads(kind: str, unit: str, stored: str) -> None:
    # New users' schemas: a campus's meter readings in kWh and a pharmacy's doses in mg were
    # refused ("unit 'kWh' … is not one selfrag reads"), so the unit had to be left out.
    attr = AttributeInfo.model_validate({"name": "x", "type": "float", "kind": kind, "unit": unit})
    assert attr.unit == stored


def test_a_kilowatt_hour_bound_reads_against_an_attribute_stored_in_kilowatt_hours() -> None:
    from selfrag.query import SelfQueryPlanner

    schema = CollectionSchema.model_validate({"description": "monthly energy bills", "attributes": [
        {"name": "bill_id", "type": "string", "kind": "identifier"},
        {"name": "kwh", "type": "integer", "kind": "energy", "unit": "kWh", "description": "electricity used in kWh"}]})
    plan = SelfQueryPlanner(None, mode="rules").plan("bills over 40 MWh", schema, {})
    assert plan.where == {"kwh": {"$gt": 40000}}
