"""A server's error reaches the CLI user as the server wrote it: its code and its message once."""

from __future__ import annotations

import httpx
import pytest

from selfrag.cli._client import Remote
from selfrag.errors import CollectionNotFound, GraphNotFound, SelfRagError


@pytest.mark.parametrize(
    ("code", "status", "message", "cls"),
    [
        ("graph_not_found", 404, "graph 'g' does not exist", GraphNotFound),
        ("filter_invalid", 422, "where: unknown attribute 'x'", SelfRagError),
    ],
)
def test_a_servers_error_keeps_its_code_and_its_message(code: str, status: int, message: str,
                                                        cls: type[SelfRagError]) -> None:
    # Error classes that build their message from a name (CollectionNotFound("nosuch")) were given
    # the server's whole message as that name: "collection \"collection 'nosuch' does not exist …\" does not exist".
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"error": {"code": code, "message": message}})

    remote = Remote("http://127.0.0.1:9")
    remote._http = httpx.Client(base_url=remote.url, transport=httpx.MockTransport(reply))
    with remote, pytest.raises(cls) as caught:
        remote.request("GET", "/v1/anything")
    assert caught.value.code == code
    assert caught.value.one_line() == message


def test_a_missing_collection_is_told_with_the_cli_s_own_advice() -> None:
    # A new user's `ask --url` of a collection the server lacks was told to "create it with POST
    # /v1/collections": advice for an HTTP client, not for someone at the command line.
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, json={"error": {"code": "collection_not_found", "message":
                                                   "collection 'nosuch' does not exist (create it with POST /v1/collections)"}})

    remote = Remote("http://127.0.0.1:9")
    remote._http = httpx.Client(base_url=remote.url, transport=httpx.MockTransport(reply))
    with remote, pytest.raises(CollectionNotFound) as caught:
        remote.request("GET", "/v1/anything")
    assert caught.value.code == "collection_not_found"
    assert "POST" not in caught.value.one_line() and "selfrag ingest" in caught.value.one_line()
    assert caught.value.one_line().startswith("collection 'nosuch' does not exist")
