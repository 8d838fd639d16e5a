"""What the pinned Chroma does with array metadata: the mention attributes' storage and filter.

Found with chromadb 1.5.9 (recorded in the README's "Knowledge graph" section): a metadata value
may be a list of strings; ``$contains`` / ``$not_contains`` on it test membership of one value,
exactly and case-sensitively; they combine with other conditions under ``$and``/``$or``; an empty
list is refused at insert. A set of names (what a relation resolves to) is an ``$or`` of
``$contains``: ``$in`` does not look inside arrays.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chromadb
import pytest

from selfrag.kg import mention_where
from selfrag.store.client import chroma_settings

DOCS = {
    "a": {"organizations": ["Graphwise", "Paloma Labs"], "sentiment": -0.8},
    "b": {"organizations": ["Graphwise"], "sentiment": 0.9},
    "c": {"organizations": ["Mercury Motors"], "sentiment": -0.7},
    "d": {"sentiment": 0.1},
}


@pytest.fixture
def collection(tmp_path: Path) -> Any:
    client = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chroma_settings())
    col = client.create_collection("arrays", embedding_function=None)
    ids = sorted(DOCS)
    col.add(ids=ids, documents=[f"doc {i}" for i in ids], metadatas=[DOCS[i] for i in ids],
            embeddings=[[float(n), 1.0] for n in range(len(ids))])
    return col


def _ids(col: Any, where: dict[str, Any]) -> list[str]:
    return sorted(col.get(where=where)["ids"])


def test_the_pinned_version() -> None:
    assert chromadb.__version__.startswith("1.5.")


def test_contains_and_not_contains_on_a_string_array(collection: Any) -> None:
    assert _ids(collection, {"organizations": {"$contains": "Graphwise"}}) == ["a", "b"]
    assert _ids(collection, {"organizations": {"$contains": "graphwise"}}) == []  # exact, case-sensitive
    assert _ids(collection, {"organizations": {"$contains": "Graph"}}) == []  # whole values, not substrings
    assert _ids(collection, {"organizations": {"$not_contains": "Graphwise"}}) == ["c", "d"]


def test_an_entity_set_is_an_or_of_contains_anded_with_the_rest(collection: Any) -> None:
    names = ["Paloma Labs", "Mercury Motors"]
    where = {"$and": [{"$or": [{"organizations": {"$contains": n}} for n in names]}, {"sentiment": {"$lt": -0.5}}]}
    assert _ids(collection, where) == ["a", "c"]
    hits = collection.query(query_embeddings=[[0.0, 1.0]], n_results=5, where=where)
    assert sorted(hits["ids"][0]) == ["a", "c"]
    assert _ids(collection, {"organizations": {"$in": names}}) == []  # $in compares whole values


def test_an_empty_array_is_refused(collection: Any) -> None:
    with pytest.raises(ValueError):
        collection.add(ids=["e"], documents=["e"], metadatas=[{"organizations": []}], embeddings=[[9.0, 1.0]])


def test_mention_where_builds_that_filter(collection: Any) -> None:
    assert mention_where("organizations", []) is None
    assert mention_where("organizations", ["Graphwise", "Graphwise"]) == {"organizations": {"$contains": "Graphwise"}}
    where = mention_where("organizations", ["Paloma Labs", "Mercury Motors"])
    assert where is not None and _ids(collection, where) == ["a", "c"]
