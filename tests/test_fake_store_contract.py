"""Contract: the fake store's filter semantics (``selfrag.testing.matches_where``) are Chroma's.

Unit tests trust ``FakeCollection`` to select what Chroma would, and the eval harness's filter
accuracy asks Chroma itself (``eval.selection``); both must agree on every filter the schema
allows (``selfrag.query.parse_where``): ``$eq $ne $gt $gte $lt $lte $in $nin`` on the declared
types (ordering on numbers only), the ``{attr: value}`` shorthand, ``$contains``/``$not_contains``
on a ``string[]`` attribute (the graph filter: ``selfrag.kg.mention_where`` ORs one ``$contains``
per entity name), and nested ``$and``/``$or``. Records miss attributes at random, since a missing
attribute is where semantics diverge (``$ne``/``$nin``/``$not_contains`` select it).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval.selection import selected_ids
from selfrag.query import parse_where
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.store import chroma_settings
from selfrag.testing import matches_where

DOMAIN: dict[str, tuple[str, list[Any]]] = {
    "genre": ("string", ["comedy", "drama", "Drama", "science fiction", ""]),
    "year": ("integer", [-1, 0, 1993, 1995, 2006, 2**40]),
    "rating": ("float", [-0.5, 0.0, 6.5, 8.0, 8.25, 9.75]),
    "free": ("boolean", [True, False]),
    "orgs": ("string[]", [["Acme"], ["Acme", "Beta Corp"], ["beta corp"], ["Beta Corp", "Société Générale"], ["Zeta"]]),
}
ELEMENTS = ["Acme", "Beta Corp", "beta corp", "Société Générale", "Zeta", "Nobody"]
"""What ``$contains`` asks for: each element of some record, a case variant, and one of none."""
SCHEMA = CollectionSchema(attributes=[AttributeInfo(name=n, type=t) for n, (t, _) in DOMAIN.items()])  # type: ignore[arg-type]
GRAPH_ATTRIBUTE = "orgs"
"""Only graph resolution filters it (``$contains``, built by ``selfrag.kg``, never parsed from a caller)."""


def _allowed(where: dict[str, Any]) -> None:
    """Check a generated filter is one selfrag sends: a caller's (``parse_where``) or the graph's."""
    if GRAPH_ATTRIBUTE not in repr(where):
        parse_where(where, SCHEMA)
_ORDERING = ["$gt", "$gte", "$lt", "$lte"]


def _records(seed: int, n: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    out: dict[str, dict[str, Any]] = {}
    for i in range(n):
        meta = {name: rng.choice(values) for name, (_, values) in DOMAIN.items() if rng.random() < 0.75}
        meta = {k: v for k, v in meta.items() if v != ""}  # ingest stores no empty string
        out[f"r{i}"] = meta
    return out


RECORDS = _records(seed=20251123, n=40)


@pytest.fixture(scope="module")
def chroma(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    path: Path = tmp_path_factory.mktemp("fake-contract")
    client = chromadb.PersistentClient(path=str(path), settings=chroma_settings())
    col = client.create_collection("fake-contract", embedding_function=None)
    col.add(
        ids=list(RECORDS),
        embeddings=[[1.0]] * len(RECORDS),
        metadatas=[meta or None for meta in RECORDS.values()],  # type: ignore[misc]
    )
    yield col
    client.delete_collection("fake-contract")


@st.composite
def conditions(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(st.sampled_from(sorted(DOMAIN)))
    type_, values = DOMAIN[name]
    if type_ == "string[]":
        return {name: {draw(st.sampled_from(["$contains", "$not_contains"])): draw(st.sampled_from(ELEMENTS))}}
    values = [v for v in values if v != ""]
    ops = ["$eq", "$ne", "$in", "$nin", "shorthand"] + (_ORDERING if type_ in ("integer", "float") else [])
    op = draw(st.sampled_from(ops))
    if op in ("$in", "$nin"):
        return {name: {op: draw(st.lists(st.sampled_from(values), min_size=1, max_size=3))}}
    value = draw(st.sampled_from(values))
    return {name: value} if op == "shorthand" else {name: {op: value}}


def _where(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda op, parts: {op: parts}, st.sampled_from(["$and", "$or"]), st.lists(children, min_size=2, max_size=3))


wheres = st.recursive(conditions(), _where, max_leaves=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=wheres)
def test_the_fake_selects_what_chroma_selects(chroma: Any, where: dict[str, Any]) -> None:
    _allowed(where)
    by_chroma = set(chroma.get(where=where, include=[])["ids"])
    by_fake = {i for i, meta in RECORDS.items() if matches_where(meta, where)}
    assert by_fake == by_chroma, (where, sorted(by_fake ^ by_chroma))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=wheres)
def test_filter_accuracy_selects_what_chroma_selects(chroma: Any, where: dict[str, Any]) -> None:
    assert selected_ids(where, RECORDS) == set(chroma.get(where=where, include=[])["ids"])


def test_the_graph_filter_selects_what_chroma_selects(chroma: Any) -> None:
    # The exact shape graph resolution sends (one name, and several ORed), against a real Chroma.
    from selfrag.kg import mention_where

    for names in (["Acme"], ["Beta Corp", "Zeta"], ["Société Générale", "Nobody"], ["Nobody"]):
        where = mention_where("orgs", names)
        assert where is not None
        by_chroma = set(chroma.get(where=where, include=[])["ids"])
        assert {i for i, meta in RECORDS.items() if matches_where(meta, where)} == by_chroma, names
        assert by_chroma or names == ["Nobody"]
