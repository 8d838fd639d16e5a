from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from selfrag.retry import RetryPolicy
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.store.types import Hit
from selfrag.testing import FakeCollection, FakeStore, ScriptedChatModel, verdict
from workflows import Components, RunOptions, SelfRagEngine

SCHEMA = CollectionSchema(
    attributes=[
        AttributeInfo(name="genre", type="string", allowed_values=["animated", "science fiction", "drama"]),
        AttributeInfo(name="year", type="integer", description="year the movie was released"),
    ]
)

DOCS = {
    "toys": {"id": "toys", "text": "Toys come alive and have a blast doing so", "metadata": {"genre": "animated", "year": 1995}},
    "dino": {"id": "dino", "text": "Scientists bring back dinosaurs and mayhem breaks loose", "metadata": {"genre": "science fiction", "year": 1993}},
    "zone": {"id": "zone", "text": "Three men walk into the Zone, three men walk out", "metadata": {"genre": "drama", "year": 1979}},
    "dream": {"id": "dream", "text": "A detective gets lost in dreams within dreams", "metadata": {"genre": "animated", "year": 2006}},
}

FAST = RetryPolicy(attempts=3, initial_wait_s=0.0, max_wait_s=0.0)


grade = verdict
"""A grader's scripted reply (``selfrag.testing.verdict``)."""


def answer(text: str, citations: Sequence[int] = (1,)) -> str:
    """A generated answer: plain text (citations are the [n] markers written in it)."""
    return text


def relevant_if(*needles: str) -> Callable[[list[Any]], str]:
    """Relevance script: relevant when the fenced document text contains one of the needles."""

    def rule(messages: list[Any]) -> str:
        prompt = str(messages[-1].content)
        doc = prompt.split("<document>", 1)[-1]
        return grade("relevant" if any(n in doc for n in needles) else "irrelevant")

    return rule


def hits(*ids: str) -> list[Hit]:
    return [Hit(id=DOCS[i]["id"], text=DOCS[i]["text"], metadata=DOCS[i]["metadata"], score=0.9 - n * 0.1) for n, i in enumerate(ids)]


def sequence_search(*batches: Sequence[str]) -> Callable[[str, Any, int], list[Hit]]:
    """Each search returns the next batch of ids; the last batch repeats."""
    calls = {"n": 0}

    def fn(query: str, where: Any, k: int) -> list[Hit]:
        i = min(calls["n"], len(batches) - 1)
        calls["n"] += 1
        return hits(*batches[i])

    return fn


@pytest.fixture
def make_engine() -> Callable[..., tuple[SelfRagEngine, ScriptedChatModel, FakeCollection]]:
    def build(
        rules: dict[str, Any],
        *,
        search_fn: Callable[[str, Any, int], list[Hit]] | None = None,
        options: RunOptions | None = None,
        checkpointer: Any = None,
        turn_locks: Any = None,
        **component_kwargs: Any,
    ) -> tuple[SelfRagEngine, ScriptedChatModel, FakeCollection]:
        model = ScriptedChatModel.from_rules(dict(rules))
        coll = FakeCollection("movies", SCHEMA, list(DOCS.values()), search_fn=search_fn)
        components = Components.from_model(model, FakeStore(coll), retry=FAST, self_query_mode="rules", **component_kwargs)
        locks = {} if turn_locks is None else {"turn_locks": turn_locks}
        engine = SelfRagEngine(components, defaults=options or RunOptions(), checkpointer=checkpointer, **locks)
        return engine, model, coll

    return build


def happy(**extra: Any) -> dict[str, Any]:
    """A script where every step succeeds: relevant, answered with a citation, grounded, useful."""
    return {
        "RelevanceGrade": grade("relevant"),
        "generate": answer("An answer [1]."),
        "GroundednessGrade": grade("grounded"),
        "UsefulnessGrade": grade("useful"),
        **extra,
    }


def records_engine(chroma_client: Any, collection: str, schema: CollectionSchema, paths: Sequence[Any], answer: str, *,
                   top_k: int, today: Any = None, relevant: bool = True,
                   checkpointer: Any = None) -> tuple[SelfRagEngine, ScriptedChatModel]:
    """An engine over ``paths`` ingested into a real Chroma ``collection``, the rules self-query,
    and a model whose every grader passes its one scripted ``answer``: what a passage's answer
    would be signed as where no set answer or guard stops it. ``relevant=False``: every document
    graded irrelevant, so only a set answer can answer."""
    from selfrag.ingest import ingest_paths
    from selfrag.store import Store
    from selfrag.testing import HashEmbeddings

    store = Store(chroma_client, HashEmbeddings(), batch_size=64)
    ingest_paths(store.create_collection(collection, schema), list(paths))
    model = ScriptedChatModel.from_rules({"RelevanceGrade": verdict("relevant" if relevant else "irrelevant"), "generate": answer,
                                          "GroundednessGrade": verdict("grounded"), "UsefulnessGrade": verdict("useful")})
    components = Components.from_model(model, store, retry=RetryPolicy(attempts=1, initial_wait_s=0.0, max_wait_s=0.0),
                                       self_query_mode="rules", parallel_checks=False)
    engine = SelfRagEngine(components, defaults=RunOptions(top_k=top_k), checkpointer=checkpointer,
                           **({"today": today} if today else {}))
    return engine, model
