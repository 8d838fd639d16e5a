"""ingest_paths: idempotent, metadata precedence, progress, and bad input never touches the store."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from selfrag.errors import IngestError, UsageError
from selfrag.ingest import IngestReport, SkippedFile, ingest_paths, stage_progress
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
    assert len(report.added) == 5 and (report.replaced, report.unchanged, report.removed) == ((), (), ())
    assert report.embedded == report.chunks
    assert "corpus/walmart.md" in report.added and "corpus/minutes.pdf" in report.added
    assert report.ignored == (str(corpus / "ignored.csv"),)
    again = ingest_paths(collection, [corpus], chunk_size=300, chunk_overlap=30)
    assert (again.added, sorted(again.unchanged), again.embedded) == ((), sorted(report.added), 0)
    assert collection.count() == report.chunks
    rechunked = ingest_paths(collection, [corpus], chunk_size=400, chunk_overlap=30)  # other chunking: re-split
    assert sorted(rechunked.replaced) == sorted(report.added) and collection.count() == rechunked.chunks


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


def test_progress_reads_before_it_embeds(
    collection: Collection, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[tuple[str, int, int]] = []
    embeddings = collection._embeddings
    original = embeddings.embed_documents

    def embed(texts: list[str]) -> list[list[float]]:
        events.append(("embed call", len(texts), 0))
        return original(texts)

    monkeypatch.setattr(embeddings, "embed_documents", embed)
    ingest_paths(collection, [corpus], progress=lambda stage, done, total: events.append((stage, done, total)))
    total = collection.count()
    # Every file is reported read before the first chunk is embedded: progress shows from the start.
    assert events[:6] == [("reading", n, 5) for n in range(6)]
    assert events[6] == ("embedding", 0, total) and events[7][0] == "embed call"
    stored = [(d, t) for s, d, t in events if s == "embedding"]
    assert stored[-1] == (total, total) and [d for d, _ in stored] == sorted(d for d, _ in stored)


def test_stage_progress_draws_bars_on_a_terminal(collection: Collection, corpus: Path) -> None:
    out = io.StringIO()
    with stage_progress("reports", Console(file=out, width=100, force_terminal=True)) as progress:
        ingest_paths(collection, [corpus], progress=progress)
    assert "reports: reading files" in out.getvalue() and "reports: embedding chunks" in out.getvalue()


def test_report_summary() -> None:
    report = IngestReport(8, 19, added=("a", "b"), replaced=("c",), unchanged=("d",), removed=("e", "f"))
    assert report.summary() == "8 files, 4 documents (19 chunks): 2 added, 1 replaced, 1 unchanged, 2 removed"
    one = IngestReport(1, 1, unchanged=("a",), skipped=(SkippedFile("x.txt", "binary"),), ignored=("a.csv",))
    assert one.summary() == (
        "1 file, 1 document (1 chunk): 0 added, 0 replaced, 1 unchanged, 0 removed "
        "(1 unreadable file skipped; 1 unsupported file ignored)"
    )


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


def _jsonl(path: Path, *records: tuple[str, str]) -> None:
    path.write_text("".join(json.dumps({"id": i, "text": text}) + "\n" for i, text in records))


def test_a_document_moved_to_another_file_of_the_batch_is_kept(collection: Collection, tmp_path: Path) -> None:
    # What a batch supersedes is looked up beside the writes: a document it stores under a new
    # source must not be taken for one its old file no longer holds.
    root = tmp_path / "corpus"
    root.mkdir()
    _jsonl(root / "a.jsonl", ("moved", "Acme moved this memo."), ("gone", "Acme dropped this memo."))
    _jsonl(root / "b.jsonl", ("stays", "Acme kept this memo."))
    ingest_paths(collection, [root])
    _jsonl(root / "a.jsonl", ("new", "Acme wrote a new memo."))
    _jsonl(root / "b.jsonl", ("stays", "Acme kept this memo."), ("moved", "Acme moved this memo, now in b."))
    report = ingest_paths(collection, [root])
    assert (report.added, report.replaced, report.unchanged, report.removed) == (("new",), ("moved",), ("stays",), ("gone",))
    assert {c.id: c.metadata["source"] for c in collection.get(["moved", "new", "stays", "gone"])} == {
        "moved": "corpus/b.jsonl", "new": "corpus/a.jsonl", "stays": "corpus/b.jsonl"
    }


def test_prune_keeps_a_document_whose_file_left_when_another_file_holds_it(collection: Collection, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "docs").mkdir(parents=True)
    _jsonl(root / "docs" / "a.jsonl", ("moved", "Acme moved this memo."), ("gone", "Acme dropped this memo."))
    ingest_paths(collection, [root / "docs"], root=root)
    (root / "docs" / "a.jsonl").unlink()
    _jsonl(root / "docs" / "b.jsonl", ("moved", "Acme moved this memo, now in b."))
    report = ingest_paths(collection, [root / "docs"], root=root, prune=True)
    assert (report.replaced, report.removed) == (("moved",), ("gone",))
    assert [c.metadata["source"] for c in collection.get(["moved", "gone"])] == ["docs/b.jsonl"]
