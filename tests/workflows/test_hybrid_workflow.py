"""Hybrid retrieval and every rerank backend through the whole workflow, over a real embedded Chroma,
real lexical index files, a real rerank server on 127.0.0.1 and a tiny cross-encoder the test builds."""

from __future__ import annotations

import gc
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from selfrag.rerank import HttpReranker
from selfrag.retrieval import DENSE, LEXICAL, LexicalIndexes
from selfrag.settings import RerankSettings, RetrievalSettings, Settings
from selfrag.store import Store
from selfrag.testing import HashEmbeddings, ScriptedChatModel
from tests.rerank.test_rerank_cross_encoder import WORDS, logits
from tests.rerank.test_rerank_cross_encoder import tiny_model as tiny_model  # noqa: PLC0414 - the fixture
from tests.rerank.test_rerank_http import RerankServer, overlap_scores
from tests.rerank.test_rerank_http import rerank_server as rerank_server  # noqa: PLC0414 - the fixture
from tests.retrieval.conftest import MOVIES, movie_doc
from tests.workflows.conftest import FAST, happy, relevant_if
from workflows import Components, Outcome, RetrievalStage, RunOptions, SelfRagEngine
from workflows.factory import build_retrieval, forget_lexical, refresh_lexical
from workflows.retrieval import chunk_source

Q = "Which film features the Nostromo?"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    import chromadb

    from selfrag.schema import AttributeInfo, CollectionSchema
    from selfrag.store import chroma_settings

    client = chromadb.PersistentClient(path=tmp_path / "chroma", settings=chroma_settings())
    s = Store(client, HashEmbeddings())
    schema = CollectionSchema(attributes=[AttributeInfo(name="year", type="integer"),
                                          AttributeInfo(name="director", type="string")])
    s.create_collection("movies", schema).write_documents(movie_doc(i, t, y, d) for i, (t, y, d) in MOVIES.items())
    yield s
    client.close()  # type: ignore[attr-defined]


def engine(store: Store, stage: RetrievalStage, rules: dict[str, Any] | None = None) -> tuple[SelfRagEngine, ScriptedChatModel]:
    script = rules or happy(RelevanceGrade=relevant_if("Nostromo"))
    model = ScriptedChatModel.from_rules({"rewrite": ["films of the Nostromo", "the Nostromo film"], **script})
    components = Components.from_model(model, store, retry=FAST, self_query_mode="rules", retrieval=stage)
    return SelfRagEngine(components, defaults=RunOptions(top_k=2, min_score=0.99)), model


def test_a_lexical_only_match_is_found_and_its_sources_recorded(store: Store, tmp_path: Path) -> None:
    # The dense threshold keeps no hit: only BM25 can find the one chunk naming the Nostromo.
    dense_only, _ = engine(store, RetrievalStage())
    assert dense_only.run(Q, collection="movies").outcome is Outcome.ABSTAINED

    hybrid, _ = engine(store, RetrievalStage(indexes=LexicalIndexes(tmp_path / "lexical")))
    result = hybrid.run(Q, collection="movies")
    assert result.outcome is Outcome.ANSWERED
    assert [c.id for c in result.citations] == ["alien"] and result.citations[0].resource == "movies"
    doc = next(d for d in result.trace.documents if d["id"] == "alien")
    assert [s["retriever"] for s in doc["sources"]] == [LEXICAL] and doc["score"] == 0.0
    assert result.trace.retrievals[0]["fusion"] == "z"
    assert (tmp_path / "lexical" / "movies.sqlite3").is_file()


def test_a_deleted_chunk_is_never_returned_even_before_the_index_refreshes(store: Store, tmp_path: Path) -> None:
    indexes = LexicalIndexes(tmp_path / "lexical", max_age_s=None)  # never catches up by itself
    hybrid, _ = engine(store, RetrievalStage(indexes=indexes))
    assert hybrid.run(Q, collection="movies").outcome is Outcome.ANSWERED
    coll = store.get_collection("movies")
    coll.delete_document("alien")
    stale = hybrid.run(Q, collection="movies")
    assert stale.outcome is Outcome.ABSTAINED and all(d["id"] != "alien" for d in stale.trace.documents)
    RetrievalStage(indexes=indexes).refresh(coll)
    source = chunk_source(coll)
    assert source is not None and "alien" not in indexes.get(source)


def test_cli_refresh_and_forget_keep_the_index_file_in_step(store: Store, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    coll = store.get_collection("movies")
    refresh_lexical(settings, coll)
    path = settings.home / "lexical" / "movies.sqlite3"
    assert path.is_file()
    forget_lexical(settings, "movies")
    assert not path.exists()
    off = Settings(home=tmp_path / "home", retrieval=RetrievalSettings(hybrid=False))
    refresh_lexical(off, coll)
    assert not path.exists()




def _settings(tmp_path: Path, **rerank: Any) -> Settings:
    return Settings(home=tmp_path / "home", retrieval=RetrievalSettings(rerank=RerankSettings(**rerank)))


def test_http_reranker_from_settings_through_the_workflow(store: Store, tmp_path: Path, rerank_server: RerankServer) -> None:
    stage = build_retrieval(_settings(tmp_path, backend="http", base_url=rerank_server.url, model="bge", factor=2))
    hybrid, _ = engine(store, stage, happy())
    result = hybrid.run("Which film has dinosaurs on a remote island?", collection="movies",
                        options=RunOptions(top_k=2))
    path, _, body = rerank_server.requests[0]
    assert path == "/v1/rerank" and body["model"] == "bge" and len(body["documents"]) == 4
    scores = overlap_scores(body["query"], body["documents"])
    rerank = result.trace.retrievals[0]["rerank"]
    assert rerank is not None and rerank["backend"] == "http" and rerank["error"] is None
    assert [body["documents"].index(MOVIES[i][0]) for i in rerank["kept"]] == sorted(range(4), key=lambda i: -scores[i])[:2]


def test_closing_the_engine_closes_the_rerank_client_the_factory_built(
    store: Store, tmp_path: Path, rerank_server: RerankServer,
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stage = build_retrieval(_settings(tmp_path, backend="http", base_url=rerank_server.url, factor=2))
        reranker = stage.reranker
        assert isinstance(reranker, HttpReranker)
        hybrid, _ = engine(store, stage, happy())
        hybrid.run("Which film has dinosaurs on a remote island?", collection="movies", options=RunOptions(top_k=2))
        assert rerank_server.requests and not reranker.closed
        hybrid.close()
        assert reranker.closed
        hybrid.close()  # twice is harmless
        # A closed client is a failed rerank: the fused order is kept and the trace says why.
        again = hybrid.run("Which film has dinosaurs on a remote island?", collection="movies",
                           options=RunOptions(top_k=2))
        rerank = again.trace.retrievals[0]["rerank"]
        assert rerank is not None and "closed" in (rerank["error"] or "")
        del hybrid, stage, reranker
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_http_reranker_down_keeps_the_fused_order(store: Store, tmp_path: Path, rerank_server: RerankServer,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    rerank_server.script = lambda n: (400, b'{"error": "bad"}')
    stage = build_retrieval(_settings(tmp_path, backend="http", base_url=rerank_server.url, factor=2))
    hybrid, _ = engine(store, stage, happy())
    with caplog.at_level("WARNING", logger="workflows.retrieval"):
        result = hybrid.run("Which film has dinosaurs on a remote island?", collection="movies", options=RunOptions(top_k=2))
    assert result.outcome is Outcome.ANSWERED
    rerank = result.trace.retrievals[0]["rerank"]
    assert rerank is not None and "provider_unavailable" in (rerank["error"] or "") and len(rerank["kept"]) == 2
    # Issue 25 item 6: the failure is logged for the operator, with the server's own words.
    logged = [r.getMessage() for r in caplog.records if r.name == "workflows.retrieval"]
    assert len(logged) == 1 and "reranker http failed" in logged[0] and rerank_server.url in logged[0]


def test_cross_encoder_reranker_from_settings_through_the_workflow(store: Store, tmp_path: Path, tiny_model: Path) -> None:
    stage = build_retrieval(_settings(tmp_path, backend="cross_encoder", path=tiny_model, factor=2))
    hybrid, _ = engine(store, stage, happy())
    question = "astronauts travel through a wormhole near saturn"
    assert set(question.split()) <= set(WORDS)
    result = hybrid.run(question, collection="movies", options=RunOptions(top_k=2))
    rerank = result.trace.retrievals[0]["rerank"]
    assert rerank is not None and rerank["backend"] == "cross_encoder" and rerank["error"] is None
    assert rerank["candidates"] == 4
    # The kept two are the model's two best of the candidates retrieved.
    candidates = [h.id for h in stage.search(store.get_collection("movies"), "movies", question, where=None, k=4,
                                               min_score=None)]
    texts = {i: MOVIES[i][0] for i in candidates}
    scores = logits(tiny_model, question, [texts[i] for i in candidates])
    assert rerank["kept"] == sorted(candidates, key=lambda i: -scores[candidates.index(i)])[:2]


def test_llm_reranker_from_settings_through_the_workflow(store: Store, tmp_path: Path) -> None:
    def judge(messages: list[Any]) -> str:
        return json.dumps({"score": 3 if "Nostromo" in str(messages[-1].content) else 0})

    rules = {**happy(RelevanceGrade=relevant_if("Nostromo")), "RerankJudgement": judge}
    model = ScriptedChatModel.from_rules(rules)
    stage = build_retrieval(_settings(tmp_path, backend="llm", factor=3), model=model)
    components = Components.from_model(model, store, retry=FAST, self_query_mode="rules", retrieval=stage)
    result = SelfRagEngine(components).run("Which film is set in deep space aboard the Nostromo?", collection="movies",
                                           options=RunOptions(top_k=1))
    rerank = result.trace.retrievals[0]["rerank"]
    assert rerank is not None and rerank["backend"] == "llm" and rerank["kept"] == ["alien"]
    assert len(model.calls_for("RerankJudgement")) == rerank["candidates"] == 3
    assert result.outcome is Outcome.ANSWERED
    doc = result.trace.documents[0]
    assert {s["retriever"] for s in doc["sources"]} <= {DENSE, LEXICAL}


def test_settings_give_per_collection_defaults_and_check_the_rerank_backend(tmp_path: Path) -> None:
    from pydantic import ValidationError

    from workflows.factory import run_options
    from workflows.resources import ResourceSearch

    settings = Settings(home=tmp_path, collections={"movies": {"search": {"k": 6, "self_query": False}},
                                                     "plain": {"search": {}}})
    defaults = run_options(settings).search_defaults
    assert defaults["movies"] == ResourceSearch(k=6, self_query=False)
    assert defaults["plain"] == ResourceSearch()  # nothing set: the single-collection path stays
    for bad in ({"backend": "cross_encoder"}, {"backend": "http"}, {"backend": "sideways"}, {"factor": 0}):
        with pytest.raises(ValidationError):
            RerankSettings(**bad)
    assert build_retrieval(Settings(home=tmp_path, retrieval=RetrievalSettings(hybrid=False))).indexes is None


def test_speculation_reuses_exactly_the_hybrid_reranked_search(store: Store, tmp_path: Path) -> None:
    # The model keeps the question (no filter): the search run beside the self-query must be the
    # very hybrid search, fused and reranked, that retrieve would run; the result is the same.
    question = "Which crew meets a deadly creature in deep space?"
    keeps = json.dumps({"query": "crew deadly creature space", "filter": None, "limit": None})
    rules = {**happy(RelevanceGrade=relevant_if("creature")), "StructuredQuery": keeps}
    outcomes = []
    for on in (False, True):
        model = ScriptedChatModel.from_rules(rules)
        stage = RetrievalStage(indexes=LexicalIndexes(tmp_path / "lexical"))
        components = Components.from_model(model, store, retry=FAST, self_query_mode="llm", retrieval=stage, speculate=on)
        result = SelfRagEngine(components, defaults=RunOptions(top_k=2)).run(question, collection="movies")
        retrievals = [{**r, "resources": [{**x, "ms": 0} for x in r["resources"]]} for r in result.trace.retrievals]
        outcomes.append((result, retrievals))
    (off, off_retrievals), (on_, on_retrievals) = outcomes
    assert on_.trace.plan["speculation"]["kept"] is True
    assert on_retrievals == off_retrievals and on_retrievals[0]["fusion"] == "z"
    assert [c.id for c in on_.citations] == [c.id for c in off.citations] == ["alien"]
    assert on_.trace.documents == off.trace.documents
