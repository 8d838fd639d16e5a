"""The public builder takes any LangChain chat model, embeddings and retrievers; the engine runs
async (``arun``/``astream``) and streams the answer's tokens; the Runnable takes a retriever as a
resource and its extras see the documents it returns; the package ships ``py.typed``.

The chat model is LangChain's ``FakeListChatModel`` (it streams a character at a time) and the
embeddings ``DeterministicFakeEmbedding``: everything else is what ``build_engine`` builds (the
embedded Chroma, the trained reader-critic grading on the local profile)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings.fake import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.retrievers import BaseRetriever

import selfrag
import workflows
from selfrag.settings import Settings
from selfrag.store import Chunk
from tests.service.conftest import MOVIES, PLOTS
from workflows import AnswerDelta, NodeEvent, Result, SelfRagEngine
from workflows.factory import build_engine

ANSWER = "Scientists bring back dinosaurs on an island [1]."


class Notes(BaseRetriever):
    """A retriever of the caller's own: one note about dinosaurs."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[LCDocument]:
        return [LCDocument(page_content="A note: the dinosaur film was shot in Hawaii.", id="note-1",
                           metadata={"source": "notes"})]


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[SelfRagEngine]:
    settings = Settings(home=tmp_path / "home", workflow={"answer_strategy": "generate", "self_query_mode": "rules"})
    embeddings = DeterministicFakeEmbedding(size=64)
    built = build_engine(settings, llm=FakeListChatModel(responses=[ANSWER]), embeddings=embeddings,
                         retrievers={"notes": Notes()}, memory=False)
    built.components.store.create_collection("movies", MOVIES).add(  # type: ignore[attr-defined]
        [*PLOTS, Chunk("dino-2", "Dinosaurs escape in a theme park.", {"genre": "science fiction", "year": 1997})]
    )
    yield built
    built.close()
    built.components.store.close()  # type: ignore[attr-defined]


def test_build_engine_takes_a_langchain_chat_model_and_embeddings(engine: SelfRagEngine) -> None:
    assert isinstance(engine.components.generator.model, FakeListChatModel)
    assert isinstance(engine.components.store._embeddings, DeterministicFakeEmbedding)  # type: ignore[attr-defined]
    result = engine.run("Which movie has dinosaurs?", collection="movies")
    assert result.answer == ANSWER and result.trace.generations[0]["strategy"] == "llm"


def test_a_named_retriever_is_a_resource(engine: SelfRagEngine) -> None:
    result = engine.run("Where was the dinosaur film shot?", collection="movies", resources=["notes"])
    assert result.collections == ["movies", "notes"]
    assert "note-1" in [d["id"] for d in result.trace.documents]


def test_astream_streams_the_answer_as_the_model_writes_it(engine: SelfRagEngine) -> None:
    async def collect() -> list[Any]:
        return [e async for e in engine.astream("Which movie has dinosaurs?", collection="movies", tokens=True)]

    events = asyncio.run(collect())
    deltas = [e for e in events if isinstance(e, AnswerDelta)]
    first = [d for d in deltas if d.generation == 1]
    assert len(first) == len(ANSWER)  # the fake model streams a character at a time
    assert "".join(d.text for d in first) == ANSWER and {d.attempt for d in first} == {1}
    nodes = [e.node for e in events if isinstance(e, NodeEvent)]
    assert events.index(deltas[0]) < [i for i, e in enumerate(events) if isinstance(e, NodeEvent)][nodes.index("generate")]
    assert isinstance(events[-1], Result) and events[-1].answer == ANSWER
    assert asyncio.run(engine.arun("Which movie has dinosaurs?", collection="movies")).answer == ANSWER


def test_leaving_astream_early_stops_the_run(engine: SelfRagEngine) -> None:
    async def first_two() -> list[Any]:
        seen = []
        async for event in engine.astream("Which movie has dinosaurs?", collection="movies"):
            seen.append(event)
            if len(seen) == 2:
                break
        return seen

    assert [e.node for e in asyncio.run(first_two())] == ["condense", "self_query"]


def test_the_runnable_takes_a_retriever_and_extras_see_its_documents(engine: SelfRagEngine) -> None:
    seen: list[Any] = []
    chain = engine.as_runnable(extras={"n": lambda s: seen.append(s.context) or len(s.context)})
    out = chain.invoke({"question": "Where was the dinosaur film shot?", "collection": "movies", "resources": [Notes()]})
    assert out["collections"] == ["movies", "Notes"]
    assert [d.id for d in seen[0]] == [d.id for d in out["context"]] and out["n"] == len(out["context"])
    assert all(type(d) is type(out["context"][0]) for d in seen[0])  # the same Document type


def test_the_packages_ship_py_typed() -> None:
    for package in (selfrag, workflows):
        assert (Path(package.__file__).parent / "py.typed").is_file()  # type: ignore[arg-type]
