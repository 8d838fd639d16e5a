"""One data directory, several processes: a running server and the CLI beside it, as real processes.

Embedded Chroma serves one process: documents another process writes are invisible to a running
server (its searches miss them, a filter matching only them fails). So the CLI must either reach
the server's answers or be refused with the way out; never a 503 or a silent miss. The server is
``tests/service/fake_server.py`` (the real service around a scripted chat model) and the CLI is
``tests/service/fake_cli.py`` (the real CLI with the same fake embeddings), both on one home.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.servers import ServerProcess, free_port

ROOT = Path(__file__).resolve().parents[2]
STRIPES = "Which animal has black and white stripes?"
SCHEMA = {
    "attributes": [{"name": "animal", "type": "string"}],
    "extractors": [{"attribute": "animal", "pattern": "\\b(zebra|lion)s?\\b", "map": {"zebra": "zebra", "lion": "lion"}}],
}


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")}
    env.update(SELFRAG_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    return env


def _cli(home: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.service.fake_cli", *map(str, args)],
        cwd=ROOT, env=_env(home), capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    home = tmp_path / "home"
    home.mkdir()
    port = free_port()
    cmd = [sys.executable, "-m", "tests.service.fake_server", "--port", str(port)]
    proc = ServerProcess.start("fake server", cmd, tmp_path / "server.log", f"http://127.0.0.1:{port}", env=_env(home), cwd=ROOT)
    try:
        proc.wait_until_up("/healthz")
        with httpx.Client(base_url=proc.url, timeout=60, trust_env=False) as http:
            assert http.post("/v1/collections", json={"name": "docs", "schema": SCHEMA}).status_code == 201
            seeded = http.post("/v1/collections/docs/documents", json={"documents": [
                {"id": "lions", "text": "Lions hunt on the savanna at night."}]})
            assert seeded.status_code == 201, seeded.text
            # The server has searched the collection: its index is loaded, as in a long-running service.
            assert http.post("/v1/answers", json={"question": "Where do lions hunt?", "collection": "docs"}).status_code == 200
        yield proc
    finally:
        proc.stop()


def _answer(url: str) -> httpx.Response:
    with httpx.Client(base_url=url, timeout=60, trust_env=False) as http:
        # A filter that only the new document matches (the case that answered 503 "Error finding id").
        return http.post("/v1/answers", json={"question": STRIPES, "collection": "docs", "filter": {"animal": "zebra"}})


def test_cli_ingest_beside_a_running_server_reaches_its_answers_or_is_refused_with_the_way_out(
    server: ServerProcess, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    zebras = tmp_path / "zebras.txt"
    zebras.write_text("Zebras have black and white stripes that confuse biting flies.\n", encoding="utf-8")

    cli = _cli(home, "ingest", zebras, "--collection", "docs")
    if cli.returncode != 0:
        lines = cli.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error[store_locked]: "), cli.stderr
        # The one line names the holder and the way out: the exact request, or a Chroma server.
        assert f"POST {server.url}/v1/collections/docs/documents" in lines[0]
        assert "store.chroma_url" in lines[0]
        with httpx.Client(base_url=server.url, timeout=60, trust_env=False) as http:
            sent = http.post("/v1/collections/docs/documents", files=[("files", ("zebras.txt", zebras.read_bytes()))])
            assert sent.status_code == 201, sent.text
    # Either way the server now answers from the new document: no 503, no silent miss.
    answer = _answer(server.url)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["outcome"] == "answered", body
    assert [c["id"] for c in body["citations"]] == ["zebras.txt"]


def test_readers_beside_a_running_server_go_through_its_api(server: ServerProcess, tmp_path: Path) -> None:
    home = tmp_path / "home"
    # No --url: the server is found in the store's lock file, and the commands go through its API.
    ask = _cli(home, "ask", "Where do lions hunt?", "--collection", "docs")
    assert ask.returncode == 0, ask.stderr
    assert ask.stdout.startswith("answered") and "[1] lions" in ask.stdout
    assert f"asking {server.url}" in ask.stderr
    listing = _cli(home, "collections", "list")
    assert listing.returncode == 0 and listing.stdout.startswith("docs  1 chunks"), listing.stderr
    documents = _cli(home, "documents", "list", "-c", "docs", "--json")
    assert [d["id"] for d in json.loads(documents.stdout)["documents"]] == ["lions"]
    # plan goes through it too: the server's own planner plans.
    plan = _cli(home, "plan", "Where do lions hunt?", "--collection", "docs")
    assert plan.returncode == 0 and f"planning on {server.url}" in plan.stderr, plan.stderr
    assert "filter {'animal': {'$eq': 'lion'}}" in plan.stdout


def test_the_lock_goes_with_its_server_however_it_ends(server: ServerProcess, tmp_path: Path) -> None:
    home = tmp_path / "home"
    server.process.send_signal(signal.SIGKILL)  # a crash: no clean-up of any kind
    server.process.wait(timeout=30)
    zebras = tmp_path / "zebras.txt"
    zebras.write_text("Zebras have black and white stripes.\n", encoding="utf-8")
    cli = _cli(home, "ingest", zebras, "--collection", "docs")
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.strip().startswith("docs: 1 file, 1 document (1 chunk): 1 added")
    listed = _cli(home, "documents", "list", "--collection", "docs")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["lions", "zebras.txt"]
