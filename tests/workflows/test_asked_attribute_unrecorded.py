"""A question asking for an attribute ("What club is Sofia Marin in?") whose matches record none
of it is not answered with those matches' listing ("3 matching documents"), which says nothing of
the club; nor is a question asking for what no attribute records ("What is Owen Price's price?")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selfrag.schema import CollectionSchema
from tests.workflows.conftest import records_engine

SCHEMA = CollectionSchema.model_validate({
    "description": "Road race results, one record per runner per race edition",
    "attributes": [
        {"name": "runner", "type": "string", "kind": "name", "description": "name of the runner"},
        {"name": "club", "type": "string", "kind": "name", "description": "running club the runner belongs to"},
        {"name": "race", "type": "string", "kind": "category", "description": "name of the race"},
        {"name": "edition_year", "type": "integer", "kind": "year", "description": "year of the race edition"},
    ],
})

ROWS = [("Sofia Marin", None, "Ridgeway 10K", 2024), ("Sofia Marin", None, "Harbor City Marathon", 2021),
        ("Owen Price", "Tempo", "Ridgeway 10K", 2024), ("Owen Price", "Tempo", "Harbor City Marathon", 2022),
        ("Grace Kim", "Tempo", "Ridgeway 10K", 2024)]


def _engine(chroma_client: Any, tmp_path: Path) -> Any:
    path = tmp_path / "results.jsonl"
    with path.open("w") as f:
        for i, (runner, club, race, year) in enumerate(ROWS, 1):
            metadata = {"runner": runner, "race": race, "edition_year": year}
            if club is not None:
                metadata["club"] = club
            f.write(json.dumps({"id": f"r{i}", "text": f"{runner} ran the {year} {race}.", "metadata": metadata}) + "\n")
    engine, _ = records_engine(chroma_client, "results", SCHEMA, [path], "Tempo [1].", top_k=4, relevant=False)
    return engine


def test_an_attribute_no_match_records_is_no_listing(chroma_client: Any, tmp_path: Path) -> None:
    engine = _engine(chroma_client, tmp_path)
    result = engine.run("What club is Sofia Marin in?", collection="results")
    assert result.outcome != "answered"
    assert result.short_answer != "2 matching documents"
    # Recorded, it is the answer.
    owen = engine.run("What club is Owen Price in?", collection="results")
    assert owen.outcome == "answered" and owen.short_answer == "Tempo"


def test_a_word_of_the_name_asked_again_is_no_part_of_it(chroma_client: Any, tmp_path: Path) -> None:
    engine = _engine(chroma_client, tmp_path)
    # "Owen Price's price" was read whole as the runner: his two results, signed as the answer.
    # ("price" is left for the reader; the scripted model here signs whatever it reads.)
    result = engine.run("What is Owen Price's price?", collection="results")
    assert "matching documents" not in result.answer

