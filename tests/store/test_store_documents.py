"""Documents in a collection: added, replaced in place, unchanged for free, deleted whole."""

from __future__ import annotations

import pytest

from selfrag.errors import IngestError
from selfrag.schema import CollectionSchema
from selfrag.store import Chunk, Collection, DocumentVersion, Store, StoredDocument
from tests.store.conftest import CountingEmbeddings


def version(doc_id: str, fingerprint: str, *texts: str, **meta: object) -> DocumentVersion:
    chunks = tuple(
        Chunk(doc_id if i == 0 else f"{doc_id}:{i}", text, {"source": f"{doc_id}.txt", "chunk_index": i, **meta})
        for i, text in enumerate(texts)
    )
    return DocumentVersion(doc_id, fingerprint, chunks)


@pytest.fixture
def films(store: Store, movie_schema: CollectionSchema) -> Collection:
    return store.create_collection("films", movie_schema)


def test_unchanged_documents_cost_nothing(films: Collection, embeddings: CountingEmbeddings) -> None:
    docs = [version("jp", "v1", "Dinosaurs run amok.", genre="science fiction"), version("toys", "v1", "Toys come alive.")]
    first = films.write_documents(docs)
    assert (first.added, first.replaced, first.unchanged, first.embedded) == (("jp", "toys"), (), (), 2)
    embeddings.embedded.clear()
    again = films.write_documents(docs)
    assert (again.added, again.replaced, again.unchanged, again.embedded) == ((), (), ("jp", "toys"), 0)
    assert embeddings.embedded == []
    stored = films.get(["jp"])[0].metadata
    assert (stored["doc_id"], stored["doc_hash"]) == ("jp", "v1")


def test_a_new_version_replaces_every_old_chunk(films: Collection) -> None:
    films.write_documents([version("memo", "v1", "First part.", "Second part.", "Third part.", genre="drama")])
    progress: list[tuple[int, int]] = []
    result = films.write_documents([version("memo", "v2", "Only part now.", genre="comedy")],
                                   progress=lambda done, total: progress.append((done, total)))
    assert result.replaced == ("memo",) and progress == [(0, 1), (1, 1)]
    assert films.count() == 1
    [chunk] = films.get(["memo", "memo:1", "memo:2"])
    assert chunk.text == "Only part now." and chunk.metadata["genre"] == "comedy"
    assert films.known_values("genre") == ["comedy"]  # the old version's value left the catalogue


def test_a_documents_stored_chunks_are_found_through_the_metadata_index(films: Collection) -> None:
    """Issue 29: Chroma's ``get(where={"doc_id": ...})`` reads every record of the embedded
    collection (22 ms at 200,000 chunks), which made one document's write grow with the
    collection. The stored chunks are found through SQLite's (key, value) index and read by id; a
    replacement still drops the old version's extra chunks, and nothing else is touched."""
    films.write_documents([version("memo", "v1", "First part.", "Second part.", "Third part.", genre="drama"),
                           version("other", "v1", "Another film.", genre="drama")])
    filters: list[object] = []
    chroma = films._chroma
    real_get = chroma.get

    def get(*args: object, **kwargs: object) -> object:
        filters.append(kwargs.get("where"))
        return real_get(*args, **kwargs)  # type: ignore[arg-type]

    chroma.get = get  # type: ignore[method-assign]
    result = films.write_documents([version("memo", "v2", "Only part now.", genre="comedy")])
    assert result.replaced == ("memo",)
    assert filters and all(w is None for w in filters)  # every read by id: no filter over the collection
    assert sorted(c.id for c in films.get(["memo", "memo:1", "memo:2", "other"])) == ["memo", "other"]
    assert films.delete_documents(["memo", "absent"]) == ["memo"] and films.count() == 1


def test_legacy_chunks_without_a_fingerprint_are_replaced(films: Collection) -> None:
    films.add([Chunk("old", "Written by an older selfrag.", {"doc_id": "old", "source": "/abs/old.txt"})])
    result = films.write_documents([version("old", "v1", "Written by an older selfrag.")])
    assert result.replaced == ("old",)
    assert films.get(["old"])[0].metadata["source"] == "old.txt"


def test_chunk_ids_of_another_document_are_refused_before_any_write(films: Collection) -> None:
    films.write_documents([version("a", "v1", "One.", "Two.")])  # chunks a, a:1
    with pytest.raises(IngestError, match=r"document 'a:1': its chunk id 'a:1' is already taken by document 'a'"):
        films.write_documents([version("b", "v1", "Bee."), version("a:1", "v1", "Impostor.")])
    assert [d.id for d in films.documents()] == ["a"]
    with pytest.raises(IngestError, match="document 'x' is given twice"):
        films.write_documents([version("x", "v1", "X."), version("x", "v2", "Y.")])
    with pytest.raises(IngestError, match="both have a chunk 'y:1'"):
        films.write_documents([version("y", "v1", "One.", "Two."), version("y:1", "v1", "Three.")])


def test_listing_finding_and_deleting_documents(films: Collection) -> None:
    films.write_documents([version("a", "v1", "One.", "Two.", genre="drama"), version("b", "v1", "Bee.", genre="comedy")])
    assert films.documents() == [StoredDocument("a", "a.txt", 2), StoredDocument("b", "b.txt", 1)]
    assert films.documents_from(["a.txt", "nowhere.txt"]) == {"a.txt": {"a"}}
    assert films.chunks_of("a") == ["a", "a:1"] and films.chunks_of("a:1") == ["a:1"]
    assert films.delete_documents(["a", "missing"]) == ["a"]
    assert films.documents() == [StoredDocument("b", "b.txt", 1)]
    assert films.known_values("genre") == ["comedy"]


def test_deletes_and_replaces_keep_the_catalogue_without_scanning_the_collection(
        films: Collection, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: a delete or a replace had re-read every chunk's metadata to rebuild the catalogue
    (0.76 s at 10k chunks, growing with the collection); only the values that left are looked up."""
    films.write_documents([version("a", "v1", "One.", "Two.", genre="drama", director="Agnès Varda"),
                           version("b", "v1", "Bee.", genre="Comedy"), version("c", "v1", "Sea.", genre="comedy"),
                           version("d", "v1", "Dee.", genre="drama")])
    import selfrag.store.collection as module

    def no_scan(*args: object, **kwargs: object) -> None:
        raise AssertionError("the whole collection was scanned")

    monkeypatch.setattr(module, "scan", no_scan)
    films.delete_documents(["a"])  # "drama" is still held by d; the director by nobody
    assert films.known_values("genre") == ["Comedy", "drama"] and films.known_values("director") == []
    films.delete(["b"])  # the catalogued spelling "Comedy" left, but c still holds "comedy"
    assert films.known_values("genre") == ["Comedy", "drama"]
    films.write_documents([version("d", "v2", "Dee again.", genre="horror")])  # a replace drops "drama"
    assert films.known_values("genre") == ["Comedy", "horror"]
    films.delete_document("c")
    assert films.known_values("genre") == ["horror"]
