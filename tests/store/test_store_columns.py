"""The column cache answers filters exactly as Chroma does, and never from a stale snapshot."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.api.types import validate_where
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.store import Chunk, DocumentVersion, Store, chroma_settings
from selfrag.store._column_cache import ColumnCache, column_cache
from selfrag.testing import HashEmbeddings

KEYS = ["a", "b", "c", "tags"]
STRINGS = ["x", "y", "z"]
INTS = [0, 1, 2, 3]
FLOATS = [0.0, 1.0, 1.5, 2.0, 2.5]


def random_metadata(rng: random.Random) -> dict[str, Any] | None:
    """Mixed types under the same keys (Chroma allows it), arrays of each type, missing keys."""
    meta: dict[str, Any] = {}
    for key in KEYS:
        roll = rng.random()
        if roll < 0.2:
            continue
        if key == "tags":
            kind = rng.choice([STRINGS, INTS, FLOATS, [True, False]])
            meta[key] = rng.sample(kind, rng.randint(1, 2))
        elif roll < 0.4:
            meta[key] = rng.choice(STRINGS)
        elif roll < 0.6:
            meta[key] = rng.choice(INTS)
        elif roll < 0.8:
            meta[key] = rng.choice(FLOATS)
        else:
            meta[key] = rng.choice([True, False])
    return meta or None


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One Chroma collection of 300 records with random metadata, shared by the examples."""
    path = tmp_path_factory.mktemp("columns") / "chroma"
    client = chromadb.PersistentClient(path=str(path), settings=chroma_settings())
    coll = client.create_collection("columns")
    rng = random.Random(5)
    metas = [random_metadata(rng) for _ in range(300)]
    coll.add(ids=[f"r{i}" for i in range(300)], embeddings=[[1.0, float(i)] for i in range(300)],
             metadatas=metas)  # type: ignore[arg-type]
    yield coll
    client.close()


scalars = st.one_of(st.sampled_from(STRINGS), st.sampled_from(INTS), st.sampled_from(FLOATS), st.booleans(),
                    st.sampled_from([0.5, -1, 7, "w"]))
comparisons = st.one_of(
    st.builds(lambda k, op, v: {k: {op: v}}, st.sampled_from(KEYS), st.sampled_from(["$eq", "$ne"]), scalars),
    st.builds(lambda k, v: {k: v}, st.sampled_from(KEYS), scalars),
    st.builds(lambda k, op, v: {k: {op: v}}, st.sampled_from(KEYS), st.sampled_from(["$gt", "$gte", "$lt", "$lte"]),
              st.one_of(st.sampled_from(INTS), st.sampled_from(FLOATS))),
    st.builds(lambda k, op, vs: {k: {op: vs}}, st.sampled_from(KEYS), st.sampled_from(["$in", "$nin"]),
              st.one_of(st.lists(st.sampled_from(STRINGS), min_size=1, max_size=3),
                        st.lists(st.sampled_from(INTS), min_size=1, max_size=3),
                        st.lists(st.sampled_from(FLOATS), min_size=1, max_size=3),
                        st.lists(st.booleans(), min_size=1, max_size=2))),
    st.builds(lambda k, op, v: {k: {op: v}}, st.sampled_from(KEYS), st.sampled_from(["$contains", "$not_contains"]),
              scalars),
)
filters = st.recursive(
    comparisons,
    lambda inner: st.builds(lambda op, parts: {op: parts}, st.sampled_from(["$and", "$or"]),
                            st.lists(inner, min_size=2, max_size=3)),
    max_leaves=5,
)


def chroma_ids(coll: Any, where: dict[str, Any]) -> list[str] | None:
    try:
        validate_where(where)  # type: ignore[arg-type]
        return list(coll.get(where=where, include=[])["ids"])
    except Exception:  # noqa: BLE001 (a filter Chroma refuses is no example)
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=filters)
def test_columns_select_exactly_what_chroma_selects(raw: Any, where: dict[str, Any]) -> None:
    expected = chroma_ids(raw, where)
    assume(expected is not None)
    cache = column_cache(raw)
    assert cache is not None
    snapshot = cache.build()
    assert snapshot is not None
    mask = snapshot.columns.matches(where)
    assume(mask is not None)  # outside what the columns mirror: the search asks Chroma
    assert snapshot.columns.ids_where(mask) == expected  # the same records, in Chroma's order


def test_the_columns_mirror_the_filters_selfrag_writes(raw: Any) -> None:
    """Every operator on each type is mirrored (None only for a fraction against stored ints)."""
    cache = column_cache(raw)
    assert cache is not None
    snapshot = cache.build()
    assert snapshot is not None
    for where in [{"a": "x"}, {"a": {"$ne": 2}}, {"b": {"$gte": 2.0}}, {"c": {"$in": [True]}}, {"tags": {"$contains": "y"}},
                  {"$or": [{"a": {"$nin": ["x", "y"]}}, {"tags": {"$not_contains": 2}}]}, {"b": {"$lt": 2}}]:
        mask = snapshot.columns.matches(where)
        assert mask is not None, where
        assert snapshot.columns.ids_where(mask) == chroma_ids(raw, where), where
    assert snapshot.columns.matches({"a": {"$gt": 0.5}}) is None  # Chroma does not compare 0.5 with stored ints


# -- through Collection.search ---------------------------------------------------------------------
SCHEMA = CollectionSchema(attributes=[AttributeInfo(name="year", type="integer"), AttributeInfo(name="genre", type="string"),
                                      AttributeInfo(name="tags", type="string[]")])
WORDS = ["river", "stone", "light", "quiet", "storm", "glass", "ember", "field", "north", "salt"]


def chunks(n: int) -> list[Chunk]:
    rng = random.Random(9)
    return [Chunk(f"c{i}", " ".join(rng.choice(WORDS) for _ in range(6)),
                  {"year": 1990 + i % 20, "genre": ["noir", "drama", "comedy"][i % 3], "tags": [rng.choice(WORDS)]})
            for i in range(n)]


def open_store(path: Path, *, cache: bool) -> Store:
    from selfrag.settings import StoreSettings

    client = chromadb.PersistentClient(path=str(path), settings=chroma_settings())
    return Store(client, HashEmbeddings(), store=StoreSettings(filter_cache=cache, exact_search_limit=30))


def warm(coll: Any) -> ColumnCache:
    cache = coll._columns
    assert cache is not None
    cache.fresh()
    cache.wait()
    assert cache.fresh() is not None
    return cache


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """The same 200 chunks searched with the column cache (warm) and without it."""
    path = tmp_path_factory.mktemp("search") / "chroma"
    cached = open_store(path, cache=True).create_collection("films", SCHEMA)
    cached.add(chunks(200))
    warm(cached)
    return cached, open_store(path, cache=False).get_collection("films")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.one_of(
    st.builds(lambda y: {"year": {"$gte": y}}, st.integers(1985, 2012)),
    st.builds(lambda g, y: {"$and": [{"genre": g}, {"year": {"$lt": y}}]}, st.sampled_from(["noir", "drama", "comedy"]),
              st.integers(1990, 2010)),
    st.builds(lambda w: {"tags": {"$contains": w}}, st.sampled_from(WORDS)),
    st.builds(lambda g: {"genre": {"$nin": [g]}}, st.sampled_from(["noir", "drama"])),
), query=st.sampled_from(WORDS), min_score=st.sampled_from([None, 0.2]))
def test_search_through_the_cache_equals_search_through_chroma(
    films: tuple[Any, Any], where: dict[str, Any], query: str, min_score: float | None
) -> None:
    cached, direct = films
    got = cached.search(query, where=where, k=4, min_score=min_score)
    want = direct.search(query, where=where, k=4, min_score=min_score)
    assert [(h.id, round(h.score, 6), h.text, h.metadata) for h in got] == [
        (h.id, round(h.score, 6), h.text, h.metadata) for h in want]


def test_a_write_by_anyone_makes_the_snapshot_unusable_at_once(tmp_path: Path) -> None:
    coll = open_store(tmp_path / "chroma", cache=True).create_collection("films", SCHEMA)
    coll.add(chunks(60))
    cache = warm(coll)
    builds = cache.builds
    where = {"genre": "noir"}
    before = coll.search("river", where=where, k=50)
    assert len(before) == 20
    # Another client of the same files (as another process would be) deletes one hit and moves another
    # out of the filter; the cache was not told.
    other = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chroma_settings()).get_collection("films")
    gone, moved = before[0].id, before[1].id
    other.delete(ids=[gone])
    other.update(ids=[moved], metadatas=[{"genre": "drama"}])
    assert cache.fresh() is None  # stale at once: the next searches go to Chroma
    after = coll.search("river", where=where, k=50)
    assert {h.id for h in after} == {h.id for h in before} - {gone, moved}
    cache.wait()
    assert cache.fresh() is not None and cache.builds == builds + 1  # rebuilt in the background
    assert [h.id for h in coll.search("river", where=where, k=50)] == [h.id for h in after]


def test_a_write_between_the_snapshot_and_the_hits_sends_the_search_to_chroma(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    coll = open_store(tmp_path / "chroma", cache=True).create_collection("films", SCHEMA)
    coll.add(chunks(60))
    warm(coll)
    where = {"genre": "noir"}
    first = coll.search("river", where=where, k=1)[0].id
    real = coll._search_ids
    raced: list[bool] = []

    def racing(*args: Any, **kwargs: Any) -> Any:
        hits = real(*args, **kwargs)
        if not raced:  # the first call answers from the snapshot; then the chunk is deleted
            raced.append(True)
            coll._chroma.delete(ids=[first])
        return hits

    monkeypatch.setattr(coll, "_search_ids", racing)
    assert first not in [h.id for h in coll.search("river", where=where, k=1)]


def test_no_cache_for_a_client_without_a_database_file() -> None:
    client = chromadb.EphemeralClient(settings=chroma_settings())
    raw = client.get_or_create_collection("ephemeral-columns")
    assert column_cache(raw) is None


def test_searches_beside_a_writer_never_return_a_chunk_deleted_before_they_started(tmp_path: Path) -> None:
    import threading

    coll = open_store(tmp_path / "chroma", cache=True).create_collection("films", SCHEMA)
    coll.add(chunks(120))
    warm(coll)
    where = {"genre": {"$in": ["noir", "drama"]}}
    victims = [h.id for h in coll.search("river", where=where, k=80)]
    deleted: list[str] = []
    done = threading.Event()

    def writer() -> None:
        # Deletes through the raw Chroma collection, as another writer would: the cache is never told.
        for cid in victims[:30]:
            coll._chroma.delete(ids=[cid])
            deleted.append(cid)
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    searches = 0
    while not done.is_set() or searches < 5:
        gone = set(deleted)  # deleted before this search started
        hits = coll.search("river", where=where, k=80)
        assert not gone & {h.id for h in hits}
        searches += 1
    thread.join()
    coll._columns.wait()
    direct = open_store(tmp_path / "chroma", cache=False).get_collection("films")
    assert [h.id for h in coll.search("river", where=where, k=80)] == [h.id for h in direct.search("river", where=where, k=80)]


def test_this_process_s_writes_are_followed_without_a_rebuild(tmp_path: Path) -> None:
    """Adds, replacements, metadata-only updates and deletes through the collection edit the
    snapshot from just the records written: no rebuild, and it still selects what Chroma selects."""
    coll = open_store(tmp_path / "chroma", cache=True).create_collection("films", SCHEMA)
    coll.add(chunks(60))
    cache = warm(coll)
    builds, follows = cache.builds, cache.follows
    raw = coll._chroma
    coll.add([Chunk("c5", "storm over the salt field", {"year": 2030, "genre": "western", "tags": ["ember", "north"]}),
              Chunk("new1", "quiet glass river", {"year": 1991, "genre": "noir", "tags": ["salt"]})])
    coll.add([Chunk("c7", chunks(60)[7].text, {"year": 1997, "genre": "comedy"})])  # metadata only: an update
    coll.delete(["c9", "c10", "unknown"])
    coll.write_documents([DocumentVersion("doc", "v1", (Chunk("doc#0", "river stone", {"year": 2001, "genre": "drama"}),
                                                        Chunk("doc#1", "north light", {"year": 2002, "genre": "drama"})))])
    coll.write_documents([DocumentVersion("doc", "v2", (Chunk("doc#0", "river ember", {"year": 2003, "genre": "noir"}),))])
    coll.delete_documents(["nothing"])
    snapshot = cache.fresh()
    assert snapshot is not None, "the snapshot follows the writes"
    assert cache.builds == builds and cache.follows > follows
    for where in [{"genre": "western"}, {"genre": "noir"}, {"year": {"$gte": 2000}}, {"tags": {"$contains": "north"}},
                  {"genre": {"$nin": ["noir", "drama"]}}, {"year": 1997}, {"tags": {"$not_contains": "salt"}}]:
        mask = snapshot.columns.matches(where)
        assert mask is not None
        assert snapshot.columns.ids_where(mask) == chroma_ids(raw, where), where
    assert snapshot.columns.ids_where(snapshot.columns.matches({"genre": {"$ne": "x"}})) == raw.get(include=[])["ids"]


def test_a_snapshot_stale_before_a_write_is_rebuilt_not_followed(tmp_path: Path) -> None:
    coll = open_store(tmp_path / "chroma", cache=True).create_collection("films", SCHEMA)
    coll.add(chunks(20))
    cache = warm(coll)
    other = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chroma_settings()).get_collection("films")
    other.delete(ids=["c1"])  # not through this process: the snapshot is stale
    follows = cache.follows
    coll.add([Chunk("late", "salt storm", {"year": 2000, "genre": "noir"})])
    assert cache.follows == follows and cache.fresh() is None
    cache.wait()
    snapshot = cache.fresh()
    assert snapshot is not None and "c1" not in snapshot.columns.ids_where(snapshot.columns.matches({"year": {"$gte": 0}}))
