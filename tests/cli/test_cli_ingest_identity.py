"""``selfrag ingest``: a document has one identity, and ingesting it again replaces it.

Moving a folder, editing a file, editing a jsonl line, deleting a file (with ``--prune``): the
collection holds each document once, as it is now; unchanged documents are not embedded again.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from selfrag.store import Store
from selfrag.testing import HashEmbeddings

Cli = Callable[..., Result]


def write_reports(folder: Path) -> Path:
    (folder / "2023").mkdir(parents=True)
    (folder / "2023" / "walmart.md").write_text("# Walmart\n\nRevenue was $611 billion.\n", encoding="utf-8")
    (folder / "acme.txt").write_text("Acme sells anvils to coyotes.\n", encoding="utf-8")
    return folder


def documents(store: Store, name: str) -> dict[str, tuple[str, int]]:
    return {d.id: (d.source, d.chunks) for d in store.get_collection(name).documents()}


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the (fake) embeddings embed for documents."""
    texts: list[str] = []
    original = HashEmbeddings.embed_documents

    def counting(self: HashEmbeddings, batch: list[str]) -> list[list[float]]:
        texts.extend(batch)
        return original(self, batch)

    monkeypatch.setattr(HashEmbeddings, "embed_documents", counting)
    return texts


def test_a_moved_folder_is_the_same_documents(
    cli: Cli, tmp_path: Path, open_store: Callable[[], Store], embedded: list[str]
) -> None:
    write_reports(tmp_path / "a" / "reports")
    first = cli("ingest", tmp_path / "a" / "reports", "-c", "reports")
    assert first.exit_code == 0, first.output
    assert first.stdout.strip() == "reports: 2 files, 2 documents (2 chunks): 2 added, 0 replaced, 0 unchanged, 0 removed"
    shutil.move(tmp_path / "a" / "reports", tmp_path / "b-reports-moved")
    (tmp_path / "elsewhere").mkdir()
    shutil.move(tmp_path / "b-reports-moved", tmp_path / "elsewhere" / "reports")
    embedded.clear()

    again = cli("ingest", tmp_path / "elsewhere" / "reports", "-c", "reports")
    assert again.exit_code == 0, again.output
    assert again.stdout.strip() == "reports: 2 files, 2 documents (2 chunks): 0 added, 0 replaced, 2 unchanged, 0 removed"
    assert embedded == []  # unchanged documents cost nothing
    # Identities are relative to the folder above the one named: never an absolute path.
    assert documents(open_store(), "reports") == {
        "reports/2023/walmart.md": ("reports/2023/walmart.md", 1),
        "reports/acme.txt": ("reports/acme.txt", 1),
    }


def test_an_edited_file_replaces_its_old_chunks(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\n" + "\n\n".join(f"Paragraph {i} about anvils and coyotes. " * 8 for i in range(6)))
    assert cli("ingest", notes, "-c", "notes").exit_code == 0
    before = open_store().get_collection("notes").count()
    assert before > 1
    notes.write_text("# Notes\n\nNow a single short paragraph about roadrunners.\n")

    result = cli("ingest", notes, "-c", "notes")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "notes: 1 file, 1 document (1 chunk): 0 added, 1 replaced, 0 unchanged, 0 removed"
    coll = open_store().get_collection("notes")
    assert coll.count() == 1
    [hit] = coll.search("anything", k=10)
    assert "roadrunners" in hit.text and hit.id == "notes.md" and hit.metadata["source"] == "notes.md"


def test_jsonl_lines_edited_and_deleted(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    lines = [
        {"id": "a", "text": "Alpha is the first letter."},
        {"text": "A line without an id."},
        {"text": "Another line without an id."},
    ]
    data = tmp_path / "letters.jsonl"
    data.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert cli("ingest", data, "-c", "letters").exit_code == 0
    assert open_store().get_collection("letters").count() == 3

    lines[0]["text"] = "Alpha comes first."  # edited: same id, replaced
    lines[1]["text"] = "A line without an id, edited."  # edited: a new identity, the old one removed
    del lines[2]  # deleted: removed
    data.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    result = cli("ingest", data, "-c", "letters")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "letters: 1 file, 2 documents (2 chunks): 1 added, 1 replaced, 0 unchanged, 2 removed"
    texts = sorted(h.text for h in open_store().get_collection("letters").search("line", k=10))
    assert texts == ["A line without an id, edited.", "Alpha comes first."]


def test_prune_removes_documents_whose_files_left_the_folder(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    folder = write_reports(tmp_path / "reports")
    assert cli("ingest", folder, "-c", "reports").exit_code == 0
    (folder / "acme.txt").unlink()
    kept = cli("ingest", folder, "-c", "reports")  # without --prune nothing is deleted
    assert kept.stdout.strip().endswith("0 added, 0 replaced, 1 unchanged, 0 removed")
    assert set(documents(open_store(), "reports")) == {"reports/2023/walmart.md", "reports/acme.txt"}

    pruned = cli("ingest", folder, "-c", "reports", "--prune")
    assert pruned.exit_code == 0, pruned.output
    assert pruned.stdout.strip().endswith("0 added, 0 replaced, 1 unchanged, 1 removed")
    assert set(documents(open_store(), "reports")) == {"reports/2023/walmart.md"}


def test_prune_keeps_a_file_that_is_there_but_unreadable(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    folder = write_reports(tmp_path / "reports")
    assert cli("ingest", folder, "-c", "reports").exit_code == 0
    (folder / "acme.txt").write_bytes(b"\x00\x01\x02garbage" * 50)
    result = cli("ingest", folder, "-c", "reports", "--prune")
    assert result.exit_code == 0, result.output
    assert "skipped " in result.stderr and "acme.txt: binary content" in result.stderr
    assert set(documents(open_store(), "reports")) == {"reports/2023/walmart.md", "reports/acme.txt"}


def test_root_names_documents_relative_to_it(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    folder = write_reports(tmp_path / "data" / "reports")
    assert cli("ingest", folder / "2023" / "walmart.md", "-c", "reports", "--root", tmp_path / "data").exit_code == 0
    again = cli("ingest", folder, "-c", "reports")  # the folder above "reports" is the same root
    assert again.stdout.strip().endswith("1 added, 0 replaced, 1 unchanged, 0 removed")
    outside = cli("ingest", tmp_path / "data", "-c", "reports", "--root", folder)
    assert outside.exit_code == 2 and "is not inside --root" in outside.stderr


def test_two_files_with_one_identity_are_refused(
    cli: Cli, tmp_path: Path, assert_one_line_error: Callable[[Result, str], str]
) -> None:
    for team in ("red", "blue"):
        (tmp_path / team).mkdir()
        (tmp_path / team / "notes.md").write_text(f"Notes of the {team} team.\n")
    line = assert_one_line_error(cli("ingest", tmp_path / "red" / "notes.md", tmp_path / "blue" / "notes.md", "-c", "notes"), "ingest_failed")
    assert "would both be document 'notes.md'" in line


def test_metadata_may_not_set_reserved_keys(
    cli: Cli, tmp_path: Path, open_store: Callable[[], Store], assert_one_line_error: Callable[[Result, str], str]
) -> None:
    data = tmp_path / "docs.jsonl"
    data.write_text(json.dumps({"id": "victim", "text": "The real victim document."}) + "\n")
    assert cli("ingest", data, "-c", "docs").exit_code == 0
    forged = tmp_path / "forged.jsonl"
    forged.write_text(json.dumps({"id": "impostor", "text": "An impostor.", "metadata": {"doc_id": "victim"}}) + "\n")
    line = assert_one_line_error(cli("ingest", forged, "-c", "docs"), "ingest_failed")
    assert "forged.jsonl:1: metadata key(s) 'doc_id' are reserved" in line
    coll: Any = open_store().get_collection("docs")
    assert coll.delete_document("victim") == 1 and coll.count() == 0  # deleting one never deletes another


def test_schemas_may_not_declare_reserved_names(
    cli: Cli, tmp_path: Path, assert_one_line_error: Callable[[Result, str], str]
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"attributes": [{"name": "source", "type": "string"}]}))
    (tmp_path / "a.txt").write_text("text")
    line = assert_one_line_error(cli("ingest", tmp_path / "a.txt", "-c", "docs", "--schema", schema), "schema_invalid")
    assert "'source' are reserved" in line
