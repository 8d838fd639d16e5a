"""Codes a question names that no record has (``selfrag.query.absent``): learnt from the identifier's
known values, never from a pattern of one collection's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag.query import Absent, absent_identifiers, code_key, written_in
from selfrag.schema import CollectionSchema

HERE = Path(__file__).parent / "schemas"
INCIDENTS = CollectionSchema.model_validate(json.loads((HERE / "incidents.json").read_text()))
INCIDENT_VALUES = {"incident_id": ["INC-2014", "INC-2028", "INC-2041"], "severity": ["SEV1", "SEV2", "SEV3"],
                   "engineer": ["Chase Morgan", "Marcus Hill"]}
COURSES = CollectionSchema.model_validate(json.loads((HERE / "courses.schema.json").read_text()))


def _absent(question: str, schema: CollectionSchema = INCIDENTS,
            values: dict[str, list[str]] | None = None) -> list[str]:
    return [a.written for a in absent_identifiers(question, schema, INCIDENT_VALUES if values is None else values)]


@pytest.mark.parametrize(("question", "expected"), [
    ("What was the cost of INC-2099?", ["INC-2099"]),
    ("how many customers did inc-3000 affect", ["inc-3000"]),
    ("Was INC 2099 a SEV1?", ["INC 2099"]),
    ("Did INC-2014 last longer than INC2099?", ["INC2099"]),
    ("Compare INC-2098 and INC-2099", ["INC-2098", "INC-2099"]),
])
def test_a_code_in_the_identifiers_shape_that_no_record_has_is_absent(question: str, expected: list[str]) -> None:
    assert _absent(question) == expected
    assert {a.attribute for a in absent_identifiers(question, INCIDENTS, INCIDENT_VALUES)} == {"incident_id"}


@pytest.mark.parametrize("question", [
    "What was the cost of INC-2014?",
    "what did inc 2041 cost",          # a known code, spaced and cased otherwise
    "What did INC-02028 cost?",        # leading zeros
    "How many incidents in 2023?",     # a bare number is no code
    "What did INC-2014-B cost?",       # a longer code than the shape: not this one
    "Which incidents cost more than 2099 USD?",
    "Who handled the incident on INC-2014's day?",
])
def test_known_codes_numbers_and_other_shapes_are_not_absent(question: str) -> None:
    assert _absent(question) == []


def test_a_shape_only_one_known_value_has_is_no_pattern() -> None:
    # "FY 2023" is no course code because one value, "FY 101", happens to look like it.
    values = {"incident_id": ["INC-2014", "INC-2028", "FY 101"]}
    assert _absent("What did FY 2023 cost?", values=values) == []
    assert _absent("What did INC-3000 cost?", values=values) == ["INC-3000"]


def test_a_lone_letter_keeps_its_case() -> None:
    values = {"incident_id": ["D-14", "D-7", "D-22"]}
    assert _absent("Who won D-9?", values=values) == ["D-9"]
    assert _absent("Is vitamin d 3000 IU a dose?", values=values) == []


def test_a_code_another_attribute_knows_is_not_absent() -> None:
    values = {**INCIDENT_VALUES, "related": ["INC-1999"]}
    assert _absent("What did INC-1999 cost?", values=values) == []


def test_course_codes_with_a_space() -> None:
    identifier = next(a.name for a in COURSES.attributes if a.kind == "identifier")
    values = {identifier: ["CS 101", "CS 202", "MATH 220", "MATH 101"]}
    found = absent_identifiers("Who teaches CS 999 and MATH 101?", COURSES, values)
    assert found == [Absent(identifier, "CS 999")]
    assert absent_identifiers("Who teaches cs202?", COURSES, values) == []
    assert absent_identifiers("Who teaches ASTR 330?", COURSES, values) == []  # no known ASTR code


def test_code_key() -> None:
    assert code_key("INC-0099") == code_key("inc 99") == code_key("INC99") == "inc99"
    assert code_key("EQ-2023-0412") == "eq2023412"


def test_written_in_finds_a_code_however_written() -> None:
    assert written_in(["This was a repeat of INC-1999, before the new pager."], "inc 1999")
    assert written_in(["see INC-01999"], "INC-1999")
    assert not written_in(["see INC-19990"], "INC-1999")
    assert not written_in(["see XINC-1999"], "INC-1999")
    assert not written_in(["INC-2014 cost 1999 dollars"], "INC-1999")


def test_codes_of_an_attribute_of_any_kind() -> None:
    # The election user declared districts "D-14" as names; "Who won D-9?" named none of them.
    schema = CollectionSchema.model_validate({"attributes": [
        {"name": "district_id", "type": "string", "kind": "name", "description": "district code"},
        {"name": "severity", "type": "string", "allowed_values": ["SEV1", "SEV2", "SEV3"]}]})
    values = {"district_id": ["D-1", "D-14", "D-41"], "severity": ["SEV1", "SEV2", "SEV3"]}
    assert absent_identifiers("Who won D-9?", schema, values) == [Absent("district_id", "D-9")]
    assert absent_identifiers("Which were SEV4?", schema, values) == [Absent("severity", "SEV4")]
    assert absent_identifiers("Who won D-14 in SEV2?", schema, values) == []
