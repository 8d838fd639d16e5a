"""The CLI's client mode against a live ``selfrag serve`` on 127.0.0.1: the commands that have an
API route go through it (``--url``), and a server's error is printed as the local one would be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from selfrag.cli import app
from selfrag.service import KeyFile
from tests.servers import free_port
from tests.service.conftest import Live


@pytest.fixture
def live(shared_live: Live) -> Live:
    """One server for this module: its tests read the seeded movies or write under names of their
    own (a test that counts the server's metrics asks ``make_live`` for a server of its own)."""
    return shared_live


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_documents_route_lists_a_collections_documents(live: Live) -> None:
    with live.client() as http:
        body = http.get("/v1/collections/movies/documents").json()
        assert body["collection"] == "movies"
        assert [d["id"] for d in body["documents"]] == ["dino", "dream", "toys", "zone"]
        assert all(d["chunks"] == 1 for d in body["documents"])
        assert http.get("/v1/collections/nope/documents").json()["error"]["code"] == "collection_not_found"


def test_listings_go_through_the_server(live: Live) -> None:
    code, out, _ = _cli("collections", "list", "--url", live.url, "--json")
    assert code == 0 and json.loads(out) == {"collections": [{"name": "movies", "count": 4}]}
    code, out, _ = _cli("documents", "list", "-c", "movies", "--url", live.url, "--json")
    assert code == 0 and [d["id"] for d in json.loads(out)["documents"]] == ["dino", "dream", "toys", "zone"]
    code, out, _ = _cli("collections", "show", "movies", "--url", live.url)
    assert code == 0 and out.startswith("movies: 4 documents, 4 chunks")


def test_ask_goes_through_the_server(live: Live) -> None:
    code, out, err = _cli("ask", "Which film has dinosaurs on an island?", "-c", "movies", "--url", live.url)
    assert code == 0, err
    assert out.startswith("answered") and "[1] dino" in out
    code, out, err = _cli("ask", "Which film has dinosaurs on an island?", "-c", "movies", "--url", live.url, "--json")
    assert code == 0, err
    body = json.loads(out)
    assert body["outcome"] == "answered" and body["citations"][0]["id"] == "dino" and body["trace"] is not None


def test_ingest_and_delete_go_through_the_server(live: Live, tmp_path: Path) -> None:
    note = tmp_path / "zebras.txt"
    note.write_text("Zebras have black and white stripes.\n", encoding="utf-8")
    code, out, err = _cli("ingest", str(note), "--collection", "animals", "--url", live.url)
    assert code == 0, err
    assert out.startswith("animals: 1 files, 1 documents (1 chunks): 1 added")
    code, out, _ = _cli("documents", "list", "-c", "animals", "--url", live.url)
    assert code == 0 and out.split()[0] == "zebras.txt"
    code, _, err = _cli("documents", "delete", "zebras.txt", "-c", "animals", "--url", live.url, "--yes")
    assert code == 0 and "deleted 'zebras.txt'" in err
    assert _cli("collections", "delete", "animals", "--url", live.url, "--yes")[0] == 0
    assert "animals" not in _cli("collections", "list", "--url", live.url)[1]
    # Options that need the store in this process are refused in one line.
    code, _, err = _cli("ingest", str(note), "--collection", "animals", "--prune", "--url", live.url)
    assert code == 2 and err.startswith("error[usage_error]: --root, --prune and --strict")


def test_the_servers_errors_are_the_clis_errors(live: Live) -> None:
    code, _, err = _cli("collections", "show", "nope", "--url", live.url)
    assert code == 2 and err.strip().startswith("error[collection_not_found]: ") and len(err.strip().splitlines()) == 1
    code, out, _ = _cli("documents", "list", "-c", "nope", "--url", live.url, "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "collection_not_found"
    gone = f"http://127.0.0.1:{free_port()}"
    code, _, err = _cli("collections", "list", "--url", gone)
    assert code == 1 and err.startswith("error[dependency_unavailable]: cannot reach the selfrag server at")


def test_keys_are_sent(make_live, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    keys, secret = KeyFile().add(key_id="acme", tenant="acme", read=["movies"], write=[])
    live = make_live(keys=keys)
    code, _, err = _cli("collections", "list", "--url", live.url)
    assert code == 2 and err.startswith("error[unauthenticated]"), err
    code, out, _ = _cli("collections", "list", "--url", live.url, "--key", secret)
    assert code == 0 and out.startswith("movies")
    monkeypatch.setenv("SELFRAG_URL", live.url)
    monkeypatch.setenv("SELFRAG_KEY", secret)
    assert _cli("collections", "list")[1].startswith("movies")


def test_plan_goes_through_the_server(live: Live) -> None:
    # A new user's probes: while 'selfrag serve' held the store, 'plan' could only be run with the
    # server stopped. It now has a route, and the CLI takes it as ask does.
    question = "Which movies did Christopher Nolan direct?"
    coll = live.store.get_collection("movies")
    local = live.engine.components.planner.plan(question, coll.schema, coll.catalogue())
    code, out, err = _cli("plan", "-c", "movies", question, "--json", "--explain", "--url", live.url)
    assert code == 0, err
    row = json.loads(out)
    assert (row["query"], row["filter"], row["limit"]) == (local.query.query, local.where, local.query.limit)
    assert row["filter"] == {"director": {"$eq": "Christopher Nolan"}}
    assert row["source"] == local.source and isinstance(row["changes"], list)
    code, out, _ = _cli("plan", "-c", "movies", question, "--url", live.url)
    assert code == 0 and "Christopher Nolan" in out and out.startswith(question)


def test_plan_route_refuses_bad_input_with_a_code(live: Live) -> None:
    with live.client() as http:
        planned = http.post("/v1/collections/movies/plan", json={"question": "films by Christopher Nolan"})
        assert planned.status_code == 200 and planned.json()["filter"] == {"director": {"$eq": "Christopher Nolan"}}
        assert "source" not in planned.json()
        blank = http.post("/v1/collections/movies/plan", json={"question": "   "})
        assert blank.status_code == 400 and blank.json()["error"]["code"] == "question_invalid"
        missing = http.post("/v1/collections/nope/plan", json={"question": "films by Christopher Nolan"})
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "collection_not_found"
    code, _, err = _cli("plan", "-c", "nope", "films", "--url", live.url)
    errors = [line for line in err.splitlines() if line.startswith("error")]
    assert code == 2 and len(errors) == 1 and errors[0].startswith("error[collection_not_found]: ")
