"""The service scales out by settings alone: two processes, one Chroma server, one Postgres,
one FalkorDB.

Two ``tests/service/fake_server.py`` processes (the real service around the scripted chat model)
each get a data directory of their own and share nothing but three settings:
``SELFRAG_STORE__CHROMA_URL`` (a real ``chroma run`` on loopback), ``SELFRAG_CHECKPOINTS__URL``
(the session's real Postgres, in a database of this module's own) and ``SELFRAG_GRAPH__URL`` (the
session's real FalkorDB server). A collection written through one instance is read through the
other, a conversation begun on one continues on the other, and a knowledge graph loaded through
one answers relationship questions on the other. Everything starts once per module; the tests
talk HTTP only.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from selfrag.schema import load_schema_file
from selfrag.settings import Settings
from tests.kg.conftest import falkordb_url  # noqa: F401 - the session's FalkorDB server
from tests.pg import create_database
from tests.servers import ServerProcess, free_port

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
CHROMA = Path(sys.executable).parent / "chroma"

COLLECTION = "scaleout-movies"
SCHEMA = {"attributes": [{"name": "genre", "type": "string"}, {"name": "year", "type": "integer"}]}
DOCUMENTS = [
    {
        "id": "toys",
        "text": "Toys come alive and have a blast doing so. Woody leads them.",
        "metadata": {"genre": "animated", "year": 1995},
    },
    {
        "id": "dino",
        "text": "Scientists bring back dinosaurs and mayhem breaks loose on the island.",
        "metadata": {"genre": "science fiction", "year": 1993},
    },
    {
        "id": "zone",
        "text": "Three men walk into the Zone, three men walk out.",
        "metadata": {"genre": "drama", "year": 1979},
    },
]
DOC_IDS = {d["id"] for d in DOCUMENTS}
# Lexical questions for the scripted model; neither names a genre or a year, so no filter applies.
FIRST = "Which toys come alive?"
FOLLOW_UP = "And what brings back dinosaurs?"


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not CHROMA.exists():
        pytest.skip("the chroma CLI is not installed in this environment")
    root = tmp_path_factory.mktemp("chroma")
    port = free_port()
    chroma = ServerProcess.start(
        "chroma",
        [str(CHROMA), "run", "--path", str(root / "data"), "--host", "127.0.0.1", "--port", str(port)],
        root / "chroma.log",
        f"http://127.0.0.1:{port}",
        cwd=REPO,
    )
    try:
        chroma.wait_until_up("/api/v2/heartbeat")
        yield chroma.url
    finally:
        chroma.stop()


@pytest.fixture(scope="module")
def instances(
    chroma_url: str, postgres_url: str, falkordb_url: str, tmp_path_factory: pytest.TempPathFactory  # noqa: F811
) -> Iterator[tuple[str, str]]:
    """Base URLs of instances A and B, started together (both run the checkpoint table setup)."""
    database = create_database(postgres_url, f"scaleout_{uuid.uuid4().hex[:12]}")
    # Nothing of the developer's shell may leak in: the two shared settings are the only ones.
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SELFRAG_") and k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    }
    procs: list[ServerProcess] = []
    try:
        for name in ("A", "B"):
            root = tmp_path_factory.mktemp(f"instance-{name}")
            port = free_port()
            env = {
                **base,
                "SELFRAG_HOME": str(root / "home"),
                "SELFRAG_STORE__CHROMA_URL": chroma_url,
                "SELFRAG_CHECKPOINTS__URL": database,
                "SELFRAG_GRAPH__URL": falkordb_url,
            }
            cmd = [sys.executable, "-m", "tests.service.fake_server", "--port", str(port)]
            procs.append(
                ServerProcess.start(f"instance {name}", cmd, root / "server.log", f"http://127.0.0.1:{port}", env=env, cwd=REPO)
            )
        for proc in procs:
            proc.wait_until_up("/healthz")
        yield procs[0].url, procs[1].url
    finally:
        for proc in procs:
            proc.stop()


@pytest.fixture(scope="module")
def clients(instances: tuple[str, str]) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    url_a, url_b = instances
    with httpx.Client(base_url=url_a, timeout=30.0) as a, httpx.Client(base_url=url_b, timeout=30.0) as b:
        yield a, b


@pytest.fixture(scope="module")
def movies(clients: tuple[httpx.Client, httpx.Client]) -> str:
    """The collection, created and filled through instance A only."""
    a, _ = clients
    created = a.post("/v1/collections", json={"name": COLLECTION, "schema": SCHEMA})
    assert created.status_code == 201, created.text
    ingested = a.post(f"/v1/collections/{COLLECTION}/documents", json={"documents": DOCUMENTS})
    assert ingested.status_code == 201, ingested.text
    assert ingested.json()["added"] == len(DOCUMENTS)
    return COLLECTION


@pytest.fixture(scope="module")
def thread(clients: tuple[httpx.Client, httpx.Client], movies: str) -> tuple[str, dict[str, object]]:
    """A conversation begun on A and continued on B; returns its id and B's follow-up response."""
    a, b = clients
    thread_id = f"scaleout-{uuid.uuid4().hex[:8]}"
    first = a.post("/v1/answers", json={"question": FIRST, "collection": movies, "thread_id": thread_id})
    assert first.status_code == 200, first.text
    follow_up = b.post("/v1/answers", json={"question": FOLLOW_UP, "collection": movies, "thread_id": thread_id})
    assert follow_up.status_code == 200, follow_up.text
    return thread_id, follow_up.json()


def test_collection_written_on_a_is_read_on_b(clients: tuple[httpx.Client, httpx.Client], movies: str) -> None:
    a, b = clients
    on_a, on_b = a.get(f"/v1/collections/{movies}"), b.get(f"/v1/collections/{movies}")
    assert on_a.status_code == on_b.status_code == 200, (on_a.text, on_b.text)
    detail = on_b.json()
    assert detail["count"] == len(DOCUMENTS)
    assert detail["known_values"]["genre"] == ["animated", "drama", "science fiction"]
    assert [x["name"] for x in detail["schema"]["attributes"]] == ["genre", "year"]
    assert detail == on_a.json()
    assert movies in [c["name"] for c in b.get("/v1/collections").json()["collections"]]


def test_thread_begun_on_a_continues_on_b(
    clients: tuple[httpx.Client, httpx.Client], thread: tuple[str, dict[str, object]]
) -> None:
    thread_id, follow_up = thread
    assert follow_up["outcome"] == "answered"
    assert follow_up["thread_id"] == thread_id
    citations = follow_up["citations"]
    assert isinstance(citations, list) and citations
    assert {c["metadata"].get("doc_id", c["id"]) for c in citations} <= DOC_IDS
    assert "dinosaurs" in str(follow_up["answer"])

    seen = []
    for client in clients:
        got = client.get(f"/v1/threads/{thread_id}")
        assert got.status_code == 200, got.text
        seen.append(got.json())
    assert seen[0] == seen[1]
    turns = seen[0]["turns"]
    assert [t["question"] for t in turns] == [FIRST, FOLLOW_UP]
    assert [t["outcome"] for t in turns] == ["answered", "answered"]
    assert turns[1]["answer"] == follow_up["answer"]


def test_concurrent_turns_of_one_thread_on_both_instances_are_all_stored(instances: tuple[str, str], movies: str) -> None:
    """Turns of one thread sent to A and B at once: the Postgres advisory lock runs them one at a
    time across the instances, so none is lost (each would otherwise overwrite the other's)."""
    from concurrent.futures import ThreadPoolExecutor

    thread_id = f"concurrent-{uuid.uuid4().hex[:8]}"
    questions = [f"Which toys come alive, take {n}?" for n in range(12)]

    def ask(n: int) -> int:
        with httpx.Client(base_url=instances[n % 2], timeout=120.0) as http:
            reply = http.post("/v1/answers", json={"question": questions[n], "collection": movies, "thread_id": thread_id})
            return reply.status_code

    with ThreadPoolExecutor(max_workers=len(questions)) as pool:
        statuses = list(pool.map(ask, range(len(questions))))
    assert statuses == [200] * len(questions)
    with httpx.Client(base_url=instances[0], timeout=30.0) as http:
        turns = http.get(f"/v1/threads/{thread_id}").json()["turns"]
    assert sorted(t["question"] for t in turns) == sorted(questions)


def test_both_instances_are_ready(clients: tuple[httpx.Client, httpx.Client]) -> None:
    for client in clients:
        ready = client.get("/readyz")
        assert ready.status_code == 200, ready.text
        checks = ready.json()["checks"]
        assert checks["checkpoints"] == {"ok": True}
        assert checks["store"] == {"ok": True}


def test_thread_deleted_on_b_is_gone_on_a(
    clients: tuple[httpx.Client, httpx.Client], thread: tuple[str, dict[str, object]]
) -> None:
    a, b = clients
    thread_id, _ = thread
    assert b.delete(f"/v1/threads/{thread_id}").status_code == 204
    gone = a.get(f"/v1/threads/{thread_id}")
    assert gone.status_code == 404, gone.text
    assert gone.json()["error"]["code"] == "thread_not_found"


def test_without_the_two_settings_everything_is_embedded() -> None:
    # The autouse guard cleared SELFRAG_*: these defaults are what a lone instance runs on.
    settings = Settings()
    assert settings.store.chroma_url is None
    assert settings.checkpoints.url is None


def test_concurrent_ingests_across_instances_keep_every_known_value(
    clients: tuple[httpx.Client, httpx.Client], instances: tuple[str, str]
) -> None:
    # Both instances write one collection at once: the Postgres advisory lock serialises them,
    # so neither erases the other's catalogue additions.
    from concurrent.futures import ThreadPoolExecutor

    a, _ = clients
    name = "scaleout-race"
    assert a.post("/v1/collections", json={"name": name, "schema": SCHEMA}).status_code == 201

    def ingest(n: int) -> int:
        doc = {"id": f"r{n}", "text": f"Race document {n}.", "metadata": {"genre": f"g{n:02d}"}}
        with httpx.Client(base_url=instances[n % 2], timeout=60.0) as http:
            return http.post(f"/v1/collections/{name}/documents", json={"documents": [doc]}).status_code

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(ingest, range(16))) == {201}
    detail = a.get(f"/v1/collections/{name}").json()
    assert detail["count"] == 16
    assert detail["known_values"]["genre"] == [f"g{n:02d}" for n in range(16)]


COMPANIES = REPO / "selfrag" / "samples" / "companies"


def _jsonl(path: Path) -> list[dict[str, object]]:
    import json

    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_graph_loaded_through_a_answers_relationship_questions_on_b(clients: tuple[httpx.Client, httpx.Client]) -> None:
    a, b = clients
    graph = f"scaleout_{uuid.uuid4().hex[:8]}"
    loaded = a.put(f"/v1/graphs/{graph}", json={"nodes": _jsonl(COMPANIES / "graph" / "nodes.jsonl"),
                                                "edges": _jsonl(COMPANIES / "graph" / "edges.jsonl")})
    assert loaded.status_code == 200, loaded.text
    assert loaded.json()["nodes_created"] == 111
    schema = load_schema_file(COMPANIES / "schema.json").model_dump(mode="json")
    schema["graph"]["graph"] = graph
    collection = f"scaleout-companies-{uuid.uuid4().hex[:6]}"
    assert a.post("/v1/collections", json={"name": collection, "schema": schema}).status_code == 201
    articles = _jsonl(COMPANIES / "articles.jsonl")
    for article in articles[:40]:  # some articles name their organizations only in the text
        article["metadata"].pop("organizations")  # type: ignore[attr-defined]
    ingested = a.post(f"/v1/collections/{collection}/documents", json={"documents": articles})
    assert ingested.status_code == 201, ingested.text

    assert graph in b.get("/v1/graphs").json()["graphs"]
    asked = b.post("/v1/answers", json={
        "question": "Supply chain problems at companies that supply Halvard Motors?", "collection": collection,
        "include_trace": True,
    })
    assert asked.status_code == 200, asked.text
    body = asked.json()
    [resolution] = body["trace"]["plan"]["graph"]["resolutions"]
    suppliers = {"Brightcell Batteries", "Dunmore Semiconductors", "Ferrox Steel", "Pacifica Shipping", "Quanta Seating",
                 "Voltaic Cells"}
    assert {e["name"] for e in resolution["entities"]} == suppliers
    for doc in body["trace"]["documents"]:
        assert set(doc["metadata"]["organizations"]) & suppliers
    assert b.delete(f"/v1/graphs/{graph}").status_code == 204
    assert graph not in a.get("/v1/graphs").json()["graphs"]
