"""A negated condition on an attribute some records do not have: "not patched before 2023" of
advisories that were never patched. Whether those records are "not patched before 2023" is not
for a filter to say (the store selects a record without a date by no bound on it): a count or
listing of the others names them as not counted, and a yes or no is not signed; with every record
dated, the count is plain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from selfrag.schema import CollectionSchema
from tests.workflows.conftest import records_engine

SCHEMA = CollectionSchema.model_validate({
    "description": "security advisories",
    "attributes": [
        {"name": "advisory_id", "type": "string", "kind": "identifier", "description": "advisory identifier"},
        {"name": "published", "type": "date", "description": "date the advisory was published"},
        {"name": "patched", "type": "date", "description": "date the fix was released; missing when unpatched"},
        {"name": "cvss", "type": "float", "kind": "score", "description": "CVSS base score"},
    ],
})


def _records(tmp_path: Path, *, unpatched: bool) -> Path:
    rows = [
        ("SA-1", "2021-02-10", "2021-03-01", 7.5),
        ("SA-2", "2022-04-01", "2022-05-30", 9.8),
        ("SA-3", "2022-11-20", "2023-01-09", 5.0),
        ("SA-4", "2023-06-02", "2023-08-22", 6.1),
        ("SA-5", "2024-03-03", None if unpatched else "2024-05-07", 8.8),
    ]
    path = tmp_path / "advisories.jsonl"
    with path.open("w") as f:
        for ident, published, patched, cvss in rows:
            meta: dict[str, Any] = {"advisory_id": ident, "published": published, "cvss": cvss}
            if patched is not None:
                meta["patched"] = patched
            text = f"Advisory {ident} was published on {published}." + (f" It was patched on {patched}." if patched else "")
            f.write(json.dumps({"id": ident, "text": text, "metadata": meta}) + "\n")
    return path


@pytest.mark.parametrize("question", [
    "How many advisories were not patched before 2023?",
    "Which advisories were not patched in 2022?",
])
def test_a_negated_date_some_records_lack_names_them_as_not_counted(chroma_client: Any, tmp_path: Path, question: str) -> None:
    # "How many advisories were not patched before 2023?" was signed "20 matching documents": the
    # six never patched were left out, and they were not patched before 2023 either.
    engine, _ = records_engine(chroma_client, "advisories", SCHEMA, [_records(tmp_path, unpatched=True)], "A model's answer [1].",
                               top_k=10, relevant=False)
    result = engine.run(question, collection="advisories")
    assert result.outcome == "answered" and result.answer.rstrip().endswith(
        "Not counted: SA-5, which records no patched, so whether it matches is not known.")
    assert any(c["kind"] == "unrecorded_values" and "patched" in c["detail"] for c in result.trace.plan["changes"])


def test_a_yes_or_no_of_a_negated_date_some_records_lack_is_not_signed(chroma_client: Any, tmp_path: Path) -> None:
    engine, _ = records_engine(chroma_client, "advisories", SCHEMA, [_records(tmp_path, unpatched=True)], "A model's answer [1].",
                               top_k=10, relevant=False)
    result = engine.run("Were any advisories not patched before 2022?", collection="advisories")
    assert result.outcome != "answered"


def test_a_negated_date_every_record_has_is_still_counted(chroma_client: Any, tmp_path: Path) -> None:
    engine, _ = records_engine(chroma_client, "advisories", SCHEMA, [_records(tmp_path, unpatched=False)], "A model's answer [1].",
                               top_k=10, relevant=False)
    result = engine.run("How many advisories were not patched before 2023?", collection="advisories")
    assert result.outcome == "answered" and result.short_answer == "3 matching documents"


def test_a_negated_number_some_records_lack_names_them_as_not_counted(chroma_client: Any, tmp_path: Path) -> None:
    path = _records(tmp_path, unpatched=False)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    del rows[0]["metadata"]["cvss"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    engine, _ = records_engine(chroma_client, "advisories", SCHEMA, [path], "A model's answer [1].", top_k=10, relevant=False)
    result = engine.run("How many advisories do not have a cvss of 9.8?", collection="advisories")
    assert result.outcome == "answered" and "Not counted: SA-1, which records no cvss" in result.answer


FLIGHTS = CollectionSchema.model_validate({
    "description": "flights",
    "attributes": [
        {"name": "flight_number", "type": "string", "kind": "identifier", "description": "flight number"},
        {"name": "destination", "type": "string", "kind": "place", "description": "the city the flight arrives to"},
        {"name": "captain", "type": "string", "kind": "name", "description": "captain who commanded the flight"},
        {"name": "services", "type": "string[]", "description": "services offered on board"},
    ],
})


def _flights(tmp_path: Path, *, unknown: bool) -> Path:
    rows = [("SK1", "Denver", "Helen Ruiz", ["wifi"]), ("SK2", "Denver", "Maria Okafor", ["meals"]),
            ("SK3", "Denver", None if unknown else "Tomas Berg", None if unknown else ["wifi", "meals"])]
    path = tmp_path / "flights.jsonl"
    with path.open("w") as f:
        for ident, dest, captain, services in rows:
            meta: dict[str, Any] = {"flight_number": ident, "destination": dest}
            if captain is not None:
                meta["captain"] = captain
            if services is not None:
                meta["services"] = services
            f.write(json.dumps({"id": ident, "text": f"Flight {ident} flew to {dest}.", "metadata": meta}) + "\n")
    return path


@pytest.mark.parametrize("question", [
    "Which flights to Denver were not captained by Helen Ruiz?",
    "How many flights without wifi?",
])
def test_a_negated_value_some_records_lack_names_them_as_not_counted(chroma_client: Any, tmp_path: Path, question: str) -> None:
    # A new user's flights: "not captained by Helen Ruiz" listed a flight whose captain is not
    # recorded (it may have been her), and "without wifi" counted one whose services are not.
    engine, _ = records_engine(chroma_client, "flights", FLIGHTS, [_flights(tmp_path, unknown=True)], "A model's answer [1].",
                               top_k=10, relevant=False)
    result = engine.run(question, collection="flights")
    # A string's "not" and a list's "without" select a flight that records neither: counted, and
    # said, and not signed. Session 42's new users read such a record both ways: an agent not
    # recorded is not known ("29 matching documents … Counted, though RA-3295, RA-7422 record no
    # agent" was signed and wrong to one), a call no inspector boarded was "not inspected by"
    # him (to another). Which one a missing value means is the data's.
    listed, _, note = result.answer.partition("Counted, though ")
    assert "SK3" in listed and note.startswith("SK3 records no ")
    assert result.outcome == "unverified"
    verdict = next(v for v in result.trace.verdicts if v["kind"] == "conditions")
    assert not verdict["passed"] and "SK3" in verdict["reason"]
    assert any(c["kind"] == "unrecorded_values" for c in result.trace.plan["changes"])


def test_a_negated_value_every_record_has_is_still_listed(chroma_client: Any, tmp_path: Path) -> None:
    engine, _ = records_engine(chroma_client, "flights", FLIGHTS, [_flights(tmp_path, unknown=False)], "A model's answer [1].",
                               top_k=10, relevant=False)
    result = engine.run("Which flights to Denver were not captained by Helen Ruiz?", collection="flights")
    assert result.outcome == "answered" and result.short_answer == "SK2 and SK3"


def test_a_positive_condition_on_the_same_attribute_leaves_records_without_it_out(chroma_client: Any, tmp_path: Path) -> None:
    # "how many flights had snacks but no meals" abstained: a flight with no services recorded was
    # taken for one the negation might count, yet it has no snacks either.
    engine, _ = records_engine(chroma_client, "flights", FLIGHTS, [_flights(tmp_path, unknown=True)], "A model's answer [1].",
                               top_k=10, relevant=False)
    result = engine.run("How many flights offered wifi but no meals?", collection="flights")
    assert result.outcome == "answered" and result.short_answer == "1 matching document"


CASES = CollectionSchema.model_validate({
    "description": "civil cases",
    "attributes": [
        {"name": "case_number", "type": "string", "kind": "identifier", "description": "docket number"},
        {"name": "courthouse", "type": "string", "kind": "place", "description": "courthouse where the case is heard"},
        {"name": "jury_trial", "type": "boolean", "description": "whether the case was tried before a jury"},
    ],
})


def _cases(tmp_path: Path, *, pending: bool) -> Path:
    rows = [("CV-1", True), ("CV-2", False), ("CV-3", None if pending else False)]
    path = tmp_path / "cases.jsonl"
    with path.open("w") as f:
        for ident, jury in rows:
            meta: dict[str, Any] = {"case_number": ident, "courthouse": "Lakeview"}
            if jury is not None:
                meta["jury_trial"] = jury
            f.write(json.dumps({"id": ident, "text": f"Case {ident} is heard at Lakeview.", "metadata": meta}) + "\n")
    return path


@pytest.mark.parametrize("question", [
    "Which Lakeview cases were not tried before a jury?",
    "How many cases had no jury trial?",
])
def test_a_negated_flag_some_records_lack_names_them_as_not_counted(chroma_client: Any, tmp_path: Path, question: str) -> None:
    # A new user's docket: "Which Lakeview cases were not tried before a jury?" was signed with the
    # cases whose jury_trial is false, leaving out a pending case that records none.
    engine, _ = records_engine(chroma_client, "cases", CASES, [_cases(tmp_path, pending=True)], "A model's answer [1].",
                               top_k=10, relevant=False)
    result = engine.run(question, collection="cases")
    assert result.outcome == "answered" and result.answer.rstrip().endswith(
        "Not counted: CV-3, which records no jury_trial, so whether it matches is not known.")
    assert any(c["kind"] == "unrecorded_values" and "jury_trial" in c["detail"] for c in result.trace.plan["changes"])


def test_a_negated_flag_every_record_has_is_still_listed(chroma_client: Any, tmp_path: Path) -> None:
    engine, _ = records_engine(chroma_client, "cases", CASES, [_cases(tmp_path, pending=False)], "A model's answer [1].",
                               top_k=10, relevant=False)
    result = engine.run("Which Lakeview cases were not tried before a jury?", collection="cases")
    assert result.outcome == "answered" and result.short_answer == "CV-2 and CV-3"
