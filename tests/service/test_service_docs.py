"""/docs works without a network: Swagger UI's files come from this server; the schema declares
the Bearer scheme ("Authorize"); /v1/models says when its models were created."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

from selfrag.service import KeyFile
from tests.service.conftest import Live


@pytest.fixture
def live(shared_live: Live) -> Live:
    """One server for this module: its tests read the seeded movies or write under names of their
    own (a test that counts the server's metrics asks ``make_live`` for a server of its own)."""
    return shared_live


def test_docs_load_every_asset_from_this_server(live: Live) -> None:
    with live.client() as http:
        page = http.get("/docs")
        assert page.status_code == 200
        assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
        assert assets and all(a.startswith("/") for a in assets), assets  # nothing from a CDN
        for asset in assets:
            got = http.get(asset)
            assert got.status_code == 200 and len(got.content) > 100, asset
        assert "SwaggerUIBundle" in http.get("/docs/assets/swagger-ui-bundle.js").text
        assert http.get("/redoc").status_code == 404  # ReDoc would need a CDN: off


def test_the_schema_declares_the_bearer_scheme_on_authenticated_routes(live: Live) -> None:
    with live.client() as http:
        schema = http.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["bearer"] == {
        **schema["components"]["securitySchemes"]["bearer"], "type": "http", "scheme": "bearer"}
    # optional: a server without keys serves loopback clients unauthenticated
    assert schema["paths"]["/v1/answers"]["post"]["security"] == [{"bearer": []}, {}]
    assert schema["paths"]["/v1/chat/completions"]["post"]["security"] == [{"bearer": []}, {}]
    assert not any(p.get("name") == "authorization" for p in schema["paths"]["/v1/answers"]["post"].get("parameters", []))


def test_a_key_sent_the_way_authorize_sends_it_is_accepted(make_live: Callable[..., Live]) -> None:
    keys, secret = KeyFile().add(key_id="k1", tenant="t", read=["movies"], write=[])
    live = make_live(keys=keys)
    with live.client() as http:
        assert http.get("/v1/models").status_code == 401
        assert http.get("/v1/models", headers={"Authorization": "Basic abc"}).status_code == 401
    with live.client(secret) as http:
        assert [m["id"] for m in http.get("/v1/models").json()["data"]] == ["movies"]


def test_models_were_created_when_the_server_started(live: Live) -> None:
    before = int(time.time())
    with live.client() as http:
        models = http.get("/v1/models").json()["data"]
    assert models and all(0 < m["created"] <= before for m in models)
    assert len({m["created"] for m in models}) == 1
