"""A question naming a record the collection does not have ("What did INC-2099 cost?" of incidents
INC-2001 to INC-2005) is told so, and shown no other record's figure as its answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selfrag.schema import CollectionSchema
from tests.workflows.conftest import records_engine

SCHEMA = CollectionSchema.model_validate({
    "description": "IT incidents",
    "attributes": [
        {"name": "incident_id", "type": "string", "kind": "identifier", "description": "incident identifier"},
        {"name": "engineer", "type": "string", "kind": "name", "description": "on-call engineer"},
        {"name": "cost_usd", "type": "float", "kind": "money", "unit": "USD", "description": "estimated cost"},
    ],
})


def _records(tmp_path: Path, *, extra: str = "") -> Path:
    path = tmp_path / "incidents.jsonl"
    with path.open("w") as f:
        for i, (engineer, cost) in enumerate([("Chase Morgan", 310000.0), ("Marcus Hill", 33000.0), ("Ana Diaz", 450.0),
                                              ("Chase Morgan", 1200.0), ("Lee Park", 9000.0)], start=1):
            ident = f"INC-200{i}"
            text = f"{ident} was handled by {engineer} and cost ${cost:,.0f}.{extra if i == 1 else ''}"
            f.write(json.dumps({"id": ident, "text": text,
                                "metadata": {"incident_id": ident, "engineer": engineer, "cost_usd": cost}}) + "\n")
    return path


def test_a_code_no_record_has_abstains_and_says_so(chroma_client: Any, tmp_path: Path) -> None:
    engine, _ = records_engine(chroma_client, "incidents", SCHEMA, [_records(tmp_path)], "INC-2003 cost $450 [1].",
                               top_k=4, relevant=True)
    result = engine.run("What was the cost of INC-2099?", collection="incidents")
    assert result.outcome == "abstained"
    assert "INC-2099" in result.answer and "incident_id" in result.answer
    assert result.citations == [] and result.short_answer is None
    assert result.trace.retrievals == []  # nothing was searched for it
    assert any(c["kind"] == "absent_identifier" for c in result.trace.plan["changes"])
    # A comparison with a known record names the one it lacks too.
    assert engine.run("Did INC-2001 cost more than inc 2099?", collection="incidents").outcome == "abstained"


def test_a_known_code_is_answered_as_before(chroma_client: Any, tmp_path: Path) -> None:
    engine, _ = records_engine(chroma_client, "incidents", SCHEMA, [_records(tmp_path)], "Marcus Hill [1].",
                               top_k=4, relevant=True)
    result = engine.run("Who handled inc 2002?", collection="incidents")
    assert result.outcome != "abstained"
    assert not any(c["kind"] == "absent_identifier" for c in result.trace.plan["changes"])


def test_a_code_a_passage_writes_is_searched(chroma_client: Any, tmp_path: Path) -> None:
    # No record is INC-1999, but INC-2001's text names it: the passage may answer.
    path = _records(tmp_path, extra=" It repeated INC-1999, from before the new pager.")
    engine, _ = records_engine(chroma_client, "incidents", SCHEMA, [path], "It repeated INC-1999 [1].", top_k=4, relevant=True)
    result = engine.run("Which incident repeated INC-1999?", collection="incidents")
    assert result.outcome != "abstained"
    assert result.trace.retrievals
