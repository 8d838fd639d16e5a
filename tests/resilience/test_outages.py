"""An outage is an error, never an answer: a model or a store that cannot be reached ends the run
with a coded error, nothing of the turn is stored, and the cause stays chained for debugging."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from langchain_core.exceptions import OutputParserException
from langgraph.checkpoint.memory import InMemorySaver

from graders import FailurePolicy, GraderConfig, RelevanceGrader
from selfrag.breaker import BreakerOpen
from selfrag.errors import DependencyUnavailable, ProviderError, StoreError
from selfrag.outages import is_outage
from selfrag.retry import RetryPolicy, call_with_retries, is_retryable
from selfrag.store.types import Hit
from selfrag.testing import FakeCollection, FakeStore, ScriptedChatModel
from tests.workflows.conftest import DOCS, FAST, SCHEMA, happy, relevant_if
from workflows import Components, Outcome, Resource, RunOptions, SelfRagEngine

QUESTION = "Which movie is about toys coming alive?"


def refused(*_: Any) -> str:
    raise ConnectionError("connection refused by the model server at 10.0.0.7:8080")


def engine_with(rules: dict[str, Any], *collections: FakeCollection, saver: Any = None) -> tuple[SelfRagEngine, ScriptedChatModel]:
    model = ScriptedChatModel.from_rules(rules)
    colls = collections or (FakeCollection("movies", SCHEMA, list(DOCS.values())),)
    components = Components.from_model(model, FakeStore(*colls), retry=FAST, self_query_mode="rules")
    return SelfRagEngine(components, defaults=RunOptions(), checkpointer=saver), model


# -- what counts as an outage ---------------------------------------------------------------------
@pytest.mark.parametrize("exc", [
    ConnectionError("refused"), TimeoutError(), httpx.ConnectError("refused"), httpx.ReadTimeout("slow"),
    BreakerOpen("model", 1.0),
])
def test_transport_failures_are_outages(exc: BaseException) -> None:
    assert is_outage(exc)


@pytest.mark.parametrize("exc", [OutputParserException("bad json"), ValueError("bug"), KeyError("x")])
def test_a_reply_that_was_had_is_not_an_outage(exc: BaseException) -> None:
    assert not is_outage(exc)


def test_an_outage_wrapped_by_a_client_library_is_still_one() -> None:
    try:
        try:
            raise httpx.ConnectError("refused")
        except httpx.ConnectError as inner:
            raise RuntimeError("APIConnectionError: Connection error.") from inner
    except RuntimeError as outer:
        assert is_outage(outer)


def test_a_call_refused_by_an_open_breaker_is_not_retried() -> None:
    calls = []

    def call() -> str:
        calls.append(1)
        try:
            raise BreakerOpen("model", 1.0)
        except BreakerOpen as exc:
            raise RuntimeError("connection error") from exc

    with pytest.raises(RuntimeError):
        call_with_retries(call, RetryPolicy(attempts=5, initial_wait_s=0, max_wait_s=0))
    assert len(calls) == 1
    assert is_retryable(ConnectionError("refused"))  # until the breaker opens


# -- the graders' failure policy ------------------------------------------------------------------
def test_a_fail_closed_grader_raises_when_the_model_cannot_be_reached() -> None:
    model = ScriptedChatModel.from_rules({"RelevanceGrade": refused})
    grader = RelevanceGrader(model, GraderConfig(policy=FailurePolicy.FAIL_CLOSED, retry=FAST))
    with pytest.raises(ProviderError) as err:
        grader.grade("Which movie has toys?", {"text": "Toys come alive"})
    assert err.value.code == "provider_unavailable" and err.value.dependency == "model"
    assert "10.0.0.7" not in err.value.message and "10.0.0.7" in (err.value.detail or "")
    assert isinstance(err.value.__cause__, ConnectionError)  # SELFRAG_DEBUG=1 shows it
    assert len(model.calls) == 3  # retried under its policy first


def test_a_fail_closed_grader_still_decides_on_invalid_output() -> None:
    model = ScriptedChatModel.from_rules({"RelevanceGrade": "not json at all"})
    grader = RelevanceGrader(model, GraderConfig(policy=FailurePolicy.FAIL_CLOSED, retry=FAST))
    result = grader.grade("Which movie has toys?", {"text": "Toys come alive"})
    assert result.failed and not result.passed


# -- a run ----------------------------------------------------------------------------------------
def test_a_model_down_while_grading_ends_the_run_and_stores_no_turn() -> None:
    saver = InMemorySaver()
    engine, _ = engine_with(happy(), saver=saver)
    first = engine.run(QUESTION, collection="movies", thread_id="t")
    assert first.outcome is Outcome.ANSWERED
    engine_down, _ = engine_with(happy(RelevanceGrade=refused), saver=saver)
    with pytest.raises(ProviderError) as err:
        engine_down.run("And which one has dinosaurs?", collection="movies", thread_id="t")
    assert err.value.dependency == "model"
    info = engine.thread("t")
    assert info is not None and len(info.turns) == 1  # the failed turn was not stored
    assert engine.run("And which one has dinosaurs?", collection="movies", thread_id="t").outcome is not None
    assert len(engine.thread("t").turns) == 2  # type: ignore[union-attr]


def test_a_model_that_dies_mid_run_is_an_error_not_a_fallback_answer() -> None:
    # Grading works; the model dies before generating: the generator's fallback (an extract, or
    # "couldn't produce an answer") must not come back as the run's outcome.
    saver = InMemorySaver()
    engine, model = engine_with(happy(generate=refused), saver=saver)
    with pytest.raises(ProviderError):
        engine.run(QUESTION, collection="movies", thread_id="mid")
    assert model.calls_for("RelevanceGrade")
    info = engine.thread("mid")
    assert info is None  # nothing of the failed turn, not even an empty thread


def test_a_store_down_on_the_per_resource_path_ends_the_run() -> None:
    def down(query: str, where: Any, k: int) -> list[Hit]:
        raise StoreError("cannot query collection 'books': the Chroma server cannot be reached")

    books = FakeCollection("books", SCHEMA, list(DOCS.values()), search_fn=down)
    movies = FakeCollection("movies", SCHEMA, list(DOCS.values()))
    saver = InMemorySaver()
    engine, _ = engine_with(happy(RelevanceGrade=relevant_if("Toys")), movies, books, saver=saver)
    with pytest.raises(StoreError) as err:
        engine.run(QUESTION, resources=["movies", "books"], thread_id="r")
    assert err.value.code == "store_unavailable" and err.value.dependency == "vector_store"
    info = engine.thread("r")
    assert info is None  # nothing of the failed turn, not even an empty thread


def test_an_unknown_collection_on_the_per_resource_path_is_still_only_recorded() -> None:
    engine, _ = engine_with(happy(RelevanceGrade=relevant_if("Toys")))
    result = engine.run(QUESTION, resources=["movies", "removed"])
    assert result.outcome is Outcome.ANSWERED
    assert {p["resource"]: p["error_code"] for p in result.trace.resources}["removed"] == "collection_not_found"


def test_a_retriever_whose_server_is_down_ends_the_run() -> None:
    from langchain_core.retrievers import BaseRetriever

    class Remote(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Any]:
            raise httpx.ConnectError("[Errno 111] Connection refused")

    engine, _ = engine_with(happy(RelevanceGrade=relevant_if("Toys")))
    with pytest.raises(DependencyUnavailable) as err:
        engine.run(QUESTION, resources=["movies", Resource("web", retriever=Remote())])
    assert err.value.dependency == "retriever" and err.value.code == "dependency_unavailable"


def test_a_dead_model_fails_fast_once_its_breaker_is_open() -> None:
    from selfrag.breaker import BreakerPolicy, CircuitBreaker

    breaker = CircuitBreaker("model test", BreakerPolicy(failures=3, reset_s=60))
    reached = []

    def through_breaker(task: str, messages: object) -> str:
        breaker.before()  # as the HTTP transport does (selfrag.providers._transport)
        reached.append(task)
        time.sleep(0.05)  # a connect timeout, shortened
        breaker.failure()
        raise ConnectionError("refused")

    engine, model = engine_with(happy())
    model.script = through_breaker  # type: ignore[method-assign]
    start = time.monotonic()
    for _ in range(3):
        with pytest.raises(ProviderError) as err:
            engine.run(QUESTION, collection="movies")
        assert "failed repeatedly" in err.value.message or len(reached) <= 3
    # Only the calls before the breaker opened reached the server; later ones were refused at once
    # and never retried (3 attempts a call, 4 documents a run, 3 runs would otherwise be 36). Calls
    # already past the breaker when it opened (up to 4 graded at once) still reach the server.
    assert len(reached) <= 3 + 4
    assert time.monotonic() - start < 2.0
