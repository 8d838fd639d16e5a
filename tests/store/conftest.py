"""Fixtures for the store tests: a private Chroma database per test, fake embeddings.

Why not ``chromadb.EphemeralClient()``: every ephemeral client in a process shares one in-memory
system, and Chroma refuses a second one with different settings ("An instance of Chroma already
exists for ephemeral with different settings"), so the outcome would depend on which other test
module created it first. A ``PersistentClient`` under ``tmp_path`` is isolated and costs ~0.1 s.
"""

from __future__ import annotations

import pytest
from chromadb.api import ClientAPI
from langchain_core.embeddings import Embeddings

from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.settings import StoreSettings
from selfrag.store import Store
from selfrag.testing import HashEmbeddings


class CountingEmbeddings(HashEmbeddings):
    """HashEmbeddings that counts the texts it embeds, to prove what was (not) re-embedded."""

    def __init__(self, dim: int = 256) -> None:
        super().__init__(dim)
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded.extend(texts)
        return super().embed_documents(texts)


@pytest.fixture
def embeddings() -> CountingEmbeddings:
    return CountingEmbeddings()


@pytest.fixture
def store(chroma_client: ClientAPI, embeddings: Embeddings) -> Store:
    # Small embedding and write batches so a handful of chunks already exercises batching.
    return Store(chroma_client, embeddings, batch_size=2, store=StoreSettings(write_batch_size=2))


@pytest.fixture
def movie_schema() -> CollectionSchema:
    return CollectionSchema(
        description="films",
        attributes=[
            AttributeInfo(name="genre", type="string"),
            AttributeInfo(name="year", type="integer"),
            AttributeInfo(name="director", type="string"),
            AttributeInfo(name="rating", type="float"),
            AttributeInfo(name="classic", type="boolean"),
        ],
    )
