"""``engine.as_retriever()``: self-query, filter and retrieval through the engine's own nodes,
without grading or generation, as a LangChain retriever usable in any LCEL chain."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

from selfrag.testing import ScriptedChatModel
from tests.workflows.conftest import happy
from workflows import RunOptions


def test_the_retriever_self_queries_filters_and_returns_documents_without_grading(make_engine: Any) -> None:
    engine, model, coll = make_engine(happy())
    docs = engine.as_retriever(collection="movies").invoke("an animated movie from 1995")
    assert [d.metadata["id"] for d in docs] == ["toys"]  # the filter selected it: year and genre
    doc = docs[0]
    assert doc.page_content.startswith("Toys come alive")
    assert doc.metadata["collection"] == "movies"
    assert doc.metadata["genre"] == "animated"
    where = doc.metadata["where"]
    assert "1995" in str(where) and "animated" in str(where)
    assert coll.searches[-1][1] == where  # the where the store was searched with
    assert model.calls == []  # rules self-query, no grading, no generation


def test_options_reach_the_search(make_engine: Any) -> None:
    engine, _, coll = make_engine(happy())
    docs = engine.as_retriever(collection="movies", options=RunOptions(top_k=2)).invoke("dinosaurs and toys")
    assert len(docs) == 2
    assert coll.searches[-1][2] == 2


def test_the_retriever_in_an_lcel_chain(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy())
    retriever = engine.as_retriever(collection="movies", options=RunOptions(top_k=1))
    seen: list[str] = []

    def reply(messages: list[BaseMessage]) -> str:
        seen.append("\n".join(str(m.content) for m in messages))
        return "From the context: " + str(messages[0].content).splitlines()[1]

    model = ScriptedChatModel.from_rules({"text": reply})

    def format_docs(docs: list[Any]) -> str:
        return "\n\n".join(d.page_content for d in docs)

    prompt = ChatPromptTemplate.from_messages([("system", "Context:\n{context}"), ("human", "{question}")])
    chain = {"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt | model | StrOutputParser()
    out = chain.invoke("Which movie has scientists and dinosaurs?")
    assert out == "From the context: Scientists bring back dinosaurs and mayhem breaks loose"
    assert "Which movie has scientists and dinosaurs?" in seen[0]


def test_callbacks_see_the_retriever_run(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy())
    events: list[tuple[str, UUID]] = []

    class Recorder(BaseCallbackHandler):
        def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID, **kw: Any) -> None:
            events.append(("start", run_id))

        def on_retriever_end(self, documents: Any, *, run_id: UUID, **kw: Any) -> None:
            events.append(("end", run_id))

        def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kw: Any) -> None:
            if kw.get("name") == "selfrag_retrieval":
                events.append(("graph", parent_run_id))  # type: ignore[arg-type]

    engine.as_retriever(collection="movies").invoke("toys", config={"callbacks": [Recorder()]})
    (start, run_id), *middle, (end, end_id) = events
    assert (start, end, end_id) == ("start", "end", run_id)
    assert ("graph", run_id) in middle
