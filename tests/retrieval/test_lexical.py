"""BM25 retrieval over a real embedded Chroma: filters, exact replace/delete, persistence."""

from __future__ import annotations

import gzip
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from chromadb.api import ClientAPI

from selfrag.errors import InvalidFilter, StoreError, UsageError
from selfrag.retrieval import (
    TERMS_VERSION,
    ChromaChunkSource,
    LexicalEntry,
    LexicalIndex,
    LexicalIndexes,
    LexicalRetriever,
    SyncReport,
    lexical_terms,
)
from selfrag.store import Chunk, Collection
from tests.retrieval.conftest import movie_doc


class CountingSource(ChromaChunkSource):
    """The real source, counting what it is asked: chunk texts read, whole listings."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.read_ids: list[str] = []
        self.listings = 0

    def read(self, ids: Sequence[str]) -> list[Chunk]:
        self.read_ids.extend(ids)
        return super().read(ids)

    def versions(self) -> dict[str, str]:
        self.listings += 1
        return super().versions()


def source(client: ClientAPI, name: str = "movies") -> CountingSource:
    return CountingSource(client.get_collection(name))


def ids(hits: Sequence[Any]) -> list[str]:
    return [h.id for h in hits]


def test_terms_fold_like_the_self_query() -> None:
    # Lemma then the light plural stem (the self-query's normaliser), accents and case folded,
    # thousands separators dropped from numbers, function words out.
    assert lexical_terms("The Directors' revenues grew to 1,200 dollars in Zürich") == [
        "director", "revenue", "grow", "1200", "dollar", "zurich",
    ]
    assert lexical_terms("revenue") == lexical_terms("Revenues")
    assert lexical_terms("of the and") == []


def test_index_ranks_by_bm25_and_restricts_before_ranking() -> None:
    index = LexicalIndex(entries=(
        LexicalEntry(i, "1", tuple(lexical_terms(t)))
        for i, t in [("a", "dinosaur theme park"), ("b", "a space ranger toy"), ("c", "park ranger ranger"), ("d", "")]
    ))
    assert ids(index.search("ranger", 5)) == ["c", "b"]  # term frequency counts; no shared term, no hit
    assert ids(index.search("ranger", 5, among=["b", "unknown"])) == ["b"]
    assert ids(index.search("ranger park", 1)) == ["c"]
    assert index.search("submarine", 5) == []
    assert index.search("", 5) == []
    index.delete(["c"])
    index.upsert([LexicalEntry("b", "2", tuple(lexical_terms("a sheriff doll")))])
    assert ids(index.search("ranger", 5)) == []
    assert ids(index.search("doll", 5)) == ["b"]
    with pytest.raises(ValueError):
        index.search("park", 0)
    index.close()


def test_restricted_search_probes_few_and_filters_many(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways of restricting to a filter's matches give the same ranking (scores the collection's:
    the few are read and scored by the index, the many by FTS5's ``bm25()``, equal to rounding)."""
    import selfrag.retrieval.lexical as lexical_module

    texts = [f"ranger {'park ' * (i % 5)}toy{i}" for i in range(60)]
    index = LexicalIndex(entries=[LexicalEntry(f"c{i}", "1", tuple(lexical_terms(t))) for i, t in enumerate(texts)])
    among = [f"c{i}" for i in range(0, 60, 3)]
    probed = index.search("park ranger", 5, among=among)
    monkeypatch.setattr(lexical_module, "_AMONG_PROBE", 0)
    rounded = lambda matches: [(m.id, round(m.score, 9)) for m in matches]  # noqa: E731
    assert rounded(index.search("park ranger", 5, among=among)) == rounded(probed)
    assert {m.id for m in probed} <= set(among) and len(probed) == 5
    whole = [m for m in index.search("park ranger", 60) if m.id in among][:5]
    assert [(m.id, round(m.score, 9)) for m in probed] == [(m.id, round(m.score, 9)) for m in whole]
    index.close()


def test_a_large_collection_leaves_common_terms_out_of_a_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: a term in most chunks made FTS5 score the whole collection per question. Over
    ``PRUNE_FROM`` chunks, common terms are dropped when a rarer one is asked; when all are
    common, the chunks holding all of them rank first. Document frequencies follow the writes."""
    import selfrag.retrieval.lexical as lexical_module

    monkeypatch.setattr(lexical_module, "PRUNE_FROM", 10)
    monkeypatch.setattr(lexical_module, "COMMON_FRACTION", 0.2)
    texts = [f"common filler word{i} {'shared ' if i % 2 else ''}" for i in range(40)] + ["common filler rare target"]
    index = LexicalIndex(entries=[LexicalEntry(f"c{i}", "1", tuple(lexical_terms(t))) for i, t in enumerate(texts)])
    # "common" and "filler" are in every chunk: only "rare" is matched, so only the chunk holding it competes.
    assert ids(index.search("common filler rare", 5)) == ["c40"]
    # ... and the common terms still rank the chunks a rare term selected.
    index.upsert([LexicalEntry("r1", "1", ("rare", "other", "unique")), LexicalEntry("r2", "1", ("rare", "share", "other"))])
    assert ids(index.search("shared rare", 5))[0] == "r2"
    index.delete(["r1", "r2"])
    # Every term common: chunks holding all of them first (an AND), the rest only if too few do.
    both = ids(index.search("common shared", 5))
    assert len(both) == 5 and all(int(i[1:]) % 2 == 1 for i in both)
    assert len(ids(index.search("common shared", 30))) == 30  # fewer than 30 hold both: any of them
    # The frequencies follow replacements and deletes: "target" becomes common once in most chunks.
    index.upsert([LexicalEntry(f"c{i}", "2", tuple(lexical_terms(f"common target word{i}"))) for i in range(30)])
    assert ids(index.search("target rare", 5)) == ["c40"]
    index.delete([f"c{i}" for i in range(30)])
    assert set(ids(index.search("target word35", 5))) == {"c40", "c35"}  # "target" is rare again
    monkeypatch.setattr(lexical_module, "PRUNE_FROM", 10_000)  # a small collection: every term, as before
    assert set(ids(index.search("common filler rare", 50))) == {f"c{i}" for i in range(30, 41)}
    index.close()


def test_a_term_in_more_chunks_than_the_cap_is_common_whatever_the_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29 at 1M chunks: a share alone let a "rare" term select 5 % of the collection (50,000
    chunks), so a warm question's cost grew with the collection. ``COMMON_CAP`` bounds it."""
    import selfrag.retrieval.lexical as lexical_module

    monkeypatch.setattr(lexical_module, "PRUNE_FROM", 10)
    monkeypatch.setattr(lexical_module, "COMMON_FRACTION", 0.5)  # "filler" (12 of 41) is under the share
    texts = [f"word{i} {'filler' if i < 12 else 'other'}" for i in range(40)] + ["filler target"]
    index = LexicalIndex(entries=[LexicalEntry(f"c{i}", "1", tuple(lexical_terms(t))) for i, t in enumerate(texts)])
    assert len(ids(index.search("filler target", 20))) == 13  # both rare by the share: either selects
    monkeypatch.setattr(lexical_module, "COMMON_CAP", 5)  # in 13 chunks, over the cap: common
    assert ids(index.search("filler target", 20)) == ["c40"]
    index.close()


def test_a_large_collection_scores_as_fts5_bm25(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: over ``PRUNE_FROM`` chunks the index scores the chunks it selected itself (FTS5's
    ``bm25()`` first walked every query term's whole postings list to count its chunks). With no
    term common the two rank alike, to the score, and stay alike after replacements and deletes."""
    import selfrag.retrieval.lexical as lexical_module

    monkeypatch.setattr(lexical_module, "COMMON_FRACTION", 1.0)
    monkeypatch.setattr(lexical_module, "COMMON_CAP", 10**9)
    texts = [f"ranger {'park ' * (i % 4)}{'toy ' * (i % 3)}word{i}" for i in range(50)]
    index = LexicalIndex(entries=[LexicalEntry(f"c{i}", "1", tuple(lexical_terms(t))) for i, t in enumerate(texts)])

    def both(query: str, k: int, among: list[str] | None = None) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        monkeypatch.setattr(lexical_module, "PRUNE_FROM", 10)
        ours = [(m.id, round(m.score, 9)) for m in index.search(query, k, among=among)]
        monkeypatch.setattr(lexical_module, "PRUNE_FROM", 10**9)
        return ours, [(m.id, round(m.score, 9)) for m in index.search(query, k, among=among)]

    for query in ("park ranger", "toy word7 park", "word3"):
        ours, fts5 = both(query, 10)
        assert ours == fts5 and ours
    index.upsert([LexicalEntry(f"c{i}", "2", tuple(lexical_terms("park park park toy"))) for i in range(5)])
    index.delete([f"c{i}" for i in range(40, 50)])
    ours, fts5 = both("park toy", 12)
    assert ours == fts5 and ours[0][0] in {f"c{i}" for i in range(5)}
    ours, fts5 = both("park toy", 4, among=[f"c{i}" for i in range(0, 50, 2)])
    assert ours == fts5 and len(ours) == 4
    index.close()


def test_all_common_terms_rank_the_chunks_holding_all_first_with_bounded_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29 at 1M chunks: a question of common terms only ranked every chunk holding them
    (hundreds of thousands; p90 0.6 s). Now at most ``SCORE_LIMIT`` chunks are read and scored,
    those holding every term first, any of them only when too few hold all; a filter still applies."""
    import selfrag.retrieval.lexical as lexical_module

    monkeypatch.setattr(lexical_module, "PRUNE_FROM", 10)
    monkeypatch.setattr(lexical_module, "COMMON_FRACTION", 0.2)
    monkeypatch.setattr(lexical_module, "SCORE_LIMIT", 8)
    scored: list[int] = []
    top = lexical_module._Bm25.top

    def counting(self: Any, chunks: Any, k: int) -> Any:
        rows = list(chunks)
        scored.append(len(rows))
        return top(self, rows, k)

    monkeypatch.setattr(lexical_module._Bm25, "top", counting)
    texts = [f"alpha {'beta ' if i % 2 else ''}{'gamma ' if i % 3 == 0 else ''}word{i}" for i in range(60)]
    index = LexicalIndex(entries=[LexicalEntry(f"c{i}", "1", tuple(lexical_terms(t))) for i, t in enumerate(texts)])
    found = ids(index.search("alpha beta gamma", 4))  # all three in every sixth chunk (i % 6 == 3)
    assert len(found) == 4 and all(int(i[1:]) % 6 == 3 for i in found)
    assert scored == [8]  # 10 chunks hold all three; 8 read
    scored.clear()
    assert len(ids(index.search("beta gamma", 20))) == 8  # fewer than 20 read holding both: then any
    assert scored == [8, 8]  # each shape reads at most 8
    among = [f"c{i}" for i in range(0, 60, 5)]  # 0, 5, ..., 55: all three in c15 and c45
    assert set(ids(index.search("alpha beta gamma", 2, among=among))) == {"c15", "c45"}
    monkeypatch.setattr(lexical_module, "_AMONG_PROBE", 0)  # a large filter: FTS5 selects among it
    assert set(ids(index.search("alpha beta gamma", 2, among=among))) == {"c15", "c45"}
    index.close()


def test_terms_that_unicode61_would_split_stay_one_token() -> None:
    index = LexicalIndex(entries=[LexicalEntry("a", "1", ("3.14", "o'neil", "x_y")), LexicalEntry("b", "1", ("14", "neil", "y"))])
    assert [m.id for m in index.search("3.14", 5)] == ["a"]
    index.upsert([LexicalEntry("q", "1", tuple(lexical_terms("pi is 3.14")))])
    assert {m.id for m in index.search("3.14 pi", 5)} == {"a", "q"}
    assert index.terms("a") == ("3.14", "o_neil", "x_y")
    index.close()


def test_search_without_and_with_a_filter(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    lexical = LexicalRetriever(source(chroma_client), LexicalIndexes(tmp_path / "lexical"))
    hits = lexical.search("wormhole astronauts", k=3)
    assert ids(hits) == ["interstellar"]
    assert hits[0].text.startswith("Astronauts travel") and hits[0].metadata["director"] == "Christopher Nolan"
    assert hits[0].score > 0

    assert set(ids(lexical.search("dreams space dinosaurs", k=5))) == {"inception", "alien", "jurassic-park", "toy-story"}
    # The filter is the collection's: only what it selects competes, and a selective one still gets its k.
    assert set(ids(lexical.search("dreams space dinosaurs", where={"year": {"$lt": 1990}}, k=5))) == {"alien"}
    nolan = {"director": {"$eq": "Christopher Nolan"}}
    assert ids(lexical.search("space dinosaurs", where=nolan, k=5)) == []
    assert ids(lexical.search("dreams", where={"$and": [nolan, {"year": {"$gt": 2012}}]}, k=5)) == []
    assert ids(lexical.search("dreams", where={"year": {"$gt": 2100}}, k=5)) == []
    with pytest.raises(InvalidFilter):
        lexical.search("dreams", where={"year": {"$between": [1, 2]}}, k=5)
    with pytest.raises(UsageError):
        lexical.search("dreams", k=0)


def test_replace_and_delete_are_exact(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    indexes = LexicalIndexes(tmp_path / "lexical", max_age_s=None)
    src = source(chroma_client)
    lexical = LexicalRetriever(src, indexes)
    assert ids(lexical.search("dinosaurs", k=4)) == ["jurassic-park"]

    movies.write_documents([movie_doc("jurassic-park", "A mathematician warns about chaos on an island.", 1993, "Steven Spielberg", "2")])
    movies.delete_document("alien")
    report = indexes.refresh(src)
    assert (report.added, report.replaced, report.removed) == (0, 1, 1)
    assert ids(lexical.search("dinosaurs", k=4)) == []
    assert ids(lexical.search("chaos mathematician", k=4)) == ["jurassic-park"]
    assert ids(lexical.search("Nostromo creature", k=4)) == []

    # A chunk written on its own (no document fingerprint) is versioned by its text.
    movies.add([Chunk("note", "A lone submarine under the ice.", {"year": 2000})])
    assert indexes.refresh(src).added == 1
    movies.add([Chunk("note", "A balloon over the desert.", {"year": 2000})])
    assert indexes.refresh(src).replaced == 1
    assert ids(lexical.search("submarine", k=4)) == [] and ids(lexical.search("balloon desert", k=4)) == ["note"]
    assert indexes.refresh(src).changed is False
    indexes.close()


def test_a_write_touches_only_its_own_chunks(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    """Adding, replacing or deleting a document reads back only that document's chunks and lists
    nothing: the index's other postings are not touched."""
    indexes = LexicalIndexes(tmp_path / "lexical", max_age_s=None)
    src = source(chroma_client)
    indexes.refresh(src)  # a new file: reconciled with the collection once
    assert src.listings == 1
    index = indexes.get(src)
    before = {i: index.terms(i) for i in src.versions()}
    src.read_ids.clear()
    src.listings = 0

    movies.write_documents([movie_doc("das-boot", "A submarine crew in the Atlantic.", 1981, "Wolfgang Petersen")])
    assert indexes.refresh(src) == SyncReport(1, 0, 0)
    movies.write_documents([movie_doc("inception", "A thief steals secrets from sleeping minds.", 2010, "Christopher Nolan", "2")])
    assert indexes.refresh(src) == SyncReport(0, 1, 0)
    movies.delete_document("toy-story")
    assert indexes.refresh(src) == SyncReport(0, 0, 1)

    assert src.read_ids == ["das-boot", "inception"] and src.listings == 0
    unchanged = {i for i in before if i not in ("inception", "toy-story")}
    assert {i: index.terms(i) for i in unchanged} == {i: before[i] for i in unchanged}
    assert index.terms("toy-story") is None and ids(indexes.get(src).search("submarine", 4)) == ["das-boot"]
    indexes.close()


def test_a_chunk_deleted_after_indexing_never_surfaces(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    indexes = LexicalIndexes(tmp_path / "lexical", max_age_s=None)
    lexical = LexicalRetriever(source(chroma_client), indexes)
    assert sorted(ids(lexical.search("wormhole dreams", k=4))) == ["inception", "interstellar"]
    movies.delete_document("interstellar")  # the index has not caught up: hits are read back from the collection
    assert ids(lexical.search("wormhole dreams", k=4)) == ["inception"]
    indexes.close()


def test_a_restart_reads_the_index_file_without_a_rebuild(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    root = tmp_path / "lexical"
    first = source(chroma_client)
    indexes = LexicalIndexes(root)
    indexes.refresh(first)
    indexes.close()
    assert (root / "movies.sqlite3").is_file() and len(first.read_ids) == len(movies.documents())

    again = source(chroma_client)  # a new process: the file is opened; only the hits are read, nothing listed
    restarted = LexicalIndexes(root)
    assert ids(LexicalRetriever(again, restarted).search("wormhole", k=2)) == ["interstellar"]
    assert again.read_ids == ["interstellar"] and again.listings == 0
    restarted.close()

    (root / "movies.sqlite3").write_bytes(b"not a database" * 100)  # unreadable: rebuilt, never a failed question
    rebuilt = source(chroma_client)
    indexes = LexicalIndexes(root)
    assert ids(LexicalRetriever(rebuilt, indexes).search("wormhole", k=2)) == ["interstellar"]
    assert rebuilt.listings == 1
    indexes.close()
    LexicalIndexes(root).forget("movies")
    assert not any(root.iterdir())


def test_an_index_file_that_cannot_be_opened_is_a_store_error_and_is_kept(
    tmp_path: Path, chroma_client: ClientAPI, movies: Collection, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "lexical"
    indexes = LexicalIndexes(root)
    indexes.refresh(source(chroma_client))
    indexes.close()
    index = root / "movies.sqlite3"
    real_connect = sqlite3.connect

    def refused(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if Path(database) == index:  # as for a file of another user's, or in a folder this user cannot enter
            raise sqlite3.OperationalError("unable to open database file")
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", refused)
    reopened = LexicalIndexes(root)
    with pytest.raises(StoreError) as raised:
        LexicalRetriever(source(chroma_client), reopened).search("wormhole", k=2)
    assert raised.value.message.startswith(f"the lexical index {index} cannot be read or written")
    assert "unable to open" not in raised.value.message  # SQLite's words are the detail's
    assert "unable to open database file" in (raised.value.detail or "")
    reopened.close()
    monkeypatch.undo()
    assert index.is_file()  # not a corrupt file: kept, never removed to be rebuilt
    again, kept = source(chroma_client), LexicalIndexes(root)
    assert ids(LexicalRetriever(again, kept).search("wormhole", k=2)) == ["interstellar"]
    assert again.listings == 0  # the file's own index, not a rebuild
    kept.close()


def test_an_index_of_the_previous_format_is_imported_once(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    root = tmp_path / "lexical"
    root.mkdir()
    src = source(chroma_client)
    versions = src.versions()
    stale = {"alien": "d:old"}  # written before alien changed: re-read; the others' terms are kept
    entries = [[i, stale.get(i, v), " ".join(lexical_terms(c.text))] for c in src.read(list(versions)) for i, v in [(c.id, versions[c.id])]]
    body = {"format": 1, "terms_version": TERMS_VERSION, "entries": entries}
    (root / "movies.json.gz").write_bytes(gzip.compress(json.dumps(body).encode()))
    src.read_ids.clear()

    indexes = LexicalIndexes(root)
    assert ids(LexicalRetriever(src, indexes).search("Nostromo", k=2)) == ["alien"]
    assert src.read_ids == ["alien", "alien"]  # the stale one, then the hit
    assert not (root / "movies.json.gz").exists() and (root / "movies.sqlite3").is_file()
    indexes.close()


def test_another_writer_is_seen_after_max_age(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    now = [0.0]
    indexes = LexicalIndexes(None, max_age_s=30.0, clock=lambda: now[0])
    src = source(chroma_client)
    lexical = LexicalRetriever(src, indexes)
    assert ids(lexical.search("submarine", k=2)) == []
    movies.write_documents([movie_doc("das-boot", "A submarine crew in the Atlantic.", 1981, "Wolfgang Petersen")])
    now[0] = 10.0
    assert ids(lexical.search("submarine", k=2)) == []  # within max_age: the index answers as it is
    now[0] = 31.0
    listings = src.listings
    assert ids(lexical.search("submarine", k=2)) == ["das-boot"]
    assert src.listings == listings  # caught up from the change log, not by listing the collection
    indexes.close()


def test_an_index_behind_the_log_reconciles_once(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    from selfrag.store import changes

    indexes = LexicalIndexes(tmp_path / "lexical", max_age_s=None)
    src = source(chroma_client)
    indexes.refresh(src)
    listings = src.listings
    for n in range(changes.MAX_IDS // 1000 + 2):  # more changed chunks than the log keeps
        movies.add([Chunk(f"bulk{n}-{i}", f"filler text {n} {i}", {"year": 2000}) for i in range(1000)])
    movies.add([Chunk("late", "A submarine under the ice.", {"year": 2001})])
    report = indexes.refresh(src)
    assert src.listings == listings + 1 and report.added == (changes.MAX_IDS // 1000 + 2) * 1000 + 1
    assert ids(indexes.get(src).search("submarine", 1)) == ["late"]
    indexes.close()


def test_an_index_dropped_without_close_closes_its_connections() -> None:
    # Python 3.13 warns (an error in this suite) about sqlite3 connections left to the collector.
    import gc
    import sqlite3

    index = LexicalIndex(entries=[LexicalEntry("a", "1", ("park",))])
    assert index.search("park", 1)
    pooled = list(index._idle)
    assert pooled
    del index
    gc.collect()
    for conn in pooled:
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")


def test_a_lexical_hit_carries_the_metadata_a_vector_hit_does(tmp_path: Path, chroma_client: ClientAPI) -> None:
    # The lexical source read metadata raw: a date as its stored YYYYMMDD integer ("closed_date:
    # 20220228" in a reader's passage, then its answer) and no list at all.
    from selfrag.schema import AttributeInfo, CollectionSchema
    from selfrag.store import DocumentVersion, Store
    from selfrag.testing import HashEmbeddings

    schema = CollectionSchema(description="claims", attributes=[
        AttributeInfo(name="closed_date", type="date"), AttributeInfo(name="documents", type="string[]"),
        AttributeInfo(name="amount", type="float")])
    collection = Store(chroma_client, HashEmbeddings()).create_collection("claims", schema)
    meta = {"closed_date": "2022-02-28", "documents": ["photos", "police report"], "amount": 120.5}
    collection.write_documents([DocumentVersion("c1", "c1-1", (Chunk("c1", "A hailstorm dented the roof.", meta),))])
    lexical = LexicalRetriever(collection.lexical_source(), LexicalIndexes(tmp_path / "lexical"))
    hits = lexical.search("hailstorm roof", k=1)
    assert ids(hits) == ["c1"]
    assert hits[0].metadata["closed_date"] == "2022-02-28"
    assert hits[0].metadata["documents"] == ["photos", "police report"]
    assert hits[0].metadata["amount"] == 120.5
    assert {k: hits[0].metadata[k] for k in meta} == {k: collection.get(["c1"])[0].metadata[k] for k in meta}
