"""A large corpus is never held whole: files are checked, then written from the first window kept
and the rest read again."""

from __future__ import annotations

import json
import os
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from selfrag.errors import IngestError
from selfrag.ingest import collect_files, ingest_paths, read_inputs, store_batch
from selfrag.ingest import prepare as prepare_module
from selfrag.ingest.types import SourceDocument
from selfrag.store import Collection, DocumentVersion
from selfrag.testing import HashEmbeddings


def write_corpus(root: Path, files: int) -> None:
    root.mkdir()
    for n in range(files):
        (root / f"doc{n:04d}.txt").write_text(f"Acme memo {n}. " + "The quarter went well. " * (n % 5 + 1))


@pytest.mark.parametrize("files", [40, 400])
def test_documents_held_while_ingesting_do_not_grow_with_the_corpus(
    collection: Collection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: int
) -> None:
    live = [0]  # document versions alive (created, not yet freed)
    original = prepare_module._Preparer.__call__

    def counted(self: prepare_module._Preparer, where: str, doc: SourceDocument) -> DocumentVersion:
        version = original(self, where, doc)
        live[0] += 1
        weakref.finalize(version, lambda: live.__setitem__(0, live[0] - 1))
        return version

    held: list[int] = []

    class Watching(HashEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            held.append(live[0])
            return super().embed_documents(texts)

    monkeypatch.setattr(prepare_module._Preparer, "__call__", counted)
    monkeypatch.setattr(collection, "_embeddings", Watching())
    write_corpus(tmp_path / "corpus", files)
    report = ingest_paths(collection, [tmp_path / "corpus"])
    assert len(report.added) == files and collection.count() == report.chunks == files
    # One-chunk documents, windows of 4 encoder batches of 8: two windows and the one read ahead.
    assert held and max(held) <= 2 * 32 + 1


def test_a_file_edited_after_it_was_checked_fails_the_write(collection: Collection, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    write_corpus(root, 3)
    batch = read_inputs(collection.schema, collect_files([root]))
    (root / "doc0001.txt").write_text("Someone edited this file meanwhile.")
    with pytest.raises(IngestError, match="doc0001.txt changed while it was being ingested; ingest it again"):
        store_batch(collection, batch)
    assert "edited" not in " ".join(c.text for c in collection.get(["corpus/doc0001.txt"]))


def count_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    reads: Counter[str] = Counter()
    original = prepare_module.load_file

    def counted(path: Path, **kwargs: Any) -> Any:
        reads[Path(path).name] += 1
        return original(path, **kwargs)

    monkeypatch.setattr(prepare_module, "load_file", counted)
    return reads


def test_an_ingest_of_one_window_reads_each_file_once(
    collection: Collection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = count_reads(monkeypatch)
    write_corpus(tmp_path / "corpus", 5)
    report = ingest_paths(collection, [tmp_path / "corpus"])
    assert len(report.added) == 5 and collection.count() == 5
    assert reads == {f"doc{n:04d}.txt": 1 for n in range(5)}  # checked and written from one read


def test_files_past_the_first_window_are_read_again(
    collection: Collection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = count_reads(monkeypatch)
    write_corpus(tmp_path / "corpus", 5)
    batch = read_inputs(collection.schema, collect_files([tmp_path / "corpus"]), keep=2)  # one chunk a file
    store_batch(collection, batch)
    assert collection.count() == 5
    assert reads == {"doc0000.txt": 1, "doc0001.txt": 1, "doc0002.txt": 2, "doc0003.txt": 2, "doc0004.txt": 2}


def test_a_kept_file_edited_to_the_same_size_still_fails_the_write(collection: Collection, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    write_corpus(root, 3)
    batch = read_inputs(collection.schema, collect_files([root]))  # all three kept: one window
    path = root / "doc0001.txt"
    before = path.stat()
    path.write_text(path.read_text().replace("Acme", "Zeta"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))  # a coarse clock could hide it
    assert path.stat().st_size == before.st_size
    with pytest.raises(IngestError, match="doc0001.txt changed while it was being ingested; ingest it again"):
        store_batch(collection, batch)
    assert "Zeta" not in " ".join(c.text for c in collection.get(["corpus/doc0001.txt"]))


def test_a_chunk_id_clash_in_a_streamed_ingest_writes_nothing(collection: Collection, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    lines = [{"id": f"memo{n}", "text": f"Memo {n}."} for n in range(300) if n != 7]
    lines.append({"id": "memo7:1", "text": "An id like a second chunk of memo7."})
    lines.append({"id": "memo7", "text": "Now memo7 has two chunks. " * 80})
    (root / "a.jsonl").write_text("\n".join(json.dumps(line) for line in lines[:-1]) + "\n")
    (root / "b.jsonl").write_text(json.dumps(lines[-1]) + "\n")
    with pytest.raises(IngestError, match="memo7:1"):
        ingest_paths(collection, [root / "a.jsonl", root / "b.jsonl"], root=root, chunk_size=300, chunk_overlap=0)
    assert collection.count() == 0
