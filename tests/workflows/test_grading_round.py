"""API providers grade every retrieved document in one round; the embedded model keeps a small pool."""

from __future__ import annotations

import threading
from typing import Any

from selfrag.settings import Settings
from selfrag.store.types import Hit
from selfrag.testing import FakeCollection, FakeStore, ScriptedChatModel
from tests.workflows.conftest import DOCS, SCHEMA, grade
from workflows import SelfRagEngine
from workflows.factory import build_components, run_options
from workflows.options import API_GRADE_ROUND, LOCAL_GRADE_CONCURRENCY, grade_concurrency_for


def test_the_provider_decides_the_default_round() -> None:
    assert grade_concurrency_for("openai", None) == API_GRADE_ROUND
    assert grade_concurrency_for("local", None) == LOCAL_GRADE_CONCURRENCY
    assert grade_concurrency_for("openai", 3) == 3  # an explicit setting wins
    api = Settings(llm={"provider": "openai", "api_key": "x"})  # type: ignore[arg-type]
    assert run_options(api).grade_concurrency == API_GRADE_ROUND
    assert run_options(Settings()).grade_concurrency == LOCAL_GRADE_CONCURRENCY
    pinned = Settings(llm={"provider": "openai", "api_key": "x"}, workflow={"grade_concurrency": 2})  # type: ignore[arg-type]
    assert run_options(pinned).grade_concurrency == 2


def test_an_api_configuration_grades_eight_documents_at_once() -> None:
    # Every relevance call waits at a barrier of 8: unless all 8 are in flight together, it breaks.
    barrier = threading.Barrier(8, timeout=5)

    def relevance(messages: list[Any]) -> str:
        barrier.wait()
        return grade("relevant")

    ids = list(DOCS) * 2
    docs = [{**DOCS[i], "id": f"{i}{n}"} for n, i in enumerate(ids)]
    found = [Hit(id=d["id"], text=d["text"], metadata=d["metadata"], score=0.8) for d in docs]
    model = ScriptedChatModel.from_rules({
        "StructuredQuery": '{"query": "movies", "filter": null, "limit": null}',
        "RelevanceGrade": relevance,
        "GroundednessGrade": '{"verdict": "grounded", "reason": "ok"}',
        "UsefulnessGrade": '{"verdict": "useful", "reason": "ok"}',
        "generate": "Toys come alive [1].",
    })
    coll = FakeCollection("movies", SCHEMA, docs, search_fn=lambda q, w, k: found[:k])
    settings = Settings(llm={"provider": "openai", "api_key": "x"}, workflow={"top_k": 8, "grader_retries": 1})  # type: ignore[arg-type]
    engine = SelfRagEngine(build_components(settings, store=FakeStore(coll), model=model), defaults=run_options(settings))
    result = engine.run("What do toys do?", collection="movies")
    assert result.outcome.value == "answered"
    assert len(model.calls_for("RelevanceGrade")) == 8
    assert not barrier.broken
