"""``engine.as_runnable()``: a LangChain Runnable (invoke, ainvoke, batch, abatch, stream, astream)
whose runs LangChain callbacks see, with the graph and the model calls as children."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document as LCDocument
from langchain_core.runnables import RunnableLambda

from selfrag.errors import UsageError
from tests.workflows.conftest import grade, happy
from workflows import EngineRunnable

KEYS = {"question", "answer", "outcome", "context", "citations", "collection", "collections", "thread_id"}


class Recorder(BaseCallbackHandler):
    """Every chain start and end, with its run ids; and the chat model starts."""

    def __init__(self) -> None:
        self.starts: list[tuple[str, UUID, UUID | None]] = []
        self.ends: list[tuple[UUID, Any]] = []
        self.model_parents: list[UUID | None] = []

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kw: Any) -> None:
        self.starts.append((kw.get("name") or "", run_id, parent_run_id))

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self.ends.append((run_id, outputs))

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kw: Any) -> None:
        self.model_parents.append(parent_run_id)


def on_topic(messages: list[Any]) -> str:
    """Relevant when the document holds the word the question asks about (toys, dinosaurs)."""
    prompt = str(messages[-1].content)
    question, doc = prompt.split("<document>", 1)
    topic = "toys" if "toys" in question else "dinosaurs"
    return grade("relevant" if topic in doc.lower() else "irrelevant")


@pytest.fixture
def runnable(make_engine: Any) -> EngineRunnable:
    engine, _, _ = make_engine({**happy(), "RelevanceGrade": on_topic})
    return engine.as_runnable(collection="movies", extras={"count_docs": lambda s: len(s.documents)})


def _check_output(out: dict[str, Any], doc_id: str) -> None:
    assert set(out) == KEYS | {"count_docs"}
    assert out["outcome"] == "answered"
    assert out["collection"] == "movies"
    assert out["count_docs"] == 1
    (doc,) = out["context"]
    assert isinstance(doc, LCDocument)
    assert doc.metadata["id"] == doc_id and doc.metadata["collection"] == "movies"
    assert isinstance(doc.metadata["score"], float)
    assert [c["id"] for c in out["citations"]] == [doc_id]


def test_invoke_takes_a_question_and_returns_the_answer_dict(runnable: EngineRunnable) -> None:
    out = runnable.invoke("Which movie has toys?")
    _check_output(out, "toys")
    assert out["question"] == "Which movie has toys?"
    assert out["answer"]


def test_invoke_takes_a_dict_with_options(make_engine: Any) -> None:
    engine, _, coll = make_engine(happy())
    chain = engine.as_runnable()
    out = chain.invoke({"question": "Which movie has toys?", "collection": "movies", "options": {"top_k": 1}})
    assert out["outcome"] == "answered"
    assert coll.searches[-1][2] == 1  # top_k reached the search
    one = chain.invoke({"question": "Which movie has toys?", "collections": ["movies"]})
    assert one["collection"] == "movies"
    both = chain.invoke({"question": "Which movie has toys?", "collections": ["movies", "elsewhere"]})
    # an unknown second collection is reported in the trace; the first still answers
    assert both["outcome"] == "answered" and both["collection"] == "movies"


@pytest.mark.parametrize("bad", [
    {"question": "toys?", "collection": "movies", "options": {"max_rewrite": 1}},
    {"question": "toys?", "collection": "movies", "colection": "x"},
    {"question": "toys?"},
    {"question": "toys?", "collections": "movies"},
    {"collection": "movies"},
])
def test_bad_input_is_a_usage_error_before_any_call(make_engine: Any, bad: dict[str, Any]) -> None:
    engine, model, _ = make_engine(happy())
    with pytest.raises(UsageError):
        engine.as_runnable().invoke(bad)
    assert model.calls == []


def test_ainvoke_batch_and_abatch(runnable: EngineRunnable) -> None:
    _check_output(asyncio.run(runnable.ainvoke("Which movie has dinosaurs?")), "dino")
    toys, dino = runnable.batch(["Which movie has toys?", {"question": "Which movie has dinosaurs?"}])
    _check_output(toys, "toys")
    _check_output(dino, "dino")
    outs = asyncio.run(runnable.abatch(["Which movie has dinosaurs?", "Which movie has toys?"]))
    assert [o["context"][0].metadata["id"] for o in outs] == ["dino", "toys"]


def test_stream_yields_node_events_then_the_output(runnable: EngineRunnable) -> None:
    chunks = list(runnable.stream("Which movie has toys?"))
    *streamed, last = chunks
    nodes = [c for c in streamed if "node" in c]
    # the scripted model streams its answer a word at a time, before generate's node chunk
    deltas = [c for c in streamed if "answer_delta" in c]
    assert len(deltas) > 1 and {(c["generation"], c["attempt"]) for c in deltas} == {(1, 1)}
    assert streamed.index(deltas[-1]) < streamed.index(next(c for c in nodes if c["node"] == "generate"))
    assert "".join(c["answer_delta"] for c in deltas) == last["answer"]
    assert [c["node"] for c in nodes] == ["condense", "self_query", "retrieve", "grade_documents", "generate", "check", "finalize"]
    retrieve = next(c for c in nodes if c["node"] == "retrieve")
    assert retrieve["summary"] and "documents" in retrieve["data"]
    _check_output(last, "toys")


def test_astream_yields_the_same_chunks(runnable: EngineRunnable) -> None:
    async def collect() -> list[dict[str, Any]]:
        return [c async for c in runnable.astream("Which movie has toys?")]

    chunks = asyncio.run(collect())
    assert [c.get("node") for c in chunks[:-1]][:3] == ["condense", "self_query", "retrieve"]
    _check_output(chunks[-1], "toys")


def test_callbacks_see_the_run_with_the_graph_and_the_model_calls_inside(runnable: EngineRunnable) -> None:
    recorder = Recorder()
    out = runnable.invoke("Which movie has toys?", {"callbacks": [recorder], "run_name": "movie-qa"})
    name, run_id, parent = recorder.starts[0]
    assert (name, parent) == ("movie-qa", None)
    assert recorder.ends[-1] == (run_id, out)  # the run ends with the output, last
    graph = [r for n, r, p in recorder.starts if n == "selfrag" and p == run_id]
    assert len(graph) == 1  # the compiled graph runs as a child of the runnable's run
    run_ids = {r for _, r, _ in recorder.starts}
    assert recorder.model_parents and all(p in run_ids for p in recorder.model_parents)


def test_a_failing_run_reports_the_error_to_the_callbacks(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy())
    errors: list[BaseException] = []

    class OnError(BaseCallbackHandler):
        def on_chain_error(self, error: BaseException, **kw: Any) -> None:
            errors.append(error)

    with pytest.raises(UsageError):
        engine.as_runnable(collection="nope").invoke("toys?", {"callbacks": [OnError()]})
    assert [e.code for e in errors if isinstance(e, UsageError)] == ["collection_not_found"]


def test_it_composes_in_lcel_invoked_and_streamed(runnable: EngineRunnable) -> None:
    chain = runnable | RunnableLambda(lambda out: f"{out['outcome']}: {out['answer']}")
    assert chain.invoke("Which movie has toys?") == "answered: An answer [1]."
    # Streamed, the next step sees the node chunks fold into the last one: the output.
    assert list(chain.stream("Which movie has toys?")) == ["answered: An answer [1]."]
