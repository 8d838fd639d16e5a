"""Creating, opening, listing and deleting collections; reaching Chroma from settings."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from chromadb.api import ClientAPI
from chromadb.api.shared_system_client import SharedSystemClient

from selfrag.errors import (
    CollectionExists,
    CollectionNotFound,
    ConfigError,
    SchemaError,
    StoreError,
    UsageError,
)
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.settings import Settings, StoreSettings
from selfrag.store import Chunk, Store, validate_collection_name
from selfrag.testing import HashEmbeddings


def test_create_get_list_delete(store: Store, movie_schema: CollectionSchema) -> None:
    created = store.create_collection("movies", movie_schema)
    store.create_collection("books.v2", CollectionSchema())
    assert created.name == "movies"
    assert store.list_collections() == ["books.v2", "movies"]
    assert store.get_collection("movies").schema == movie_schema
    assert store.has_collection("movies") and not store.has_collection("nope")
    store.delete_collection("movies")
    assert store.list_collections() == ["books.v2"]
    with pytest.raises(CollectionNotFound):
        store.get_collection("movies")
    with pytest.raises(CollectionNotFound):
        store.delete_collection("movies")


def test_collections_use_cosine_space(store: Store, chroma_client: ClientAPI) -> None:
    store.create_collection("movies", CollectionSchema())
    config = chroma_client.get_collection("movies", embedding_function=None)._model.configuration_json
    assert config["hnsw"]["space"] == "cosine"


def test_create_existing(store: Store, movie_schema: CollectionSchema) -> None:
    store.create_collection("movies", movie_schema)
    with pytest.raises(CollectionExists, match="already exists"):
        store.create_collection("movies", movie_schema)
    assert store.create_collection("movies", movie_schema, exist_ok=True).schema == movie_schema
    other = CollectionSchema(attributes=[AttributeInfo(name="year", type="string")])
    with pytest.raises(CollectionExists, match="different schema"):
        store.create_collection("movies", other, exist_ok=True)


@pytest.mark.parametrize("name", ["ab", "-movies", "movies-", "has space", "a..b", "x" * 64, "192.168.1.1", "émile"])
def test_invalid_names_are_usage_errors(store: Store, name: str) -> None:
    with pytest.raises(UsageError, match="invalid collection name"):
        store.create_collection(name, CollectionSchema())
    with pytest.raises(UsageError) as info:
        validate_collection_name(name)
    assert "\n" not in info.value.one_line()


@pytest.mark.parametrize("name", ["abc", "my_docs-2024", "a.b.c", "x" * 63])
def test_valid_names(name: str) -> None:
    assert validate_collection_name(name) == name


def test_schema_and_catalogue_survive_reopening_a_persistent_store(tmp_path: Path, movie_schema: CollectionSchema) -> None:
    settings = Settings(home=tmp_path / "home")
    with Store.from_settings(settings, HashEmbeddings()) as store:
        movies = store.create_collection("movies", movie_schema)
        movies.add([Chunk("a", "dinosaurs run amok", {"genre": "science fiction", "year": "1993"})])
    assert settings.chroma_path.is_dir()
    SharedSystemClient.clear_system_cache()  # force a real re-open from disk, not the cached system
    with Store.from_settings(settings, HashEmbeddings()) as store:
        again = store.get_collection("movies")
        assert again.schema == movie_schema
        assert again.catalogue() == {"genre": ["science fiction"]}
        assert again.get(["a"])[0].metadata["year"] == 1993
        assert again.search("dinosaurs", where=None, k=1)[0].id == "a"
    SharedSystemClient.clear_system_cache()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_unreachable_server_is_a_store_error() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    settings = Settings(store=StoreSettings(chroma_url=url))
    with pytest.raises(StoreError, match=f"cannot connect to Chroma at {url}"):
        Store.from_settings(settings, HashEmbeddings())


@pytest.mark.parametrize("url", ["ftp://host:8000", "localhost:8000", "http://host:8000/api", "http://host:99999"])
def test_bad_server_url_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match="invalid store.chroma_url"):
        Store.from_settings(Settings(store=StoreSettings(chroma_url=url)), HashEmbeddings())


def test_foreign_collections_open_with_an_empty_schema_and_keep_their_metadata(
    store: Store, chroma_client: ClientAPI
) -> None:
    chroma_client.create_collection("foreign", metadata={"owner": "someone"}, embedding_function=None)
    foreign = store.get_collection("foreign")
    assert foreign.schema == CollectionSchema()
    foreign.add([Chunk("a", "some text", {"k": "v"})])
    metadata = chroma_client.get_collection("foreign", embedding_function=None).metadata
    assert metadata is not None and metadata["owner"] == "someone" and metadata["selfrag:dimension"] == 256


def test_corrupt_stored_schema_is_a_schema_error(store: Store, chroma_client: ClientAPI) -> None:
    chroma_client.create_collection("broken", metadata={"selfrag:schema": "{not json"}, embedding_function=None)
    with pytest.raises(SchemaError, match="collection 'broken' has an unreadable stored schema"):
        store.get_collection("broken")
