"""Several collections per question over the API: merged answers, per-collection settings, scopes
checked for each collection before anything runs, and the lexical index kept in step by API writes."""

from __future__ import annotations

import gc
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from selfrag.rerank import HttpReranker
from selfrag.retrieval import LexicalIndexes
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.service import KeyFile, create_app
from selfrag.settings import Settings
from selfrag.store import Chunk
from tests.rerank.test_rerank_http import RerankServer
from tests.rerank.test_rerank_http import rerank_server as rerank_server  # noqa: PLC0414 - the fixture
from tests.service.conftest import MOVIES, PLOTS, Live, ThreadedServer
from tests.service.fake_server import scripted_engine, scripted_store
from workflows import RetrievalStage

BOOKS = CollectionSchema(description="Novels", attributes=[AttributeInfo(name="author", type="string")])


def post(live: Live, body: dict[str, Any], key: str | None = None) -> tuple[int, dict[str, Any]]:
    with live.client(key) as http:
        reply = http.post("/v1/answers", json=body)
    assert reply.headers["content-type"].startswith("application/json")
    return reply.status_code, reply.json()


@pytest.fixture
def two(live: Live) -> Live:
    live.store.create_collection("books", BOOKS).add(
        [Chunk("raptor", "Dinosaurs roam a novel's island after scientists bring them back.", {"author": "Crichton"})]
    )
    return live


def test_two_collections_answer_and_citations_name_their_collection(two: Live) -> None:
    status, body = post(two, {"question": "Which story has dinosaurs?", "collections": ["movies", "books"],
                              "include_trace": True})
    assert status == 200, body
    assert body["collection"] == "movies" and body["collections"] == ["movies", "books"]
    assert body["outcome"] == "answered"
    assert body["citations"] and all(c["resource"] in ("movies", "books") for c in body["citations"])
    searched = [r["resource"] for r in body["trace"]["retrievals"][0]["resources"]]
    assert searched == ["movies", "books"]
    assert {d["resource"] for d in body["trace"]["documents"]} == {"movies", "books"}


def test_a_single_collection_answer_names_its_collection(live: Live) -> None:
    status, body = post(live, {"question": "Which movie has dinosaurs?", "collection": "movies"})
    assert status == 200 and body["collections"] == ["movies"]
    assert [c["resource"] for c in body["citations"]] == ["movies"]


def test_an_unknown_collection_among_several_is_a_404_as_it_is_alone(live: Live) -> None:
    # It answered 200 from "movies" alone, echoing both names and (without the trace) no word of
    # "gone": a typo in a list passed for an answer from both, where the same typo alone is a 404.
    status, body = post(live, {"question": "Which movie has dinosaurs?", "collections": ["movies", "gone"]})
    assert status == 404, body
    assert body["error"]["code"] == "collection_not_found" and "gone" in body["error"]["message"]


def test_per_collection_search_settings(two: Live) -> None:
    status, body = post(two, {
        "question": "Which story has dinosaurs?", "collections": ["movies", "books"], "include_trace": True,
        "search": {"movies": {"k": 1, "filter": {"year": {"$lt": 2000}}}, "books": {"self_query": False}},
    })
    assert status == 200, body
    searched = {r["resource"]: r for r in body["trace"]["retrievals"][0]["resources"]}
    assert searched["movies"]["k"] == 1 and searched["movies"]["hits"] <= 1
    assert "2000" in str(searched["movies"]["where"])
    assert {p["resource"]: p["source"] for p in body["trace"]["resources"]}["books"] == "off"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"search": {"books": {"k": 2}}}, 400, "invalid_request"),  # settings for an untargeted collection
        ({"collections": ["movies", "books"], "filter": {"year": 1995}}, 400, "invalid_request"),
        ({"collection": None}, 400, "invalid_request"),  # no collection at all
        ({"collections": ["movies", "books"], "search": {"movies": {"filter": {"nope": 1}}}}, 422, "filter_invalid"),
    ],
    ids=["untargeted-search", "top-level-filter", "none", "bad-filter"],
)
def test_invalid_resource_requests(two: Live, body: dict[str, Any], status: int, code: str) -> None:
    got, reply = post(two, {"question": "Which story has dinosaurs?", "collection": "movies", **body})
    assert got == status, reply
    assert reply["error"]["code"] == code


def test_scopes_apply_to_every_collection(make_live: Callable[..., Live]) -> None:
    keys, both = KeyFile().add(key_id="both", tenant="t", read=["movies", "books"], write=[])
    keys, movies_only = keys.add(key_id="movies", tenant="t", read=["movies"], write=[])
    live = make_live(keys=keys)
    live.store.create_collection("books", BOOKS).add([Chunk("raptor", "Dinosaurs on an island.", {"author": "C"})])
    question = {"question": "Which story has dinosaurs?", "collections": ["movies", "books"]}
    status, body = post(live, question, movies_only)
    assert status == 403 and body["error"]["code"] == "forbidden" and "books" in body["error"]["message"]
    assert "answer" not in body
    # The same 403 for a collection that does not exist: no existence oracle.
    status, body = post(live, {**question, "collections": ["movies", "nowhere"]}, movies_only)
    assert status == 403
    with live.client(movies_only) as http:
        streamed = http.post("/v1/answers/stream", json=question)
        assert streamed.status_code == 403
    status, body = post(live, question, both)
    assert status == 200 and body["outcome"] == "answered"


def test_api_ingest_and_delete_keep_the_lexical_index_in_step(live: Live) -> None:
    indexes = LexicalIndexes(live.settings.home / "lexical", max_age_s=None)
    live.engine.components.retrieval = RetrievalStage(indexes=indexes)
    with live.client() as http:
        reply = http.post("/v1/collections", json={"name": "notes", "schema": MOVIES.model_dump(mode="json")})
        assert reply.status_code in (200, 201), reply.text
        added = http.post("/v1/collections/notes/documents",
                          json={"documents": [{"id": "memo", "text": "The quokka memo: budgets freeze in May."}]})
        assert added.status_code in (200, 201), added.text
        path = live.settings.home / "lexical" / "notes.sqlite3"
        assert path.is_file()
        ids = set(indexes.get(_source(live, "notes")).versions())
        assert ids and all(i.startswith("memo") for i in ids)
        assert http.delete("/v1/collections/notes/documents/memo").status_code == 200
        assert len(indexes.get(_source(live, "notes"))) == 0
        assert http.delete("/v1/collections/notes").status_code == 204
        assert not path.exists()


def _source(live: Live, name: str) -> Any:
    from workflows.retrieval import chunk_source

    return chunk_source(live.store.get_collection(name))


def test_several_collections_stream_their_plans_and_result(two: Live) -> None:
    with two.client() as http, http.stream("POST", "/v1/answers/stream",
                                           json={"question": "Which story has dinosaurs?",
                                                 "collections": ["movies", "books"]}) as reply:
        assert reply.status_code == 200
        events: list[tuple[str, dict[str, Any]]] = []
        name = ""
        for line in reply.iter_lines():
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                events.append((name, json.loads(line.split(":", 1)[1])))
    by_name = dict(events)
    assert [r["resource"] for r in by_name["self_query"]["resources"]] == ["movies", "books"]
    assert {d["resource"] for d in by_name["retrieve"]["documents"]} == {"movies", "books"}
    assert by_name["result"]["collections"] == ["movies", "books"]




def test_shutdown_closes_the_rerank_client(tmp_path: Path, rerank_server: RerankServer) -> None:
    settings = Settings(home=tmp_path / "home")
    store = scripted_store(settings)
    store.create_collection("movies", MOVIES).add(PLOTS)
    the_engine = scripted_engine(settings, store)
    reranker = HttpReranker(rerank_server.url)
    the_engine.components.retrieval = RetrievalStage(reranker=reranker)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ThreadedServer(create_app(settings, engine=the_engine, store=store)) as server:
            live = Live(f"http://127.0.0.1:{server.port}", settings, store, the_engine)
            status, body = post(live, {"question": "Which movie has dinosaurs?", "collections": ["movies"],
                                       "include_trace": True})
            assert status == 200, body
            assert body["trace"]["retrievals"][0]["rerank"]["backend"] == "http" and rerank_server.requests
            assert not reranker.closed
        assert reranker.closed  # the lifespan's shutdown closed it
        store.close()
        del reranker, the_engine
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_thread_follow_up_over_several_collections(two: Live) -> None:
    body = {"collections": ["movies", "books"], "thread_id": "multi", "include_trace": True}
    status, first = post(two, {**body, "question": "Which story has dinosaurs?"})
    assert status == 200, first
    status, second = post(two, {**body, "question": "Which one is set on an island with dinosaurs?"})
    assert status == 200, second
    # The follow-up went through the condenser with the thread's history (the first turn had none).
    assert first["trace"]["plan"]["condense"]["source"] != second["trace"]["plan"]["condense"]["source"]
    assert second["trace"]["plan"]["condense"]["source"] == "llm"
    assert second["thread_id"] == "multi" and second["collections"] == ["movies", "books"]
    assert [p["resource"] for p in second["trace"]["resources"]] == ["movies", "books"]
    assert [r["resource"] for r in second["trace"]["retrievals"][0]["resources"]] == ["movies", "books"]
    with two.client() as http:
        turns = http.get("/v1/threads/multi").json()["turns"]
    assert [t["question"] for t in turns] == ["Which story has dinosaurs?", "Which one is set on an island with dinosaurs?"]


def test_a_thread_over_several_collections_is_readable_only_by_a_key_reading_all_of_them(
    make_live: Callable[..., Live],
) -> None:
    keys, both = KeyFile().add(key_id="both", tenant="t", read=["movies", "books"], write=[])
    keys, movies_only = keys.add(key_id="movies", tenant="t", read=["movies"], write=[])
    live = make_live(keys=keys)
    live.store.create_collection("books", BOOKS).add([Chunk("raptor", "Dinosaurs on an island.", {"author": "C"})])
    status, body = post(live, {"question": "Which story has dinosaurs?", "collections": ["movies", "books"],
                               "thread_id": "shared"}, both)
    assert status == 200, body
    with live.client(both) as http:
        reply = http.get("/v1/threads/shared")
        assert reply.status_code == 200 and reply.json()["collections"] == ["movies", "books"]
    # Its answers came from books too: a key of the same tenant that cannot read books finds no thread.
    with live.client(movies_only) as http:
        assert http.get("/v1/threads/shared").status_code == 404
        assert http.delete("/v1/threads/shared").status_code == 404
    # Nor may it continue the thread through a collection it can read: the history holds books answers.
    status, body = post(live, {"question": "And which one is older?", "collection": "movies", "thread_id": "shared"},
                        movies_only)
    assert status == 403 and body["error"]["code"] == "forbidden", body
    # A later movies-only turn by the key reading both keeps books among the thread's collections.
    status, body = post(live, {"question": "Which movie has dinosaurs?", "collection": "movies", "thread_id": "shared"},
                        both)
    assert status == 200, body
    with live.client(both) as http:
        reply = http.get("/v1/threads/shared").json()
        assert reply["collections"] == ["movies", "books"] and len(reply["turns"]) == 2
    with live.client(movies_only) as http:
        assert http.get("/v1/threads/shared").status_code == 404
