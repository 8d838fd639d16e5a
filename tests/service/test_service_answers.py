"""POST /v1/answers and the thread endpoints, against a live server."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.service.conftest import Live


@pytest.fixture
def live(shared_live: Live) -> Live:
    """One server for this module: its tests read the seeded movies or write under names of their
    own (a test that counts the server's metrics asks ``make_live`` for a server of its own)."""
    return shared_live


def ask(live: Live, **body: object) -> tuple[int, dict[str, object]]:
    payload = {"collection": "movies", **body}
    with live.client() as http:
        reply = http.post("/v1/answers", json=payload)
    assert reply.headers["content-type"].startswith("application/json")
    return reply.status_code, reply.json()


def test_answers_a_question_with_citations(live: Live) -> None:
    status, body = ask(live, question="Which movie has dinosaurs?")
    assert status == 200, body
    assert body["outcome"] == "answered"
    assert body["answer"].startswith("Scientists bring back dinosaurs")  # type: ignore[union-attr]
    assert [c["id"] for c in body["citations"]] == ["dino"]  # type: ignore[union-attr,index]
    assert body["citations"][0]["text"].startswith("Scientists")  # type: ignore[index]
    assert "trace" not in body
    assert body["usage"]["calls"] > 0  # type: ignore[index,operator]
    assert body["budgets"]["max_rewrites"] == 2  # type: ignore[index]


def test_include_trace_returns_the_path_and_grades(live: Live) -> None:
    status, body = ask(live, question="Which movie has dinosaurs?", include_trace=True)
    assert status == 200
    trace = body["trace"]
    assert isinstance(trace, dict)
    assert trace["path"][:4] == ["condense", "self_query", "retrieve", "grade_documents"]
    assert {d["id"] for d in trace["documents"]} >= {"dino"}


def test_mandatory_filter_is_anded_with_the_self_query(live: Live) -> None:
    status, body = ask(live, question="Which movie has dinosaurs?", filter={"genre": {"$eq": "drama"}})
    assert status == 200, body
    assert body["outcome"] == "abstained"  # the only drama is about the Zone: nothing relevant
    assert "drama" in str(body["filter"])


@pytest.mark.parametrize(
    "flt",
    [{"rating": {"$gt": 8}}, {"year": {"$gt": "recent"}}, {"year": {"$regex": "19.*"}}, {}],
    ids=["unknown-attribute", "wrong-type", "bad-operator", "empty"],
)
def test_invalid_filter_is_422_before_anything_runs(make_live: Callable[..., Live], flt: dict[str, object]) -> None:
    live = make_live()  # its metrics must show that no run ever started
    status, body = ask(live, question="Which movie has dinosaurs?", filter=flt)
    assert status == 422, body
    assert body["error"]["code"] == "filter_invalid"  # type: ignore[index]
    with live.client() as http:
        metrics = http.get("/metrics").text
    assert "selfrag_llm_calls_total 0.0" in metrics  # rejected before the engine ran
    assert 'selfrag_runs_total{outcome=' not in metrics


def test_budgets_are_capped_server_side(make_live: Callable[..., Live]) -> None:
    live = make_live(max_rewrites_cap=1, max_generations_cap=1)
    status, body = ask(live, question="Which movie has dinosaurs?", max_rewrites=10, max_generations=10)
    assert status == 200, body
    assert body["budgets"]["max_rewrites"] == 1  # type: ignore[index]
    assert body["budgets"]["max_generations"] == 1  # type: ignore[index]


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"question": ""}, "question_invalid"),
        ({"question": "x" * 4001}, "question_invalid"),
        ({"question": "   "}, "question_invalid"),
        ({"question": "???"}, "question_invalid"),
        ({"question": "... !! —"}, "question_invalid"),
        ({"question": "ok?", "collection": "../etc"}, "invalid_request"),
        ({"question": "ok?", "thread_id": "../../x"}, "invalid_request"),
        ({"question": "ok?", "max_rewrite": 1}, "invalid_request"),
        ({"question": "ok?", "max_rewrites": -1}, "invalid_request"),
        ({"question": 42}, "invalid_request"),
    ],
    ids=["empty", "too-long", "blank", "punctuation", "symbols", "collection-path", "thread-path", "unknown-field", "negative-budget", "not-text"],
)
def test_invalid_bodies_are_400_with_a_code(live: Live, payload: dict[str, object], code: str) -> None:
    status, body = ask(live, **payload)
    assert status == 400, body
    assert body["error"]["code"] == code  # type: ignore[index]
    assert "Traceback" not in body["error"]["message"]  # type: ignore[index]


@pytest.mark.parametrize("question", [
    "", "x" * 4001, "   ",
    "Which movie has \u0000 dinosaurs?",  # Postgres cannot store it: it was a 503 on a thread, a 200 without
    "Which \ud800 movie?",  # not text: no store can hold it either
], ids=["empty", "too-long", "blank", "nul", "surrogate"])
def test_an_invalid_question_is_question_invalid_on_every_route_before_anything_runs(live: Live, question: str) -> None:
    thread = f"bad-{len(question)}-{question[-1:].encode('utf-8', 'backslashreplace').hex()}"
    chat = {"model": "movies", "messages": [{"role": "user", "content": question}], "thread_id": thread}
    body = {"question": question, "collection": "movies", "thread_id": thread}
    as_json = {"content-type": "application/json"}
    with live.client() as http:
        # json.dumps escapes a lone surrogate as JSON allows (\\ud800); httpx's json= cannot encode it.
        replies = {
            "answers": http.post("/v1/answers", content=json.dumps(body), headers=as_json),
            "stream": http.post("/v1/answers/stream", content=json.dumps(body), headers=as_json),
            "chat": http.post("/v1/chat/completions", content=json.dumps(chat), headers=as_json),
            "chat stream": http.post("/v1/chat/completions", content=json.dumps({**chat, "stream": True}), headers=as_json),
        }
        for route, reply in replies.items():
            assert reply.status_code == 400, (route, reply.text)  # a plain error, never a stream
            error = reply.json()["error"]
            assert error["code"] == "question_invalid", (route, error)
            assert "\n" not in error["message"] and "Traceback" not in error["message"]
        assert http.get(f"/v1/threads/{thread}").status_code == 404  # nothing stored, not even an empty thread


def test_a_question_without_letters_or_digits_says_so(live: Live) -> None:
    status, body = ask(live, question="¿?")
    assert status == 400 and body["error"] == {  # type: ignore[comparison-overlap]
        "code": "question_invalid", "message": "the question has no letters or digits",
        "request_id": body["error"]["request_id"],  # type: ignore[index]
    }


def test_malformed_json_is_400(live: Live) -> None:
    with live.client() as http:
        reply = http.post("/v1/answers", content=b'{"question": ', headers={"content-type": "application/json"})
    assert reply.status_code == 400
    assert reply.json()["error"]["code"] == "invalid_request"


def test_unknown_collection_is_404(live: Live) -> None:
    status, body = ask(live, question="Which movie has dinosaurs?", collection="nowhere")
    assert status == 404
    assert body["error"]["code"] == "collection_not_found"  # type: ignore[index]


def test_unknown_route_and_method_are_json_errors(live: Live) -> None:
    with live.client() as http:
        missing = http.get("/v1/nothing")
        wrong = http.get("/v1/answers")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


def test_a_thread_remembers_its_turns_and_can_be_forgotten(live: Live) -> None:
    first = ask(live, question="Which movie has dinosaurs?", thread_id="chat-1")
    second = ask(live, question="Which movie is about dreams?", thread_id="chat-1")
    assert first[0] == second[0] == 200
    assert second[1]["thread_id"] == "chat-1"
    with live.client() as http:
        thread = http.get("/v1/threads/chat-1")
        assert thread.status_code == 200
        body = thread.json()
        assert body["collection"] == "movies"
        assert [t["question"] for t in body["turns"]] == ["Which movie has dinosaurs?", "Which movie is about dreams?"]
        assert all(t["outcome"] == "answered" for t in body["turns"])
        assert http.delete("/v1/threads/chat-1").status_code == 204
        gone = http.get("/v1/threads/chat-1")
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "thread_not_found"
        assert http.delete("/v1/threads/chat-1").status_code == 404


def test_unknown_thread_is_404_and_bad_ids_are_400(live: Live) -> None:
    with live.client() as http:
        assert http.get("/v1/threads/never").status_code == 404
        bad = http.get("/v1/threads/a%20b")
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_request"
