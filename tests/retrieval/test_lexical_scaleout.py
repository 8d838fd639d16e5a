"""Several instances on one Chroma, each with its own data directory (its own lexical index files):
an ingest through one is found lexically by the others within 5 s, from the change log alone."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import chromadb
import pytest

from selfrag.retrieval import LEXICAL
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.settings import Settings, StoreSettings
from selfrag.store import Collection, Store, chroma_settings
from selfrag.testing import HashEmbeddings
from tests.retrieval.conftest import MOVIES, movie_doc
from tests.servers import ServerProcess, free_port
from workflows.factory import build_retrieval
from workflows.retrieval import RetrievalStage

SCHEMA = CollectionSchema(attributes=[AttributeInfo(name="year", type="integer"), AttributeInfo(name="director", type="string")])
CHROMA = Path(sys.executable).parent / "chroma"


def found_lexically(stage: RetrievalStage, collection: Collection, query: str) -> list[str]:
    hits = stage.search(collection, collection.name, query, where=None, k=4, min_score=None)
    return [h.id for h in hits if h.rank_in(LEXICAL) is not None]


def freshness(writer: tuple[Collection, RetrievalStage], reader: tuple[Collection, RetrievalStage]) -> float:
    """Seconds from the writer's ingest until the reader finds the new document lexically."""
    (coll_a, stage_a), (coll_b, stage_b) = writer, reader
    assert found_lexically(stage_b, coll_b, "wormhole") == ["interstellar"]  # the reader's index is built
    coll_a.write_documents([movie_doc("das-boot", "A submarine crew in the Atlantic.", 1981, "Wolfgang Petersen")])
    stage_a.refresh(coll_a)  # what the writing instance does after its ingest
    start = time.monotonic()
    while "das-boot" not in found_lexically(stage_b, coll_b, "submarine Atlantic"):
        assert time.monotonic() - start < 5.0, "the other instance did not find the new document within 5 s"
        time.sleep(0.1)
    return time.monotonic() - start


def instance(store: Store, home: Path) -> tuple[Collection, RetrievalStage]:
    return store.get_collection("movies"), build_retrieval(Settings(home=home))


def test_two_instances_on_one_embedded_chroma(tmp_path: Path) -> None:
    clients = [chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chroma_settings()) for _ in range(2)]
    stores = [Store(c, HashEmbeddings()) for c in clients]
    stores[0].create_collection("movies", SCHEMA).write_documents(movie_doc(i, t, y, d) for i, (t, y, d) in MOVIES.items())
    a, b = instance(stores[0], tmp_path / "a"), instance(stores[1], tmp_path / "b")
    try:
        assert freshness(a, b) < 5.0
    finally:
        a[1].close()
        b[1].close()


@pytest.fixture
def chroma(tmp_path: Path) -> Iterator[ServerProcess]:
    """A real ``chroma run`` on a free loopback port."""
    if not CHROMA.exists():
        pytest.skip("the chroma CLI is not installed in this environment")
    port = free_port()
    cmd = [str(CHROMA), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1", "--port", str(port)]
    proc = ServerProcess.start("chroma", cmd, tmp_path / "chroma.log", f"http://127.0.0.1:{port}")
    try:
        proc.wait_until_up("/api/v2/heartbeat", timeout_s=30)
        yield proc
    finally:
        proc.stop()


@pytest.mark.integration
def test_two_instances_on_one_chroma_server(tmp_path: Path, chroma: ServerProcess) -> None:
    settings = [Settings(home=tmp_path / name, store=StoreSettings(chroma_url=chroma.url)) for name in ("a", "b")]
    with Store.from_settings(settings[0], HashEmbeddings()) as one, Store.from_settings(settings[1], HashEmbeddings()) as two:
        one.create_collection("movies", SCHEMA).write_documents(movie_doc(i, t, y, d) for i, (t, y, d) in MOVIES.items())
        a, b = instance(one, settings[0].home), instance(two, settings[1].home)
        try:
            assert freshness(a, b) < 5.0
        finally:
            a[1].close()
            b[1].close()
