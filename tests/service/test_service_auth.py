"""API keys: hashed on disk, scoped to collections, tenants isolated; loopback-only without keys."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from selfrag.errors import ConfigError
from selfrag.schema import CollectionSchema
from selfrag.service import KeyFile, hash_key
from selfrag.service.auth import Authenticator
from selfrag.service.server import serve
from selfrag.settings import Settings
from tests.service.conftest import MOVIES, PLOTS, WAIT_S, Gate, Live

Q = {"question": "Which movie has dinosaurs?"}


@pytest.fixture
def tenants(make_live: Callable[..., Live]) -> tuple[Live, dict[str, str]]:
    keys = KeyFile()
    keys, acme = keys.add(key_id="acme-rw", tenant="acme", read=[], write=["acme-*"])
    keys, acme_ro = keys.add(key_id="acme-ro", tenant="acme", read=["acme-movies"], write=[])
    keys, globex = keys.add(key_id="globex", tenant="globex", read=[], write=["globex-*"])
    live = make_live(keys=keys, seed=False)
    live.store.create_collection("acme-movies", MOVIES).add(PLOTS)
    live.store.create_collection("globex-movies", MOVIES).add(PLOTS[:2])
    return live, {"acme": acme, "acme_ro": acme_ro, "globex": globex}


def test_the_key_file_holds_hashes_only(tenants: tuple[Live, dict[str, str]]) -> None:
    live, secrets = tenants
    text = (live.settings.home / "keys.json").read_text()
    assert all(secret not in text for secret in secrets.values())
    assert hash_key(secrets["acme"]) in text
    assert oct((live.settings.home / "keys.json").stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("header", [None, "Bearer nope", "Basic abc", "Bearer"])
def test_without_a_valid_key_it_is_401(tenants: tuple[Live, dict[str, str]], header: str | None) -> None:
    live, _ = tenants
    with live.client() as http:
        headers = {"Authorization": header} if header else {}
        reply = http.post("/v1/answers", json={**Q, "collection": "acme-movies"}, headers=headers)
        assert reply.status_code == 401
        assert reply.json()["error"]["code"] == "unauthenticated"
        assert reply.headers["www-authenticate"] == "Bearer"
        assert http.get("/v1/collections", headers=headers).status_code == 401
        assert http.get("/healthz").status_code == 200  # operations need no key


# Bodies a caller without a valid key must learn nothing about: malformed, not JSON, schema-invalid.
_BAD_BODIES = {
    "malformed JSON": ('{"question": ', "application/json"),
    "not JSON": ("question=hi", "application/x-www-form-urlencoded"),
    "an unknown field": (json.dumps({"question": "hi", "collection": "acme-movies", "bogus": 1}), "application/json"),
    "a wrong type": (json.dumps({"question": 5, "collection": "acme-movies", "max_rewrites": "x"}), "application/json"),
    "an empty question": (json.dumps({"question": "", "model": "acme-movies", "collection": "acme-movies",
                                      "messages": []}), "application/json"),
}


@pytest.mark.parametrize("path", ["/v1/answers", "/v1/answers/stream", "/v1/chat/completions", "/v1/collections",
                                  "/v1/collections/acme-movies/documents"])
@pytest.mark.parametrize("body", sorted(_BAD_BODIES))
@pytest.mark.parametrize("header", [None, "Bearer nope"])
def test_without_a_valid_key_a_bad_body_is_401_not_its_validation(
    tenants: tuple[Live, dict[str, str]], path: str, body: str, header: str | None,
) -> None:
    live, _ = tenants
    content, media_type = _BAD_BODIES[body]
    headers = {"content-type": media_type, **({"Authorization": header} if header else {})}
    with live.client() as http:
        reply = http.post(path, content=content, headers=headers)
    assert reply.status_code == 401, reply.text
    assert reply.json()["error"]["code"] == "unauthenticated"
    assert "bogus" not in reply.text and "question" not in reply.text


def test_every_route_that_needs_a_key_checks_it_before_reading_the_body(tmp_path: Path) -> None:
    from fastapi.routing import APIRoute

    from selfrag.service import create_app
    from selfrag.service.deps import AuthenticatedRoute, needs_principal

    def flat(routes: list[Any]) -> list[Any]:  # an included router is one entry (FastAPI includes them lazily)
        return [leaf for r in routes for leaf in (flat(r.original_router.routes) if hasattr(r, "original_router") else [r])]

    routes = [r for r in flat(create_app(Settings(home=tmp_path)).routes) if isinstance(r, APIRoute)]
    keyed = [r for r in routes if needs_principal(r.dependant)]
    assert len(keyed) >= 15
    assert [r.path for r in keyed if not isinstance(r, AuthenticatedRoute)] == []


def test_a_key_only_sees_its_own_collections(tenants: tuple[Live, dict[str, str]]) -> None:
    live, keys = tenants
    with live.client(keys["acme"]) as acme, live.client(keys["globex"]) as globex:
        assert [c["name"] for c in acme.get("/v1/collections").json()["collections"]] == ["acme-movies"]
        assert [c["name"] for c in globex.get("/v1/collections").json()["collections"]] == ["globex-movies"]
        assert acme.post("/v1/answers", json={**Q, "collection": "acme-movies"}).status_code == 200
        # Another tenant's collection and a collection that does not exist: the same 403, so
        # a key cannot probe which names exist.
        other = globex.post("/v1/answers", json={**Q, "collection": "acme-movies"})
        missing = globex.post("/v1/answers", json={**Q, "collection": "acme-nothing"})
        assert other.status_code == missing.status_code == 403
        assert other.json()["error"]["code"] == "forbidden"
        assert other.json()["error"]["message"].replace("acme-movies", "X") == missing.json()["error"]["message"].replace("acme-nothing", "X")
        assert globex.get("/v1/collections/acme-movies").status_code == 403
        assert globex.delete("/v1/collections/acme-movies/documents/toys").status_code == 403
        assert globex.post("/v1/collections", json={"name": "acme-new"}).status_code == 403


def test_read_only_keys_cannot_write(tenants: tuple[Live, dict[str, str]]) -> None:
    live, keys = tenants
    with live.client(keys["acme_ro"]) as ro:
        assert ro.get("/v1/collections/acme-movies").status_code == 200
        reply = ro.post("/v1/collections/acme-movies/documents", json={"documents": [{"text": "new plot"}]})
        assert reply.status_code == 403
        assert ro.delete("/v1/collections/acme-movies/documents/toys").status_code == 403
        assert ro.post("/v1/collections", json={"name": "acme-other"}).status_code == 403
    assert live.store.get_collection("acme-movies").count() == 4


def test_threads_are_private_to_a_tenant(tenants: tuple[Live, dict[str, str]]) -> None:
    live, keys = tenants
    with live.client(keys["acme"]) as acme, live.client(keys["globex"]) as globex, live.client(keys["acme_ro"]) as ro:
        assert acme.post("/v1/answers", json={**Q, "collection": "acme-movies", "thread_id": "t1"}).status_code == 200
        assert globex.get("/v1/threads/t1").status_code == 404
        assert globex.delete("/v1/threads/t1").status_code == 404
        # globex's own t1 is another conversation
        assert globex.post("/v1/answers", json={**Q, "collection": "globex-movies", "thread_id": "t1"}).status_code == 200
        assert len(globex.get("/v1/threads/t1").json()["turns"]) == 1
        assert ro.get("/v1/threads/t1").json()["collection"] == "acme-movies"  # same tenant, readable
        assert len(acme.get("/v1/threads/t1").json()["turns"]) == 1


def test_revoking_a_key_takes_effect_without_restart(tenants: tuple[Live, dict[str, str]]) -> None:
    live, keys = tenants
    path = live.settings.home / "keys.json"
    with live.client(keys["globex"]) as globex:
        assert globex.get("/v1/collections").status_code == 200
        KeyFile.load(path).remove("globex").save(path)
        time.sleep(1.1)  # the file is checked at most once a second
        assert globex.get("/v1/collections").status_code == 401


def test_emptying_the_key_file_locks_everyone_out(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    keys, secret = KeyFile().add(key_id="k", tenant="t", read=["*"], write=[])
    keys.save(path)
    auth = Authenticator(path)
    assert auth.authenticate(f"Bearer {secret}").tenant == "t"
    path.unlink()
    auth._checked = 0.0  # skip the once-a-second throttle
    assert auth.enabled  # fail closed: not an open server
    with pytest.raises(Exception, match="invalid API key"):
        auth.authenticate(f"Bearer {secret}")


def test_an_invalid_key_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({"keys": [{"id": "k", "tenant": "t", "hash": "md5:x"}]}))
    with pytest.raises(ConfigError, match="invalid key file"):
        KeyFile.load(path)


def test_a_key_file_that_is_not_utf8_is_a_config_error_and_keeps_the_running_keys(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    keys, secret = KeyFile().add(key_id="k", tenant="t", read=["*"], write=[])
    keys.save(path)
    auth = Authenticator(path)
    path.write_bytes(b'{"keys": [\xff\xfe]}')  # e.g. saved by an editor in another encoding
    with pytest.raises(ConfigError, match=f"^invalid key file {path}: not UTF-8 text"):
        KeyFile.load(path)
    auth._checked = 0.0  # skip the once-a-second throttle
    assert auth.authenticate(f"Bearer {secret}").tenant == "t"  # the keys in force stay in force


def test_without_keys_only_loopback_binding_is_allowed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="without API keys"):
        serve(Settings(home=tmp_path), host="0.0.0.0", port=0)


def test_keys_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from selfrag.cli import app

    runner = CliRunner()
    added = runner.invoke(app, ["keys", "add", "acme", "--tenant", "acme", "--read", "acme-*"])
    assert added.exit_code == 0, added.output
    secret = added.stdout.strip()
    assert secret.startswith("srk_")
    listed = runner.invoke(app, ["keys", "list"])
    assert "acme  tenant=acme  read=acme-*  write=-" in listed.stdout
    assert secret not in listed.stdout
    again = runner.invoke(app, ["keys", "add", "acme", "--tenant", "acme"])
    assert again.exit_code == 2 and "error[config_invalid]: a key named 'acme' already exists" in again.stderr
    bad = runner.invoke(app, ["keys", "add", "x", "--tenant", "bad tenant"])
    assert bad.exit_code == 2 and bad.stderr.startswith("error[config_invalid]: invalid key")
    assert runner.invoke(app, ["keys", "remove", "acme"]).exit_code == 0
    assert runner.invoke(app, ["keys", "list"]).stdout == ""


def test_one_tenant_cannot_take_every_slot(make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    keys = KeyFile()
    keys, acme = keys.add(key_id="acme", tenant="acme", read=["*"], write=[])
    keys, globex = keys.add(key_id="globex", tenant="globex", read=["*"], write=[])
    live = make_live(keys=keys, max_concurrent_runs=2, max_queued_runs=4, max_runs_per_tenant=1)
    gate = Gate(live, monkeypatch)
    held = {"question": "Which movie has dinosaurs? HOLD", "collection": "movies"}
    replies: list[int] = []

    def busy() -> None:
        with live.client(acme) as http:
            replies.append(http.post("/v1/answers", json=held).status_code)

    worker = threading.Thread(target=busy)
    worker.start()
    try:
        gate.wait_held()  # acme's first question is running
        with live.client(acme) as http_acme, live.client(globex) as http_globex:
            second = http_acme.post("/v1/answers", json={**held, "question": "Which movie has toys?"})
            assert second.status_code == 429
            assert "this tenant already has 1 questions" in second.json()["error"]["message"]
            assert http_globex.post("/v1/answers", json={**Q, "collection": "movies"}).status_code == 200
    finally:
        gate.release()
        worker.join(WAIT_S)
    assert replies == [200]
    with live.client(acme) as http_acme:  # acme's count came back down
        assert http_acme.post("/v1/answers", json={**Q, "collection": "movies"}).status_code == 200


# -- knowledge graphs are a tenant's too ------------------------------------------------------------
def _linked(graph: str) -> dict[str, object]:
    return {"description": "News", "attributes": [{"name": "organizations", "type": "string[]"}],
            "graph": {"graph": graph, "mentions": [{"attribute": "organizations", "label": "Organization"}]}}


def test_a_collection_links_only_to_a_graph_its_key_may_read(make_live: Callable[..., Live]) -> None:
    keys = KeyFile()
    keys, acme = keys.add(key_id="acme", tenant="acme", read=[], write=["acme*"])
    keys, globex = keys.add(key_id="globex", tenant="globex", read=[], write=["globex*"])
    live = make_live(keys=keys, seed=False)
    with live.client(acme) as http:
        reply = http.post("/v1/collections", json={"name": "acme-news", "schema": _linked("globex_graph")})
        assert reply.status_code == 403, reply.text
        assert reply.json()["error"]["code"] == "forbidden" and "globex_graph" in reply.json()["error"]["message"]
        assert http.get("/v1/collections/acme-news").status_code == 404  # nothing was created
        ok = http.post("/v1/collections", json={"name": "acme-news", "schema": _linked("acme_graph")})
        assert ok.status_code == 201, ok.text
    # A link made before the check (or by an operator) still cannot be read through by another tenant's key.
    live.store.create_collection("globex-news", CollectionSchema.model_validate(_linked("acme_graph")))
    with live.client(globex) as http:
        asked = http.post("/v1/answers", json={"question": "News about Graphwise?", "collection": "globex-news"})
        assert asked.status_code == 403, asked.text
        assert "acme_graph" in asked.json()["error"]["message"]
