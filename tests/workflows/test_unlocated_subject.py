"""A yes/no question about a named item in a year it has no record of ("Did Quarry have a recount
in 2021?" of a district first elected in 2023) is not answered "No": that the item had no record
then is the answer, and a "No" would say it had one without a recount."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selfrag.schema import CollectionSchema
from tests.workflows.conftest import records_engine

SCHEMA = CollectionSchema.model_validate({
    "description": "District election results, one record per district and election",
    "attributes": [
        {"name": "district", "type": "string", "kind": "place", "description": "district name"},
        {"name": "year", "type": "integer", "kind": "year", "description": "year of the election"},
        {"name": "party", "type": "string", "kind": "category", "description": "party of the winner"},
        {"name": "recount", "type": "boolean", "kind": "flag", "description": "whether the votes were counted again"},
    ],
})

ROWS = [("Lakeview", 2021, "Labor", False), ("Lakeview", 2023, "Green", True), ("Quarry", 2023, "Labor", True),
        ("Harbor", 2021, "Green", True), ("Harbor", 2023, "Labor", False)]


def _engine(chroma_client: Any, tmp_path: Path) -> Any:
    path = tmp_path / "results.jsonl"
    with path.open("w") as f:
        for district, year, party, recount in ROWS:
            text = f"{district}, {year}: the {party} candidate won{' after a recount' if recount else ''}."
            f.write(json.dumps({"id": f"{district}-{year}", "text": text, "metadata": {
                "district": district, "year": year, "party": party, "recount": recount}}) + "\n")
    engine, _ = records_engine(chroma_client, "results", SCHEMA, [path], "No [1].", top_k=4, relevant=True)
    return engine


def test_an_item_without_a_record_that_year_is_not_answered_no(chroma_client: Any, tmp_path: Path) -> None:
    engine = _engine(chroma_client, tmp_path)
    result = engine.run("Did Quarry have a recount in 2021?", collection="results")
    assert result.short_answer != "No"
    assert not (result.answer or "").startswith("No:")
    if result.outcome == "answered":
        assert "Quarry" in result.answer and "2021" in result.answer and "2023" in result.answer
    # The same question of a district with a 2021 record that had none is "No".
    lakeview = engine.run("Did Lakeview have a recount in 2021?", collection="results")
    assert lakeview.outcome == "answered" and lakeview.short_answer == "No"
    # Asked whether any record exists, none is "No", as before.
    there = engine.run("Were there any recounts in Quarry in 2021?", collection="results")
    assert there.outcome == "answered" and there.short_answer == "No"

