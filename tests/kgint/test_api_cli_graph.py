"""Graph filtering through the faces: the HTTP API (result, SSE ``clarification`` event, 503 when
the graph is down, ``/readyz``) and the CLI (``ingest --sample companies``, the options printed,
a reply on the thread), against the session's real FalkorDB."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from httpx_sse import connect_sse

from selfrag.samples import ingest_sample
from selfrag.settings import Settings
from selfrag.store import Store
from tests.servers import free_port
from tests.service.conftest import ThreadedServer
from tests.service.fake_server import scripted_engine, scripted_store
from workflows.factory import close_checkpointer


class _Live:
    def __init__(self, home: Path, graph_url: str, *, seed: bool = True) -> None:
        from selfrag.kg import open_graph_store
        from selfrag.service import create_app

        self.settings = Settings(home=home, graph={"url": graph_url})
        self.store: Store = scripted_store(self.settings)
        if seed:
            with open_graph_store(home, graph_url) as graph:
                ingest_sample(self.store, "companies", graph=graph)
        self.engine = scripted_engine(self.settings, self.store)
        self.server = ThreadedServer(create_app(self.settings, engine=self.engine, store=self.store)).__enter__()
        self.url = f"http://127.0.0.1:{self.server.port}"

    def close(self) -> None:
        self.server.__exit__()
        if self.engine.checkpointer is not None:
            close_checkpointer(self.engine.checkpointer)
        self.store.close()


@pytest.fixture
def live(tmp_path: Path, falkordb_url: str) -> Iterator[_Live]:
    server = _Live(tmp_path / "home", falkordb_url)
    yield server
    server.close()


def _post(live: _Live, body: dict[str, Any]) -> Any:
    import httpx

    with httpx.Client(base_url=live.url, timeout=30) as http:
        return http.post("/v1/answers", json=body)


def test_api_clarification_round_trip_in_the_result_and_the_stream(live: _Live) -> None:
    import httpx

    first = _post(live, {"question": "Who supplies Mercury?", "collection": "companies", "thread_id": "api-1"})
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["outcome"] == "needs_clarification"
    assert [c["name"] for c in body["clarification"]["candidates"]] == ["Mercury Motors", "Mercury Records"]
    reply = _post(live, {"question": "the second one", "collection": "companies", "thread_id": "api-1", "include_trace": True})
    resolved = reply.json()["trace"]["plan"]["graph"]["resolutions"][0]
    assert resolved["entity"]["name"] == "Mercury Records" and resolved["relation"] == "suppliers"
    with httpx.Client(base_url=live.url, timeout=30) as http, connect_sse(
        http, "POST", "/v1/answers/stream", json={"question": "Negative news about Atlas", "collection": "companies"}
    ) as source:
        events = [(e.event, json.loads(e.data)) for e in source.iter_sse()]
    names = [n for n, _ in events]
    # the question back is the answer: one delta (no model wrote it), then the answer event
    assert names == ["self_query", "graph_resolve", "clarification", "answer_delta", "answer", "result"]
    clarification = dict(events)["clarification"]
    assert [c["name"] for c in clarification["candidates"]] == ["Atlas Capital", "Atlas Freight"]
    assert dict(events)["result"]["outcome"] == "needs_clarification"


def test_api_graph_down_is_503_and_readyz_says_so(tmp_path: Path, falkordb_url: str) -> None:
    import httpx

    # A collection linked to a graph, then the graph server URL that answers nothing.
    up = _Live(tmp_path / "h", falkordb_url)
    up.close()
    down = _Live(tmp_path / "h", f"redis://127.0.0.1:{free_port()}", seed=False)
    try:
        with httpx.Client(base_url=down.url, timeout=30) as http:
            r = http.post("/v1/answers", json={"question": "Who supplies Halvard Motors?", "collection": "companies"})
            assert r.status_code == 503 and r.json()["error"]["code"] == "graph_unavailable", r.text
            assert "127.0.0.1" not in r.text
            # Questions over collections without a graph still work: the instance stays ready (issue 25 item 3).
            ready = http.get("/readyz")
            assert ready.status_code == 200 and ready.json()["status"] == "degraded", ready.text
            assert ready.json()["capabilities"]["graph"] == {"ready": False, "down": ["graph"]}
            graph = http.get("/readyz", params={"capability": "graph"})
            assert graph.status_code == 503 and "graph" in graph.json()["error"]["message"]
    finally:
        down.close()


def test_cli_ingest_sample_and_clarification_over_a_thread(tmp_path: Path, falkordb_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from selfrag.cli import app
    from selfrag.testing import HashEmbeddings, ScriptedChatModel, verdict

    monkeypatch.setenv("SELFRAG_GRAPH__URL", falkordb_url)
    monkeypatch.setenv("SELFRAG_WORKFLOW__SELF_QUERY_MODE", "rules")
    monkeypatch.setenv("SELFRAG_WORKFLOW__ANSWER_STRATEGY", "hybrid")
    for grader in ("RELEVANCE", "GROUNDEDNESS", "USEFULNESS"):
        monkeypatch.setenv(f"SELFRAG_GRADERS__{grader}__COMBINE", "llm")
    rules = {"RelevanceGrade": verdict("relevant"), "GroundednessGrade": verdict("grounded"),
             "UsefulnessGrade": verdict("useful"), "generate": "An answer [1]."}
    for target in ("workflows.factory", "selfrag.providers"):
        monkeypatch.setattr(f"{target}.make_chat_model", lambda llm: ScriptedChatModel.from_rules(rules))
        monkeypatch.setattr(f"{target}.make_embeddings", lambda emb: HashEmbeddings())
    runner = CliRunner()
    ingested = runner.invoke(app, ["ingest", "--sample", "companies"])
    assert ingested.exit_code == 0, ingested.output
    assert ingested.stdout.startswith("companies: ")
    asked = runner.invoke(app, ["ask", "Who supplies Mercury?", "--collection", "companies", "--thread", "cli-1"])
    assert asked.exit_code == 0, asked.output
    assert "needs_clarification" in asked.stdout
    assert "1. Mercury Motors" in asked.stdout and "2. Mercury Records" in asked.stdout
    replied = runner.invoke(app, ["ask", "Mercury Motors", "--collection", "companies", "--thread", "cli-1", "--json"])
    assert replied.exit_code == 0, replied.output
    data = json.loads(replied.stdout)
    assert data["standalone_question"] == "Who supplies Mercury?"
    assert data["trace"]["plan"]["graph"]["resolutions"][0]["entity"]["name"] == "Mercury Motors"
    planned = runner.invoke(app, ["plan", "What is the latest positive news about Graphwise?", "-c", "companies", "--json"])
    assert planned.exit_code == 0, planned.output
    row = json.loads(planned.stdout)
    assert row["latest"] is True and row["filter"] == {"sentiment": {"$gt": 0.5}}
    assert [(t["kind"], t["entity"]["name"]) for t in row["graph"]] == [("mention", "Graphwise")]
    # Graph down: a one-line error with its code, no traceback.
    monkeypatch.setenv("SELFRAG_GRAPH__URL", f"redis://127.0.0.1:{free_port()}")
    down = runner.invoke(app, ["ask", "Who supplies Halvard Motors?", "--collection", "companies"])
    assert down.exit_code != 0 and "Traceback" not in down.output
    lines = down.stderr.strip().splitlines()
    assert lines[-1].startswith("error[graph_unavailable]: "), down.stderr


def test_api_graph_routes_load_list_show_delete(live: _Live) -> None:
    import httpx

    nodes = [{"id": "p1", "label": "Person", "name": "Ada' }) DETACH DELETE n //"},
             {"id": "o1", "label": "Organization", "name": "Acme"}]
    edges = [{"source": "p1", "type": "BOARD_MEMBER_OF", "target": "o1"}]
    with httpx.Client(base_url=live.url, timeout=30) as http:
        first = http.put("/v1/graphs/api_small", json={"nodes": nodes, "edges": edges})
        assert first.status_code == 200, first.text
        assert first.json() == {"graph": "api_small", "nodes": 2, "edges": 1, "nodes_created": 2, "edges_created": 1}
        again = http.put("/v1/graphs/api_small", json={"nodes": nodes, "edges": edges}).json()
        assert (again["nodes_created"], again["edges_created"]) == (0, 0)
        assert {"api_small", "companies"} <= set(http.get("/v1/graphs").json()["graphs"])
        shown = http.get("/v1/graphs/api_small").json()
        assert shown["labels"] == {"Organization": 1, "Person": 1} and shown["types"] == {"BOARD_MEMBER_OF": 1}
        # A dangling edge refuses the whole load, with a code; nothing changes.
        bad = http.put("/v1/graphs/api_small", json={"nodes": [], "edges": [{"source": "p1", "type": "X", "target": "nope"}]})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "graph_data_invalid"
        assert http.get("/v1/graphs/api_small").json() == shown
        assert http.put("/v1/graphs/bad-name", json={"nodes": []}).status_code == 400
        assert http.delete("/v1/graphs/api_small").status_code == 204
        missing = http.get("/v1/graphs/api_small")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "graph_not_found"
        assert http.delete("/v1/graphs/api_small").status_code == 404


def test_graph_uploads_are_bounded_and_never_hold_the_ingest_workers(live: _Live, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 25 item 6: a size limit (413), one upload per tenant at a time (429), and uploads on a
    worker of their own, so another request's ingest is answered while a large load runs."""
    import threading

    import httpx

    from selfrag.kg import FalkorGraphStore

    service_settings = live.settings.service
    monkeypatch.setattr(service_settings, "max_graph_elements", 3)
    release, entered = threading.Event(), threading.Event()
    real_load = FalkorGraphStore.load

    def slow_load(self: FalkorGraphStore, graph: str, nodes: Any, edges: Any) -> Any:
        entered.set()
        release.wait(30)
        return real_load(self, graph, nodes, edges)

    monkeypatch.setattr(FalkorGraphStore, "load", slow_load)
    nodes = [{"id": "p1", "label": "Person", "name": "Ada"}, {"id": "o1", "label": "Organization", "name": "Acme"}]
    with httpx.Client(base_url=live.url, timeout=30) as http:
        big = http.put("/v1/graphs/too_big", json={"nodes": nodes * 2})
        assert big.status_code == 413 and big.json()["error"]["code"] == "payload_too_large"
        results: dict[str, int] = {}
        upload = threading.Thread(target=lambda: results.update(
            first=httpx.put(f"{live.url}/v1/graphs/held", json={"nodes": nodes}, timeout=30).status_code))
        upload.start()
        try:
            assert entered.wait(10)
            second = http.put("/v1/graphs/other", json={"nodes": nodes})
            assert second.status_code == 429 and second.headers["retry-after"] == "1"
            # The ingest workers are free: a document is ingested while the upload is held.
            made = http.post("/v1/collections", json={"name": "notes", "schema": {"attributes": []}})
            assert made.status_code == 201, made.text
            sent = http.post("/v1/collections/notes/documents", json={"documents": [{"id": "n1", "text": "A note."}]})
            assert sent.status_code == 201, sent.text
        finally:
            release.set()
            upload.join()
    assert results["first"] == 200


def test_a_graph_load_stops_at_its_deadline_between_batches(falkordb_url: str, tmp_path: Path) -> None:
    import time

    from selfrag.deadline import deadline_scope
    from selfrag.errors import DeadlineExceeded
    from selfrag.kg import NodeRecord, open_graph_store

    nodes = [NodeRecord(id=f"n{i}", label="Person", name=f"Person {i}") for i in range(10)]
    with open_graph_store(tmp_path, falkordb_url) as graph:
        with deadline_scope(time.monotonic() - 1), pytest.raises(DeadlineExceeded, match="send the same data again"):
            graph.load("late_graph", nodes, [])
        assert graph.load("late_graph", nodes, []).nodes == 10  # sent again without a deadline: complete
        graph.delete_graph("late_graph")
