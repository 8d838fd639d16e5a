"""Fixtures for the graph-filtering integration: the session's real FalkorDB (``tests.kg``), the
companies graph loaded once, and a private Chroma store per test holding the companies sample."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chromadb.api import ClientAPI

from selfrag.kg import FalkorGraphStore, open_graph_store
from selfrag.samples import ingest_sample
from selfrag.store import Store
from selfrag.testing import HashEmbeddings
from tests.kg.conftest import SAMPLE, companies_index, companies_link, falkordb_url  # noqa: F401 - fixtures

__all__ = ["SAMPLE"]


@pytest.fixture
def graph(falkordb_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FalkorGraphStore]:  # noqa: F811
    store = open_graph_store(tmp_path_factory.mktemp("unused"), falkordb_url)
    yield store
    store.close()


@pytest.fixture
def store(chroma_client: ClientAPI) -> Store:
    return Store(chroma_client, HashEmbeddings(), batch_size=64)


@pytest.fixture
def companies(store: Store, graph: FalkorGraphStore) -> Store:
    """The companies sample ingested (its graph loaded into the session's FalkorDB first)."""
    ingest_sample(store, "companies", graph=graph)
    return store
