"""The collection write lock after a Postgres restart: the lock dies with its session, so the
writer re-checks it just before saving the catalogue, and stops rather than overwrite the record
another writer saved meanwhile."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from selfrag.errors import WriteConflict
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.service.locks import CollectionLocks
from selfrag.store import Chunk, Store
from selfrag.testing import HashEmbeddings
from tests.pg import LocalPostgres, start_postgres

pytestmark = pytest.mark.integration

SCHEMA = CollectionSchema(attributes=[AttributeInfo(name="genre", type="string")])


@pytest.fixture(scope="module")
def restartable() -> Iterator[LocalPostgres]:
    server = start_postgres(durable=True)  # restarted under a held lock: keep what was committed
    yield server
    server.stop()


def test_a_lease_is_lost_with_a_restart_and_another_writer_takes_the_lock(restartable: LocalPostgres) -> None:
    a, b = CollectionLocks(restartable.url, timeout_s=5), CollectionLocks(restartable.url, timeout_s=5)
    with a.hold("movies") as lease:
        assert lease.held()
        restartable.restart()
        assert not lease.held()
        with b.hold("movies") as other:  # the other instance is not kept waiting by a dead lock
            assert other.held()


def test_a_lease_held_through_nothing_stays_held(restartable: LocalPostgres) -> None:
    locks = CollectionLocks(restartable.url, timeout_s=5)
    with locks.hold("books") as lease:
        assert lease.held() and lease.held()
    assert CollectionLocks().hold("x").__enter__().held()  # in-process only: cannot be lost


def test_a_writer_whose_lock_was_lost_does_not_save_the_catalogue(chroma_client: Any) -> None:
    store = Store(chroma_client, HashEmbeddings())
    coll = store.create_collection("movies", SCHEMA)
    coll.add([Chunk("a", "A film", {"genre": "drama"})])

    def lost() -> None:
        raise WriteConflict("lost")

    writer = store.get_collection("movies")
    writer.before_commit = lost
    with pytest.raises(WriteConflict):
        writer.add([Chunk("b", "Another film", {"genre": "comedy"})])
    assert store.get_collection("movies").catalogue()["genre"] == ["drama"]  # the record saved before is intact
