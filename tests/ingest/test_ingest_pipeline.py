"""ingest_paths: idempotent, metadata precedence, progress, and bad input never touches the store."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from selfrag.errors import IngestError, UsageError
from selfrag.ingest import IngestReport, ingest_paths, rich_progress
from selfrag.store import Collection


@pytest.fixture
def corpus(tmp_path: Path, make_pdf: Callable[..., Path]) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "walmart.md").write_text(
        "# Walmart annual report\n\nIn fiscal year 2024 revenue grew.\n\n" + "Stores did well. " * 100
    )
    (root / "notes.txt").write_text("Acme notes for fiscal 2022.")
    (root / "page.html").write_text("<title>Acme intranet</title><p>Acme, fiscal 2023 plan</p>")
    make_pdf(["Wal-Mart board minutes", "fiscal year 2021"], name="corpus/minutes.pdf")
    (root / "records.jsonl").write_text(
        json.dumps({"text": "Acme said fiscal 2020", "metadata": {"fiscal_year": "1999", "year": 2001}}) + "\n"
    )
    (root / "ignored.csv").write_text("a,b")
    return root


def test_ingest_is_idempotent(collection: Collection, corpus: Path) -> None:
    report = ingest_paths(collection, [corpus], chunk_size=300, chunk_overlap=30)
    assert report.files == 5
    assert report.chunks == collection.count() > 5
    assert (report.added, report.skipped) == (report.chunks, 0)
    assert report.ignored == (str((corpus / "ignored.csv").resolve()),)
    again = ingest_paths(collection, [corpus], chunk_size=300, chunk_overlap=30)
    assert (again.added, again.skipped) == (0, report.chunks)
    assert collection.count() == report.chunks


def test_extracted_and_given_metadata(collection: Collection, corpus: Path) -> None:
    ingest_paths(collection, [corpus], chunk_size=300, chunk_overlap=30)
    by_file: dict[str, list[dict[str, object]]] = {}
    for hit in collection.search("fiscal", where=None, k=100):
        by_file.setdefault(str(hit.metadata["filename"]), []).append(dict(hit.metadata))
    walmart = by_file["walmart.md"]
    assert len(walmart) > 1  # several chunks, all carrying what was extracted from the document
    assert all(m["company"] == "Walmart" and m["fiscal_year"] == 2024 for m in walmart)
    [pdf] = by_file["minutes.pdf"]
    assert (pdf["company"], pdf["fiscal_year"], pdf["page"]) == ("Walmart", 2021, 1)
    [html] = by_file["page.html"]
    assert (html["title"], html["fiscal_year"]) == ("Acme intranet", 2023)
    [record] = by_file["records.jsonl"]
    assert record["fiscal_year"] == 1999 and record["year"] == 2001  # jsonl metadata beats extractors, coerced
    assert collection.known_values("company") == ["Acme", "Walmart"]


def test_progress_reports_chunks_stored(collection: Collection, corpus: Path) -> None:
    events: list[tuple[int, int]] = []
    ingest_paths(collection, [corpus], progress=lambda done, total: events.append((done, total)))
    total = collection.count()
    assert events[-1] == (total, total)
    assert [d for d, _ in events] == sorted(d for d, _ in events)


def test_rich_progress_draws_without_touching_the_core(collection: Collection, corpus: Path) -> None:
    out = io.StringIO()
    with rich_progress("Embedding reports", Console(file=out, width=100, force_terminal=False)) as progress:
        ingest_paths(collection, [corpus], progress=progress)
    assert "Embedding reports" in out.getvalue()


def test_report_summary() -> None:
    assert IngestReport(8, 19, 19, 0).summary() == "8 files, 19 chunks: 19 added, 0 already stored"
    one = IngestReport(1, 1, 0, 1, ignored=("a.csv",)).summary()
    assert one == "1 file, 1 chunk: 0 added, 1 already stored (1 unsupported file ignored)"


def _write_bad_jsonl(path: Path) -> None:
    path.write_text('{"text": "fine"}\n{"text": oops}\n')


def _write_bad_metadata(path: Path) -> None:
    path.write_text(json.dumps({"text": "fine", "metadata": {"fiscal_year": "next year"}}) + "\n")


@pytest.mark.parametrize(
    ("name", "write", "message"),
    [
        ("missing.txt", None, r"missing\.txt: no such file or directory"),
        ("table.xlsx", lambda p: p.write_bytes(b"PK"), r"table\.xlsx: unsupported file type '\.xlsx'"),
        ("bad.jsonl", _write_bad_jsonl, r"bad\.jsonl:2: not valid JSON"),
        ("meta.jsonl", _write_bad_metadata, r"meta\.jsonl:1: attribute 'fiscal_year': 'next year' is not a valid integer"),
        ("empty.md", lambda p: p.write_text(""), r"empty\.md: file is empty"),
    ],
)
def test_bad_input_leaves_the_collection_unchanged(
    collection: Collection,
    corpus: Path,
    tmp_path: Path,
    name: str,
    write: Callable[[Path], object] | None,
    message: str,
) -> None:
    ingest_paths(collection, [corpus / "notes.txt"])
    before = (collection.count(), collection.catalogue())
    bad = tmp_path / name
    if write is not None:
        write(bad)
    # The bad file comes last: everything before it must still not be written.
    with pytest.raises(IngestError, match=message):
        ingest_paths(collection, [corpus, bad])
    assert (collection.count(), collection.catalogue()) == before


def test_inconsistent_chunking_is_a_usage_error(collection: Collection, corpus: Path) -> None:
    with pytest.raises(UsageError, match="chunk_overlap < chunk_size"):
        ingest_paths(collection, [corpus], chunk_size=100, chunk_overlap=100)
