"""``selfrag serve`` as a real process with the embedded models (SmolLM2, MiniLM, embedded Chroma,
SQLite checkpoints): create a collection, upload the movies sample, ask, stream, follow up.

What the 135M model says varies; the assertions are structural: valid outcomes, citations drawn
from the uploaded documents, node events in graph order, the thread's turns stored.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from httpx_sse import connect_sse

from selfrag.samples import load_sample
from tests.servers import ServerProcess, free_port

pytestmark = pytest.mark.integration

OUTCOMES = {"answered", "unverified", "abstained", "ungrounded", "budget_exhausted", "no_progress"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("serve-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")}
    env.update(SELFRAG_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    # The default local profile answers without the model (extractive); hybrid makes the real
    # 135M model write answers, rewrites and follow-ups, which is what this module exercises.
    env.update(SELFRAG_WORKFLOW__ANSWER_STRATEGY="hybrid")
    port = free_port()
    cmd = [str(Path(sys.executable).with_name("selfrag")), "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    proc = ServerProcess.start("selfrag serve", cmd, home / "server.log", f"http://127.0.0.1:{port}", env=env)
    try:
        proc.wait_until_up("/readyz", timeout_s=120)
        assert "no API keys configured: serving loopback clients only" in proc.log.read_text()
        yield proc.url
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def movies(server: str) -> list[str]:
    schema, paths = load_sample("movies")
    with httpx.Client(base_url=server, timeout=120) as http:
        created = http.post("/v1/collections", json={"name": "movies", "schema": schema.model_dump(mode="json")})
        assert created.status_code == 201, created.text
        files = [("files", (p.name, p.read_bytes(), "application/octet-stream")) for p in paths]
        added = http.post("/v1/collections/movies/documents", files=files)
        assert added.status_code == 201, added.text
        return list(added.json()["documents"])


def test_answers_and_follow_ups_with_the_local_models(server: str, movies: list[str]) -> None:
    with httpx.Client(base_url=server, timeout=300) as http:
        first = http.post("/v1/answers", json={"question": "What movie has dinosaurs?", "collection": "movies",
                                                "thread_id": "local-1", "include_trace": True})
        assert first.status_code == 200, first.text
        body = first.json()
        assert body["outcome"] in OUTCOMES
        assert {c["id"].split(":")[0] for c in body["citations"]} <= set(movies)
        assert body["trace"]["llm"]["calls"] >= 2
        follow = http.post("/v1/answers", json={"question": "Who directed it?", "collection": "movies", "thread_id": "local-1"})
        assert follow.status_code == 200, follow.text
        turns = http.get("/v1/threads/local-1").json()["turns"]
        assert [t["question"] for t in turns] == ["What movie has dinosaurs?", "Who directed it?"]


def test_stream_with_the_local_models(server: str, movies: list[str]) -> None:
    body = {"question": "Which science fiction movies are rated above 8.5?", "collection": "movies"}
    with httpx.Client(base_url=server, timeout=300) as http, connect_sse(http, "POST", "/v1/answers/stream", json=body) as src:
        events = [(e.event, json.loads(e.data)) for e in src.iter_sse()]
    names = [n for n, _ in events]
    assert names[:2] == ["self_query", "retrieve"]
    assert names[-1] == "result", events[-1]
    plan = events[0][1]
    assert plan["filter"] is not None and "rating" in json.dumps(plan["filter"])
    assert events[-1][1]["outcome"] in OUTCOMES


def test_metrics_after_real_runs(server: str, movies: list[str]) -> None:
    text = httpx.get(f"{server}/metrics").text
    assert "selfrag_llm_tokens_total" in text
    tokens = [line for line in text.splitlines() if line.startswith('selfrag_llm_tokens_total{kind="input"}')]
    assert tokens and float(tokens[0].split()[1]) > 0
