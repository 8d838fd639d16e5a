"""Writing a stream of documents: window by window, one write a window, memory bounded.

A stream is consumed as it is written: the documents held at any time (read but not yet written)
stay under two write windows whatever the stream's length, and ids and per-document replace
semantics are exactly those of a list.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pytest
from chromadb.api import ClientAPI

from selfrag.errors import IngestError, StoreError
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.settings import StoreSettings
from selfrag.store import Chunk, Collection, DocumentPlan, DocumentVersion, Store
from selfrag.testing import HashEmbeddings

SCHEMA = CollectionSchema(attributes=[AttributeInfo(name="genre", type="string")])
BATCH, WRITE = 2, 8  # windows of 8 chunks, embedded 2 at a time


def doc(n: int, version: str = "v1", parts: int | None = None) -> DocumentVersion:
    parts = parts if parts is not None else 1 + n % 3
    chunks = tuple(
        Chunk(f"d{n}" if i == 0 else f"d{n}:{i}", f"document {n} {version} part {i} " + "word " * (n % 7), {"genre": f"g{n % 4}"})
        for i in range(parts)
    )
    return DocumentVersion(f"d{n}", f"{n}-{version}", chunks)


class Ledger:
    """Counts chunks handed out by the stream and chunks Chroma has stored, and what was held at
    each embedding call (handed out, not yet stored)."""

    def __init__(self) -> None:
        self.produced = 0
        self.written = 0
        self.held: list[int] = []
        self.upserts = 0
        self.fail_at: int | None = None

    def stream(self, docs: list[DocumentVersion]) -> Iterator[DocumentVersion]:
        for d in docs:
            self.produced += len(d.chunks)
            yield d


class LedgerEmbeddings(HashEmbeddings):
    def __init__(self, ledger: Ledger) -> None:
        super().__init__()
        self.ledger = ledger

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.ledger.held.append(self.ledger.produced - self.ledger.written)
        return super().embed_documents(texts)


class LedgerChroma:
    def __init__(self, chroma: Any, ledger: Ledger) -> None:
        self._chroma = chroma
        self._ledger = ledger

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chroma, name)

    def upsert(self, **kwargs: Any) -> Any:
        return self._write(self._chroma.upsert, kwargs)

    def add(self, **kwargs: Any) -> Any:  # new chunks are added, stored ones upserted: both are writes
        return self._write(self._chroma.add, kwargs)

    def _write(self, write: Any, kwargs: dict[str, Any]) -> Any:
        self._ledger.upserts += 1
        if self._ledger.upserts == self._ledger.fail_at:
            raise RuntimeError("disk full")
        result = write(**kwargs)
        self._ledger.written += len(kwargs["ids"])
        return result


def open_collection(client: ClientAPI, ledger: Ledger) -> Collection:
    store = Store(client, LedgerEmbeddings(ledger), batch_size=BATCH, store=StoreSettings(write_batch_size=WRITE))
    coll = store.create_collection("stream", SCHEMA, exist_ok=True)
    coll._chroma = cast(Any, LedgerChroma(coll._chroma, ledger))
    return coll


@pytest.mark.parametrize("size", [60, 600])
def test_a_stream_is_held_a_window_or_two_at_a_time_whatever_its_length(chroma_client: ClientAPI, size: int) -> None:
    ledger = Ledger()
    coll = open_collection(chroma_client, ledger)
    docs = [doc(n) for n in range(size)]
    chunks = sum(len(d.chunks) for d in docs)
    written = coll.write_documents(ledger.stream(docs), total=chunks)
    assert written.embedded == chunks == coll.count() and len(written.added) == size
    # A window of 8 chunks being embedded, at most 8 more being written, the document read ahead
    # to close a window and the last one handed over (3 chunks at most each).
    assert max(ledger.held) <= 2 * WRITE + 2 * 3
    assert ledger.upserts >= chunks // WRITE  # it really went window by window


class InProcessEmbeddings(LedgerEmbeddings):
    computes_in_process = True  # as LocalEmbeddings declares: a model on this process's CPU


def windows_of(docs: list[DocumentVersion]) -> int:
    windows, size = 0, 0
    for d in docs:
        if size and size + len(d.chunks) > WRITE:
            windows, size = windows + 1, 0
        size += len(d.chunks)
    return windows + 1


def test_an_encoder_in_this_process_gets_one_write_a_window(chroma_client: ClientAPI) -> None:
    """An embedded Chroma write holds the GIL throughout and costs ~10-25 ms whatever its size,
    so beside an encoder that needs the GIL a window is written in one call once it is embedded."""
    ledger = Ledger()
    coll = open_collection(chroma_client, ledger)
    coll._embeddings = InProcessEmbeddings(ledger)
    docs = [doc(n) for n in range(30)]  # 1-3 chunks each: windows of whole documents, up to 8 chunks
    written = coll.write_documents(ledger.stream(docs))
    assert written.embedded == sum(len(d.chunks) for d in docs) == coll.count()
    assert ledger.upserts == windows_of(docs)


def test_an_encoder_that_waits_on_a_service_gets_writes_beside_it(chroma_client: ClientAPI) -> None:
    ledger = Ledger()
    coll = open_collection(chroma_client, ledger)
    docs = [doc(n) for n in range(30)]
    written = coll.write_documents(ledger.stream(docs))
    assert written.embedded == coll.count()
    # Documents go to the writer as their last chunk is embedded: several writes a window.
    assert ledger.upserts > windows_of(docs)


@pytest.mark.parametrize("embeddings", [LedgerEmbeddings, InProcessEmbeddings])
def test_progress_follows_the_encoder_and_reaches_the_total_once_written(
    chroma_client: ClientAPI, embeddings: type[LedgerEmbeddings]
) -> None:
    ledger = Ledger()
    coll = open_collection(chroma_client, ledger)
    coll._embeddings = embeddings(ledger)
    docs = [doc(n, parts=2) for n in range(4)]  # one window of 8 chunks, embedded 2 at a time
    seen: list[tuple[int, int, int]] = []
    coll.write_documents(docs, progress=lambda done, total: seen.append((done, total, ledger.written)))
    assert [(done, total) for done, total, _ in seen] == [(0, 8), (2, 8), (4, 8), (6, 8), (8, 8)]
    assert seen[-1][2] == 8  # the total only once everything is stored


def test_a_stream_replaces_exactly_like_a_list(chroma_client: ClientAPI) -> None:
    ledger = Ledger()
    coll = open_collection(chroma_client, ledger)
    coll.write_documents(ledger.stream([doc(n, parts=3) for n in range(40)]))
    # Every fifth document shrinks to one chunk, every seventh is unchanged text but a new version.
    again = [doc(n, "v2", parts=1) if n % 5 == 0 else doc(n, parts=3) for n in range(40)]
    written = coll.write_documents(ledger.stream(again))
    assert written.replaced == tuple(f"d{n}" for n in range(0, 40, 5))
    assert len(written.unchanged) == 32 and written.embedded == 8
    assert coll.count() == 32 * 3 + 8
    for n in range(0, 40, 5):
        assert coll.chunks_of(f"d{n}") == [f"d{n}"]
        assert "v2" in coll.get([f"d{n}"])[0].text
    assert coll.known_values("genre") == ["g0", "g1", "g2", "g3"]


def test_a_failed_write_stops_the_stream_and_leaves_whole_documents(chroma_client: ClientAPI) -> None:
    ledger = Ledger()
    coll = open_collection(chroma_client, ledger)
    ledger.fail_at = 3
    docs = [doc(n, parts=2) for n in range(40)]
    with pytest.raises(StoreError, match="cannot write to collection"):
        coll.write_documents(ledger.stream(docs))
    assert ledger.upserts == 3  # nothing was written after the failure
    stored = {cid for d in docs for cid in coll.chunks_of(d.id)}
    assert 0 < coll.count() == len(stored) == ledger.written < 80  # the writes before it, each document whole
    assert all({c.id for c in d.chunks} <= stored or not ({c.id for c in d.chunks} & stored) for d in docs)


def test_a_stream_refuses_a_document_named_twice_and_check_documents_finds_it_first(chroma_client: ClientAPI) -> None:
    ledger = Ledger()
    coll = open_collection(chroma_client, ledger)
    docs = [doc(n) for n in range(30)] + [doc(3, "v2")]
    with pytest.raises(IngestError, match="document 'd3' is given twice"):
        coll.check_documents(DocumentPlan.of(d) for d in docs)
    assert coll.count() == 0
    with pytest.raises(IngestError, match="document 'd3' is given twice"):
        coll.write_documents(ledger.stream(docs))
    # A list is checked whole before its first write.
    with pytest.raises(IngestError, match="document 'd31' is given twice"):
        coll.write_documents([doc(n) for n in range(31, 60)] + [doc(31, "v2")])
    assert not coll.get(["d31"])


def test_check_documents_counts_what_a_write_will_embed(chroma_client: ClientAPI) -> None:
    ledger = Ledger()
    coll = open_collection(chroma_client, ledger)
    first = [doc(n) for n in range(10)]
    assert coll.check_documents(DocumentPlan.of(d) for d in first) == sum(len(d.chunks) for d in first)
    coll.write_documents(first)
    again = [doc(0, "v2"), *first[1:], doc(10)]
    assert coll.check_documents(DocumentPlan.of(d) for d in again) == len(doc(0).chunks) + len(doc(10).chunks)
    clash = DocumentVersion("other", "x", (Chunk("d1:1", "taken"),))
    with pytest.raises(IngestError, match="its chunk id 'd1:1' is already taken by document 'd1'"):
        coll.check_documents([DocumentPlan.of(clash)])
