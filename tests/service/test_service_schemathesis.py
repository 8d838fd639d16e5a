"""The HTTP API against its own OpenAPI schema: schemathesis generates requests for every operation
from the live server's ``/openapi.json`` and sends them to it over real HTTP.

For every response: no 5xx (not even 503: the scripted model and the embedded store are always
up), every JSON error body is ``{"error": {"code": str, "message": str}}``, and schemathesis'
conformance checks pass (documented status code and content type, body matching its schema,
schema-invalid input rejected with a 4xx).

Why not ``@schema.parametrize()`` over ``schemathesis.pytest.from_fixture``: its lazy loader sets
``Function._nodeid``, which pytest 9.2 no longer has (AttributeError before any request is sent),
and an eagerly loaded schema would need the server before collection. So each operation is one
test item that turns the operation into Hypothesis strategies (``APIOperation.as_strategy``, the
documented way to use schemathesis outside its pytest plugin) and runs them under ``@given``.

Streams are also read event by event (``assert_event_stream``) on top of schemathesis' check of
each event against the declared ``itemSchema``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from hypothesis import given, settings
from hypothesis.strategies import SearchStrategy
from schemathesis import APIOperation, Case, GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.service.conftest import Live

# Every operation the service declares; ``test_every_operation_is_fuzzed`` keeps this in step with
# the schema, so a new route cannot silently go untested.
OPERATIONS = [
    ("POST", "/v1/answers"),
    ("POST", "/v1/answers/stream"),
    ("GET", "/v1/threads/{thread_id}"),
    ("DELETE", "/v1/threads/{thread_id}"),
    ("POST", "/v1/collections"),
    ("GET", "/v1/collections"),
    ("GET", "/v1/collections/{name}"),
    ("DELETE", "/v1/collections/{name}"),
    ("GET", "/v1/collections/{name}/documents"),
    ("POST", "/v1/collections/{name}/documents"),
    ("POST", "/v1/collections/{name}/plan"),
    ("DELETE", "/v1/collections/{name}/documents/{doc_id}"),
    ("PUT", "/v1/graphs/{name}"),
    ("GET", "/v1/graphs"),
    ("GET", "/v1/graphs/{name}"),
    ("DELETE", "/v1/graphs/{name}"),
    ("POST", "/v1/chat/completions"),
    ("GET", "/v1/models"),
    ("GET", "/healthz"),
    ("HEAD", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/metrics"),
]

MAX_EXAMPLES = 25
"""Per operation and strategy (random, and aimed at the seeded data: see ``strategies``)."""
THREAD = "fuzz-thread"
"""A conversation stored before fuzzing, so that the thread operations can find one."""
STREAM_EVENTS = {"self_query", "retrieve", "grade", "rewrite", "generate", "check", "answer_delta", "answer_reset", "answer",
                 "result", "error"}

# ``positive_data_acceptance`` is left out on purpose: some limits cannot be stated in JSON Schema,
# and the service rightly answers 400 to schema-valid bodies that break them (an extractor for an
# attribute the collection does not declare, an upload whose file type has no loader).
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
)


def load_schema(live: Live) -> schemathesis.BaseSchema:
    config = schemathesis.Config.from_dict(
        {
            "base-url": live.url,
            "checks": {"enabled": False, **{name: {"enabled": True} for name in CHECKS}},
            # Read whole answer streams (the default stops after 20 events).
            "max-stream-events": 200,
        }
    )
    return schemathesis.openapi.from_url(f"{live.url}/openapi.json", config=config, timeout=10)


def strategies(operation: APIOperation) -> list[SearchStrategy[Case]]:
    """Random cases, valid and invalid; and valid ones aimed at what the live server holds.

    Random names almost never exist, so without aiming, everything behind the 404 (the engine,
    the thread store, ingestion against a real schema) would go untested.
    """
    generated = operation.as_strategy(GenerationMode.POSITIVE) | operation.as_strategy(GenerationMode.NEGATIVE)
    known = {"name": "movies", "thread_id": THREAD, "doc_id": "dino"}
    path_parameters = {k: v for k, v in known.items() if f"{{{k}}}" in operation.path}
    asks = operation.path.startswith("/v1/answers")
    chats = operation.path == "/v1/chat/completions"
    if not path_parameters and not asks and not chats:
        return [generated]
    aimed = operation.as_strategy(GenerationMode.POSITIVE, path_parameters=path_parameters or None)
    if asks:
        aimed = aimed.map(_ask_the_movies)
    if chats:
        aimed = aimed.map(_chat_about_the_movies)
    return [generated, aimed]


def _ask_the_movies(case: Case) -> Case:
    if isinstance(case.body, dict):
        case.body["collection"] = "movies"
    return case


def _chat_about_the_movies(case: Case) -> Case:
    # Generated conversations rarely end with the user's message: end them with a question.
    if isinstance(case.body, dict):
        case.body["model"] = "movies"
        case.body["messages"] = [*case.body.get("messages", [])[:-1], {"role": "user", "content": "Which movie has dinosaurs?"}]
    return case


def assert_error_shape(case: Case, response: schemathesis.Response) -> None:
    """A JSON error body is always ``{"error": {"code": str, "message": str}}`` (readyz adds ``checks``)."""
    if 200 <= response.status_code < 300 or not _is_json(response):
        return
    body = json.loads(response.content)
    error = body.get("error") if isinstance(body, dict) else None
    where = f"{case.method} {case.formatted_path} → {response.status_code}: {body!r}"
    assert isinstance(error, dict), where
    assert isinstance(error.get("code"), str) and error["code"], where
    assert isinstance(error.get("message"), str) and error["message"], where


def assert_event_stream(response: schemathesis.Response) -> list[tuple[str, Any]]:
    """Named events with JSON object data, ending in ``result`` or an ``error`` shaped like the JSON errors."""
    events = []
    for block in response.content.decode().replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if fields:
            events.append((fields.get("event", ""), json.loads(fields["data"])))
    assert events, response.content
    assert {name for name, _ in events} <= STREAM_EVENTS, events
    assert all(isinstance(data, dict) for _, data in events), events
    last, data = events[-1]
    assert last in ("result", "error"), events
    if last == "error":
        assert isinstance(data["error"]["code"], str) and isinstance(data["error"]["message"], str), data
    return events


def assert_chat_stream(response: schemathesis.Response) -> None:
    """OpenAI's stream: data lines holding chunks, ending with ``[DONE]`` or an error chunk."""
    data = [line[6:] for line in response.content.decode().splitlines() if line.startswith("data: ")]
    assert data, response.content
    *chunks, last = data
    assert all(json.loads(c)["object"] == "chat.completion.chunk" for c in chunks), data
    if last != "[DONE]":
        error = json.loads(last)["error"]
        assert isinstance(error["code"], str) and isinstance(error["message"], str), data


def _is_json(response: schemathesis.Response) -> bool:
    return "json" in (response.headers.get("content-type") or [""])[0]


def _is_stream(response: schemathesis.Response) -> bool:
    return (response.headers.get("content-type") or [""])[0].startswith("text/event-stream")


def fuzz(strategy: SearchStrategy[Case], check: Callable[[Case], None]) -> None:
    # Reproducible: derandomized (the seed derives from the test), no example database on disk.
    # No deadline: a case that runs the engine takes longer than Hypothesis' 200 ms default.
    @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None)
    @given(case=strategy)
    def run(case: Case) -> None:
        check(case)

    run()


def check_response(case: Case) -> None:
    response = case.call(timeout=30)
    assert response.status_code < 500, f"{case.as_curl_command()}\n→ {response.status_code} {response.text[:500]}"
    assert_error_shape(case, response)
    if _is_stream(response) and case.path == "/v1/chat/completions":
        assert_chat_stream(response)
    elif _is_stream(response):
        assert_event_stream(response)
    case.validate_response(response)


@pytest.fixture
def seeded(live: Live) -> Live:
    """The live server with one stored conversation (``THREAD``) about the movies."""
    with live.client() as http:
        for question in ("Which movie has dinosaurs?", "And who directed it?"):
            reply = http.post("/v1/answers", json={"question": question, "collection": "movies", "thread_id": THREAD})
            assert reply.status_code == 200, reply.text
    return live


def test_every_operation_is_fuzzed(live: Live) -> None:
    schema = load_schema(live)
    declared = {(r.ok().method.upper(), r.ok().path) for r in schema.get_all_operations()}
    assert declared == set(OPERATIONS)


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_operation_conforms_to_the_schema(seeded: Live, method: str, path: str) -> None:
    operation = load_schema(seeded)[path][method]
    for strategy in strategies(operation):
        fuzz(strategy, check_response)


# -- regressions found by fuzzing ---------------------------------------------------------------------


def test_stream_events_match_the_declared_schema(live: Live) -> None:
    operation = load_schema(live)["/v1/answers/stream"]["POST"]
    case = operation.Case(body={"question": "Which movie has dinosaurs?", "collection": "movies"})
    response = case.call(timeout=30)
    assert response.status_code == 200
    case.validate_response(response, checks=[response_schema_conformance])


@pytest.mark.parametrize("key", ["", "#tag", "$tag"])
def test_reserved_metadata_key_is_a_client_error(live: Live, key: str) -> None:
    # Chroma reserves these keys and rejects the whole write: a client mistake, never a 503.
    with live.client() as http:
        reply = http.post("/v1/collections/movies/documents", json={"documents": [{"text": "A film.", "metadata": {key: 1}}]})
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"]["code"] == "ingest_failed"
