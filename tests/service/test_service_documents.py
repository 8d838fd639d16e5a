"""Documents over HTTP have one identity: sending one again replaces it, and metadata cannot forge it."""

from __future__ import annotations

import json

from tests.service.conftest import Live

LONG = " ".join(f"Sentence {i} of the long version talks about anvils." for i in range(12))


def test_a_resent_document_replaces_its_chunks(live: Live) -> None:
    with live.client() as http:
        http.post("/v1/collections", json={"name": "notes"})
        first = http.post("/v1/collections/notes/documents",
                          json={"documents": [{"id": "memo", "text": LONG}], "chunk_size": 120, "chunk_overlap": 0})
        assert first.status_code == 201, first.text
        chunks = first.json()["chunks"]
        assert chunks > 2 and first.json()["added"] == 1
        shorter = http.post("/v1/collections/notes/documents",
                            json={"documents": [{"id": "memo", "text": "The memo is now short."}], "chunk_size": 120,
                                  "chunk_overlap": 0})
        assert shorter.status_code == 201, shorter.text
        body = shorter.json()
        assert (body["added"], body["replaced"], body["unchanged"], body["chunks"]) == (0, 1, 0, 1)
    coll = live.store.get_collection("notes")
    assert coll.count() == 1  # no stale tail chunk left beside the new version
    assert [c.text for c in coll.get(["memo", "memo:1", "memo:2"])] == ["The memo is now short."]


def test_metadata_cannot_forge_reserved_keys(live: Live) -> None:
    with live.client() as http:
        http.post("/v1/collections", json={"name": "notes"})
        assert http.post("/v1/collections/notes/documents",
                         json={"documents": [{"id": "victim", "text": "The real one."}]}).status_code == 201
        forged = http.post("/v1/collections/notes/documents", json={"documents": [
            {"id": "impostor", "text": "A forgery.", "metadata": {"doc_id": "victim", "source": "/etc/passwd"}}]})
        assert forged.status_code == 400, forged.text
        error = forged.json()["error"]
        assert error["code"] == "ingest_failed"
        assert "'doc_id', 'source' are reserved" in error["message"]
        assert http.delete("/v1/collections/notes/documents/victim").json()["deleted"] == 1
        reserved_schema = http.post("/v1/collections", json={"name": "other", "schema": {
            "attributes": [{"name": "doc_id", "type": "string"}]}})
        assert reserved_schema.status_code == 400 and "reserved" in reserved_schema.json()["error"]["message"]


def test_an_uploaded_jsonl_file_replaces_what_it_held(live: Live) -> None:
    lines = [{"id": "a", "text": "Alpha."}, {"id": "b", "text": "Beta."}]
    with live.client() as http:
        http.post("/v1/collections", json={"name": "notes"})
        data = "\n".join(map(json.dumps, lines)).encode()
        assert http.post("/v1/collections/notes/documents", files=[("files", ("greek.jsonl", data))]).status_code == 201
        data = json.dumps({"id": "a", "text": "Alpha, edited."}).encode()
        again = http.post("/v1/collections/notes/documents", files=[("files", ("greek.jsonl", data))])
        assert again.status_code == 201, again.text
        body = again.json()
        assert (body["added"], body["replaced"], body["unchanged"], body["removed"]) == (0, 1, 0, 1)
    assert [d.id for d in live.store.get_collection("notes").documents()] == ["a"]


def test_citations_never_carry_a_server_path(live: Live) -> None:
    with live.client() as http:
        http.post("/v1/collections", json={"name": "notes"})
        files = [("files", ("zebras.md", b"# Zebras\n\nZebras have black and white stripes.\n"))]
        assert http.post("/v1/collections/notes/documents", files=files).status_code == 201
        answer = http.post("/v1/answers", json={"question": "Which animal has stripes?", "collection": "notes"}).json()
    [citation] = answer["citations"]
    assert citation["metadata"]["source"] == "zebras.md" and not str(citation["metadata"]).count("/tmp")


def test_a_list_attribute_is_filtered_by_membership_over_http(live: Live) -> None:
    schema = {"attributes": [{"name": "topics", "type": "string[]", "description": "Topics the course covers"}]}
    docs = [{"id": "mbio-330", "text": "Coral Reef Ecology studies reef systems.", "metadata": {"topics": ["coral reefs", "fieldwork"]}},
            {"id": "astr-110", "text": "Our Place in the Cosmos surveys modern astronomy.", "metadata": {"topics": ["stars"]}}]
    with live.client() as http:
        assert http.post("/v1/collections", json={"name": "courses", "schema": schema}).status_code == 201
        assert http.post("/v1/collections/courses/documents", json={"documents": docs}).status_code == 201
        body = {"question": "Which courses cover coral reefs?", "collection": "courses", "include_trace": True}
        reply = http.post("/v1/answers", json={**body, "filter": {"topics": {"$contains": "coral reefs"}}})
        assert reply.status_code == 200, reply.text
        assert {d["id"] for d in reply.json()["trace"]["documents"]} == {"mbio-330"}
        wrong = http.post("/v1/answers", json={**body, "filter": {"topics": {"$eq": "coral reefs"}}})
        assert wrong.status_code == 422 and "test it with $contains" in wrong.json()["error"]["message"]
