"""Several resources per question: each self-queried on its own schema, searched concurrently with its
own settings, merged; one failing or empty never sinks the others; documents keep their resource."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LCDocument
from langchain_core.retrievers import BaseRetriever
from langgraph.checkpoint.memory import InMemorySaver

from selfrag.errors import StoreError, UsageError
from selfrag.rerank import Reranked
from selfrag.retrieval import DENSE, FusedHit, SourceRank
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.store.types import Hit
from selfrag.testing import FakeCollection, FakeStore, ScriptedChatModel
from tests.workflows.conftest import DOCS, FAST, SCHEMA, happy, relevant_if
from workflows import Components, Outcome, Resource, ResourceSearch, RetrievalStage, RunOptions, SelfRagEngine
from workflows.resource_retrieval import merge_resources
from workflows.resources import parse_search, resolve_resources

BOOKS_SCHEMA = CollectionSchema(attributes=[AttributeInfo(name="author", type="string", allowed_values=["Lem", "Le Guin"])])
BOOKS = [
    {"id": "solaris", "text": "A planet-wide ocean puzzles the scientists who study it", "metadata": {"author": "Lem"}},
    {"id": "toys", "text": "Toys come alive in an old toy shop", "metadata": {"author": "Le Guin"}},
]


def engine_for(*collections: FakeCollection, rules: dict[str, Any] | None = None,
               retrieval: RetrievalStage | None = None) -> tuple[SelfRagEngine, ScriptedChatModel]:
    model = ScriptedChatModel.from_rules(rules or happy())
    components = Components.from_model(model, FakeStore(*collections), retry=FAST, self_query_mode="rules",
                                       retrieval=retrieval)
    return SelfRagEngine(components, defaults=RunOptions()), model


def movies(search_fn: Callable[[str, Any, int], list[Hit]] | None = None) -> FakeCollection:
    return FakeCollection("movies", SCHEMA, list(DOCS.values()), search_fn=search_fn)


def books(search_fn: Callable[[str, Any, int], list[Hit]] | None = None) -> FakeCollection:
    return FakeCollection("books", BOOKS_SCHEMA, BOOKS, search_fn=search_fn)


def test_two_collections_answer_together_and_every_document_keeps_its_resource() -> None:
    m, b = movies(), books()
    engine, _ = engine_for(m, b, rules=happy(RelevanceGrade=relevant_if("Toys come alive")))
    result = engine.run("Which story has toys that come alive?", resources=["movies", "books"])
    assert result.outcome is Outcome.ANSWERED
    assert result.collection == "movies" and result.collections == ["movies", "books"]
    # Both collections were searched, each once, and both "toys" chunks (same id, two resources) kept.
    assert len(m.searches) == 1 and len(b.searches) == 1
    graded = {(d["resource"], d["id"]) for d in result.trace.documents}
    assert ("movies", "toys") in graded and ("books", "toys") in graded
    assert all(d["sources"] and d["sources"][0]["retriever"] == DENSE for d in result.trace.documents)
    assert result.citations[0].resource in ("movies", "books")
    assert [p["resource"] for p in result.trace.resources] == ["movies", "books"]
    assert all(p["error"] is None and p["source"] == "rules" for p in result.trace.resources)
    retrieval = result.trace.retrievals[0]
    assert [r["resource"] for r in retrieval["resources"]] == ["movies", "books"]
    assert retrieval["fusion"] == "rrf across resources"


def test_an_unknown_collection_is_recorded_and_the_others_answer() -> None:
    engine, _ = engine_for(movies(), rules=happy(RelevanceGrade=relevant_if("Toys")))
    result = engine.run("Which movie is about toys coming alive?", resources=["movies", "removed"])
    assert result.outcome is Outcome.ANSWERED
    failed = next(p for p in result.trace.resources if p["resource"] == "removed")
    assert failed["error_code"] == "collection_not_found"
    searched = {r["resource"]: r for r in result.trace.retrievals[0]["resources"]}
    assert searched["removed"]["error_code"] == "collection_not_found" and searched["removed"]["hits"] == 0
    assert searched["movies"]["hits"] > 0
    assert {d["resource"] for d in result.trace.documents} == {"movies"}


def test_a_store_error_in_one_resource_ends_the_run() -> None:
    # An answer from the resources left would pass for one from all of them (issue 25): the store
    # failing is the run's error, never an abstention or a partial answer.
    def broken(query: str, where: Any, k: int) -> list[Hit]:
        raise StoreError("the books collection cannot be read")

    engine, _ = engine_for(movies(), books(broken), rules=happy(RelevanceGrade=relevant_if("Toys")))
    with pytest.raises(StoreError, match="cannot be read"):
        engine.run("Which movie is about toys coming alive?", resources=["books", "movies"])


def test_one_empty_resource_and_all_empty_abstains() -> None:
    engine, _ = engine_for(movies(), books(lambda q, w, k: []), rules=happy(RelevanceGrade=relevant_if("Toys")))
    one_empty = engine.run("Which movie is about toys coming alive?", resources=["movies", "books"])
    assert one_empty.outcome is Outcome.ANSWERED
    assert {r["resource"]: r["hits"] for r in one_empty.trace.retrievals[0]["resources"]}["books"] == 0

    engine, model = engine_for(movies(lambda q, w, k: []), books(lambda q, w, k: []),
                               rules=happy(rewrite=["toys first rewrite", "toys second rewrite"]))
    nothing = engine.run("Which movie is about toys coming alive?", resources=["movies", "books"])
    assert nothing.outcome is Outcome.ABSTAINED
    assert "'movies', 'books'" in nothing.answer
    assert not model.calls_for("generate")
    # The rewritten query went to every resource.
    assert [r["query"] for r in nothing.trace.retrievals[1]["resources"]] == [nothing.trace.rewrites[0]["to"]] * 2


def test_resources_are_searched_concurrently() -> None:
    # Each search waits for the other: searched one after the other, the barrier would break.
    barrier = threading.Barrier(2, timeout=10)

    def meet(source: FakeCollection) -> Callable[[str, Any, int], list[Hit]]:
        def fn(query: str, where: Any, k: int) -> list[Hit]:
            barrier.wait()
            return FakeCollection(source.name, source.schema, source.docs).search(query, where=where, k=k)
        return fn

    plain_m, plain_b = movies(), books()
    engine, _ = engine_for(movies(meet(plain_m)), books(meet(plain_b)), rules=happy(RelevanceGrade=relevant_if("Toys")))
    result = engine.run("Which story has toys that come alive?", resources=["movies", "books"])
    assert result.outcome is Outcome.ANSWERED
    assert all(r["error"] is None for r in result.trace.retrievals[0]["resources"])


def test_each_resource_has_its_own_search_settings_and_self_query() -> None:
    m, b = movies(), books()
    engine, _ = engine_for(m, b, rules=happy(RelevanceGrade=relevant_if("Toys")))
    result = engine.run(
        "Which animated movie from 1995 has toys?",
        resources=[Resource("movies", ResourceSearch(k=1)),
                   Resource("books", ResourceSearch(k=2, self_query=False, where={"author": "Le Guin"}))],
    )
    plans = {p["resource"]: p for p in result.trace.resources}
    assert plans["movies"]["source"] == "rules" and plans["movies"]["filter"] is not None  # its own schema: genre/year
    assert plans["books"]["source"] == "off" and plans["books"]["filter"] is None
    (m_query, m_where, m_k), = m.searches
    (b_query, b_where, b_k), = b.searches
    assert m_k == 1 and b_k == 2
    assert b_where == {"author": "Le Guin"} and b_query == "Which animated movie from 1995 has toys?"
    assert "genre" in str(m_where) or "year" in str(m_where)


class ListRetriever(BaseRetriever):
    """A LangChain retriever over a fixed list: returns the documents sharing a word with the query."""

    docs: list[LCDocument]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[LCDocument]:
        words = set(query.lower().split())
        return [d for d in self.docs if words & set(d.page_content.lower().split())]


def test_any_langchain_retriever_is_a_resource() -> None:
    wiki = ListRetriever(docs=[LCDocument("Woody and Buzz are toys that come alive", id="w1", metadata={"lang": "en"}),
                               LCDocument("Unrelated text about tax law", id="w2")])
    engine, _ = engine_for(movies(), rules=happy(RelevanceGrade=relevant_if("Woody")))
    result = engine.run("Which toys come alive?", resources=["movies", Resource("wiki", retriever=wiki)])
    assert result.outcome is Outcome.ANSWERED
    assert [c.resource for c in result.citations] == ["wiki"] and result.citations[0].id == "w1"
    wiki_plan = next(p for p in result.trace.resources if p["resource"] == "wiki")
    assert wiki_plan["source"] == "retriever"  # never self-queried
    wiki_doc = next(d for d in result.trace.documents if d["resource"] == "wiki")
    assert wiki_doc["sources"][0]["retriever"] == "wiki" and wiki_doc["metadata"] == {"lang": "en"}


def test_a_retriever_that_raises_is_recorded() -> None:
    class Broken(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[LCDocument]:
            raise RuntimeError("index offline")

    engine, _ = engine_for(movies(), rules=happy(RelevanceGrade=relevant_if("Toys")))
    result = engine.run("Which movie is about toys coming alive?", resources=["movies", Resource("web", retriever=Broken())])
    assert result.outcome is Outcome.ANSWERED
    web = next(r for r in result.trace.retrievals[0]["resources"] if r["resource"] == "web")
    assert web["error_code"] == "resource_failed" and "index offline" in (web["error"] or "")


def test_one_collection_is_a_list_of_one_with_its_settings_resolved() -> None:
    # Issue 28: one path. A plain collection and a configured one are both a list of one.
    assert resolve_resources("movies", None, {}) == ("movies", (Resource("movies"),))
    assert resolve_resources(None, ["movies", "movies"], {}) == ("movies", (Resource("movies"),))
    first, several = resolve_resources("movies", None, {"movies": ResourceSearch(k=7)})
    assert first == "movies" and several == (Resource("movies", ResourceSearch(k=7)),)
    # The call's settings win over the configured ones, field by field.
    _, several = resolve_resources(None, [Resource("movies", ResourceSearch(min_score=0.2))],
                                   {"movies": ResourceSearch(k=7, min_score=0.5)})
    assert several[0].search == ResourceSearch(k=7, min_score=0.2)
    with pytest.raises(UsageError):
        resolve_resources(None, [], {})
    with pytest.raises(UsageError, match="at most"):
        resolve_resources(None, [f"c{i:02d}" for i in range(9)], {})


def test_one_collection_engine_searches_as_before_and_its_plan_is_in_the_trace() -> None:
    m = movies()
    engine, _ = engine_for(m, rules=happy(RelevanceGrade=relevant_if("Toys")))
    result = engine.run("Which movie is about toys coming alive?", collection="movies")
    [plan] = result.trace.resources
    assert plan["resource"] == "movies" and plan["k"] == 4 and result.collections == ["movies"]
    assert [k for _, _, k in m.searches] == [4] and result.trace.retrievals[0]["fusion"] == "dense"
    assert result.citations[0].resource == "movies"


def test_a_configured_k_is_the_one_collection_search_and_the_nodes_stay_the_same() -> None:
    m, plain_coll = movies(), movies()
    question = "Which movie is about toys coming alive?"
    rules = happy(RelevanceGrade=relevant_if("Toys"))
    plain, _ = engine_for(plain_coll, rules=rules)
    model = ScriptedChatModel.from_rules(rules)
    components = Components.from_model(model, FakeStore(m), retry=FAST, self_query_mode="rules")
    tuned = SelfRagEngine(components, defaults=RunOptions(search_defaults={"movies": ResourceSearch(k=2)}))
    before, after = plain.run(question, collection="movies"), tuned.run(question, collection="movies")
    assert after.trace.path == before.trace.path and after.outcome == before.outcome
    assert [k for _, _, k in m.searches] == [2] and [k for _, _, k in plain_coll.searches] == [4]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a:k=10,min_score=0.3,self_query=off", ("a", ResourceSearch(k=10, min_score=0.3, self_query=False))),
        ("movies: k = 2", ("movies", ResourceSearch(k=2))),
        ("b:self_query=on", ("b", ResourceSearch(self_query=True))),
    ],
)
def test_parse_search(text: str, expected: tuple[str, ResourceSearch]) -> None:
    assert parse_search(text) == expected


@pytest.mark.parametrize("text", ["a", "a:", ":k=2", "a:k", "a:k=0", "a:k=x", "a:depth=3", "a:self_query=maybe",
                                  "a:min_score=2"])
def test_parse_search_refuses_bad_input_in_one_line(text: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_search(text)
    assert "\n" not in str(err.value)


def _fused(resource: str, ids: Sequence[str], scores: Sequence[float]) -> list[FusedHit]:
    return [FusedHit(i, i, {}, s, resource, (SourceRank(DENSE, n, s),)) for n, (i, s) in enumerate(zip(ids, scores, strict=True), 1)]


def test_merge_dedupes_by_resource_and_chunk_and_keeps_sources() -> None:
    a = _fused("a", ["x", "y", "x"], [0.9, 0.5, 0.1])
    b = _fused("b", ["x", "z"], [0.8, 0.7])
    merged = merge_resources([("a", a), ("b", b)], "rrf")
    assert [(h.resource, h.id) for h in merged] == [("a", "x"), ("b", "x"), ("a", "y"), ("b", "z")]
    assert merged[0].sources == (SourceRank(DENSE, 1, 0.9),)  # its rank within its resource, not the merge's
    # min-max: a list's best hit scores 1 and its worst 0 whatever the raw scale.
    mm = merge_resources([("a", _fused("a", ["p", "q"], [30.0, 10.0])), ("b", _fused("b", ["r", "s"], [0.9, 0.85]))],
                         "min_max")
    assert {mm[0].id, mm[1].id} == {"p", "r"} and {mm[2].id, mm[3].id} == {"q", "s"}


class ScriptedReranker:
    """Reverses the candidates (or fails), recording what it saw."""

    name = "scripted"

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.seen: list[list[str]] = []

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[Reranked]:
        from selfrag.errors import ProviderError

        self.seen.append(list(documents))
        if self.fail:
            raise ProviderError("the rerank server cannot be reached")
        order = list(reversed(range(len(documents))))
        return [Reranked(i, float(len(documents) - n)) for n, i in enumerate(order)][:top_n]


def test_rerank_retrieves_wide_reorders_and_keeps_k() -> None:
    m = movies()
    reranker = ScriptedReranker()
    engine, _ = engine_for(m, rules=happy(), retrieval=RetrievalStage(reranker=reranker, factor=2))
    result = engine.run("Which movie is about toys coming alive?", collection="movies",
                        options=RunOptions(top_k=2))
    assert [k for _, _, k in m.searches] == [4]  # k × factor candidates
    assert len(reranker.seen[0]) == 4
    rerank = result.trace.retrievals[0]["rerank"]
    assert rerank is not None and rerank["backend"] == "scripted" and rerank["error"] is None
    assert rerank["candidates"] == 4 and len(rerank["kept"]) == 2
    fused_order = [h.id for h in m.search("Which movie is about toys coming alive?", k=4)]
    assert rerank["kept"] == fused_order[::-1][:2]
    assert [d["id"] for d in result.trace.documents] == rerank["kept"]


def test_a_failing_reranker_keeps_the_fused_order_and_says_so() -> None:
    m = movies()
    engine, _ = engine_for(m, rules=happy(), retrieval=RetrievalStage(reranker=ScriptedReranker(fail=True), factor=2))
    result = engine.run("Which movie is about toys coming alive?", collection="movies", options=RunOptions(top_k=2))
    assert result.outcome is Outcome.ANSWERED
    rerank = result.trace.retrievals[0]["rerank"]
    assert rerank is not None and "provider_unavailable" in (rerank["error"] or "")
    fused_order = [h.id for h in m.search("Which movie is about toys coming alive?", k=4)]
    assert rerank["kept"] == fused_order[:2]


def test_a_thread_follow_up_is_condensed_with_its_history_and_searches_the_same_collections() -> None:
    m, b = movies(), books()
    model = ScriptedChatModel.from_rules(happy(
        condense=["Which story by Le Guin has toys that come alive?"], RelevanceGrade=relevant_if("Toys"),
    ))
    components = Components.from_model(model, FakeStore(m, b), retry=FAST, self_query_mode="rules")
    engine = SelfRagEngine(components, defaults=RunOptions(), checkpointer=InMemorySaver())
    first = engine.run("Which story has toys that come alive?", resources=["movies", "books"], thread_id="t")
    assert first.outcome is Outcome.ANSWERED and model.calls_for("condense") == []  # nothing to condense yet
    second = engine.run("and by Le Guin?", resources=["movies", "books"], thread_id="t")
    # Condensed with the thread's history: the model saw the first turn, the run searched its answer.
    [call] = model.calls_for("condense")
    assert "Which story has toys that come alive?" in call.prompt and "and by Le Guin?" in call.prompt
    assert second.standalone_question == "Which story by Le Guin has toys that come alive?"
    # The same collections, each planned against its own schema and searched once per turn.
    assert [p["resource"] for p in second.trace.resources] == ["movies", "books"]
    assert all(p["error"] is None for p in second.trace.resources)
    assert [r["resource"] for r in second.trace.retrievals[0]["resources"]] == ["movies", "books"]
    assert len(m.searches) == 2 and len(b.searches) == 2
    books_plan = next(p for p in second.trace.resources if p["resource"] == "books")
    assert "Le Guin" in json.dumps(books_plan["filter"])  # the condensed question's condition, on books only
    assert second.collections == ["movies", "books"]
    assert [t["question"] for t in engine.history("t")] == ["Which story has toys that come alive?", "and by Le Guin?"]
