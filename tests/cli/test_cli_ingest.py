"""``selfrag ingest``: samples, files with a schema, idempotence, and all-or-nothing failures."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

from selfrag.schema import CollectionSchema
from selfrag.store import Store

Cli = Callable[..., Result]

SCHEMA = {
    "description": "Company reports",
    "attributes": [
        {"name": "company", "type": "string", "allowed_values": ["Walmart", "Acme"]},
        {"name": "fiscal_year", "type": "integer"},
        {"name": "topic", "type": "string"},
    ],
    "extractors": [
        {"attribute": "company", "pattern": "\\b(Wal-?Mart|Acme)\\b", "map": {"wal-mart": "Walmart", "walmart": "Walmart"}},
        {"attribute": "fiscal_year", "pattern": "\\bfiscal year (\\d{4})\\b"},
    ],
}


def write_inputs(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "txt": folder / "walmart.txt",
        "md": folder / "acme.md",
        "jsonl": folder / "notes.jsonl",
        "schema": folder / "schema.json",
    }
    files["txt"].write_text("Wal-Mart reported revenue of $611 billion for fiscal year 2023.\n", encoding="utf-8")
    files["md"].write_text("# Acme\n\nAcme grew its anvil sales in fiscal year 2024.\n", encoding="utf-8")
    files["jsonl"].write_text(
        json.dumps({"id": "n1", "text": "A note about Acme logistics", "metadata": {"topic": "logistics", "fiscal_year": 2022}})
        + "\n\n"
        + json.dumps({"id": "n2", "text": "A note about nothing in particular", "metadata": {"topic": "misc"}})
        + "\n",
        encoding="utf-8",
    )
    files["schema"].write_text(json.dumps(SCHEMA), encoding="utf-8")
    return files


def test_sample_ingest_then_reingest_adds_nothing(cli: Cli, open_store: Callable[[], Store]) -> None:
    first = cli("ingest", "--sample", "movies")
    assert first.exit_code == 0, first.output
    assert first.stdout.strip() == "movies: 1 file, 19 documents (19 chunks): 19 added, 0 replaced, 0 unchanged, 0 removed"

    again = cli("ingest", "--sample", "movies")
    assert again.exit_code == 0, again.output
    assert again.stdout.strip() == "movies: 1 file, 19 documents (19 chunks): 0 added, 0 replaced, 19 unchanged, 0 removed"
    assert open_store().get_collection("movies").count() == 19


def test_sample_into_a_named_collection(cli: Cli, open_store: Callable[[], Store]) -> None:
    result = cli("ingest", "--sample", "filings", "--collection", "reports-2")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("reports-2: 8 files, ")
    store = open_store()
    assert store.get_collection("reports-2").catalogue()["company"] == ["Apple", "Costco", "Microsoft", "Walmart"]
    assert not store.has_collection("filings")


def test_files_with_a_schema_create_the_collection(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    f = write_inputs(tmp_path / "in")
    result = cli("ingest", f["txt"], f["md"], f["jsonl"], "--collection", "reports", "--schema", f["schema"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "reports: 3 files, 4 documents (4 chunks): 4 added, 0 replaced, 0 unchanged, 0 removed"

    coll = open_store().get_collection("reports")
    assert coll.schema == CollectionSchema.model_validate(SCHEMA)
    assert coll.count() == 4
    # the extractors ran on the .txt and .md files; jsonl metadata wins over what they find
    walmart = coll.search("revenue", where={"company": "Walmart"}, k=5)
    assert [(h.metadata["company"], h.metadata["fiscal_year"]) for h in walmart] == [("Walmart", 2023)]
    assert walmart[0].metadata["filename"] == "walmart.txt"
    acme_md = coll.search("anvil", where={"fiscal_year": 2024}, k=5)
    assert [h.metadata["filename"] for h in acme_md] == ["acme.md"]
    notes = {c.id: c.metadata for c in coll.get(["n1", "n2"])}
    assert notes["n1"]["company"] == "Acme" and notes["n1"]["fiscal_year"] == 2022 and notes["n1"]["topic"] == "logistics"
    assert notes["n2"]["topic"] == "misc" and "company" not in notes["n2"]


def test_reingesting_files_is_idempotent(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    f = write_inputs(tmp_path / "in")
    assert cli("ingest", tmp_path / "in", "-c", "reports", "--schema", f["schema"]).exit_code == 0
    # walking the folder again: schema.json is not a document type, so it is listed as ignored
    again = cli("ingest", tmp_path / "in", "-c", "reports")
    assert again.exit_code == 0, again.output
    assert again.stdout.strip() == (
        "reports: 3 files, 4 documents (4 chunks): 0 added, 0 replaced, 4 unchanged, 0 removed (1 unsupported file ignored)"
    )
    assert open_store().get_collection("reports").count() == 4


def test_a_different_schema_for_an_existing_collection_is_refused(
    cli: Cli, tmp_path: Path, assert_one_line_error: Callable[[Result, str], str]
) -> None:
    f = write_inputs(tmp_path / "in")
    assert cli("ingest", f["txt"], "-c", "reports", "--schema", f["schema"]).exit_code == 0
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"attributes": [{"name": "year", "type": "integer"}]}), encoding="utf-8")
    line = assert_one_line_error(cli("ingest", f["md"], "-c", "reports", "--schema", other), "collection_exists")
    assert "'reports'" in line


def test_a_failed_ingest_leaves_the_collection_unchanged(
    cli: Cli, tmp_path: Path, open_store: Callable[[], Store], assert_one_line_error: Callable[[Result, str], str]
) -> None:
    f = write_inputs(tmp_path / "in")
    assert cli("ingest", f["txt"], "-c", "reports", "--schema", f["schema"]).exit_code == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine line"}\n{"text": "broken\n', encoding="utf-8")
    # md and the first jsonl line are valid, but nothing may be written while a file is bad
    line = assert_one_line_error(cli("ingest", f["md"], bad, "-c", "reports"), "ingest_failed")
    assert f"{bad}:2: not valid JSON" in line

    wrong_type = tmp_path / "wrong.jsonl"
    wrong_type.write_text(json.dumps({"text": "x y z", "metadata": {"fiscal_year": "soon"}}) + "\n", encoding="utf-8")
    assert_one_line_error(cli("ingest", f["md"], wrong_type, "-c", "reports"), "ingest_failed")

    store = open_store()
    coll = store.get_collection("reports")
    assert coll.count() == 1
    assert [h.metadata["filename"] for h in coll.search("anything", where=None, k=10)] == ["walmart.txt"]


def test_ingest_without_schema_makes_a_schemaless_collection(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    f = write_inputs(tmp_path / "in")
    result = cli("ingest", f["md"], "-c", "plain")
    assert result.exit_code == 0, result.output
    coll: Any = open_store().get_collection("plain")
    assert coll.schema == CollectionSchema()
    assert coll.count() == 1
