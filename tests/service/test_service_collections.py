"""Collections over HTTP: create with a schema, list, describe, ingest JSON or files, delete."""

from __future__ import annotations

import json

from selfrag.schema import CollectionSchema
from tests.service.conftest import Live

SCHEMA = {
    "description": "Company filings",
    "attributes": [
        {"name": "company", "type": "string", "description": "issuer"},
        {"name": "year", "type": "integer"},
    ],
}


def test_create_describe_list(live: Live) -> None:
    with live.client() as http:
        created = http.post("/v1/collections", json={"name": "filings", "schema": SCHEMA})
        assert created.status_code == 201, created.text
        assert created.json() == {
            "name": "filings", "count": 0, "schema": CollectionSchema.model_validate(SCHEMA).model_dump(mode="json"), "known_values": {}, "incomplete": [],
        }
        # the response shows each attribute's kind, guessed where the schema declares none
        assert [(a["name"], a["kind"]) for a in created.json()["schema"]["attributes"]] == [("company", "name"), ("year", "year")]
        again = http.post("/v1/collections", json={"name": "filings", "schema": SCHEMA})
        assert again.status_code == 409 and again.json()["error"]["code"] == "collection_exists"
        listed = http.get("/v1/collections").json()["collections"]
        assert listed == [{"name": "filings", "count": 0}, {"name": "movies", "count": 4}]
        movies = http.get("/v1/collections/movies").json()
        assert movies["count"] == 4
        assert movies["known_values"]["director"][:2] == ["Andrei Tarkovsky", "Christopher Nolan"]
        assert http.get("/v1/collections/nowhere").status_code == 404


def test_invalid_names_and_schemas_are_400(live: Live) -> None:
    with live.client() as http:
        for name in ["a..b", "ab", "-bad-", "192.168.1.1"]:
            reply = http.post("/v1/collections", json={"name": name})
            assert reply.status_code == 400, (name, reply.text)
        no_group = {"attributes": [{"name": "year", "type": "integer"}],
                    "extractors": [{"attribute": "year", "pattern": "FY ?\\d+", "group": 1}]}
        bad_group = http.post("/v1/collections", json={"name": "ok-name", "schema": no_group})
        assert bad_group.status_code == 400 and bad_group.json()["error"]["code"] == "schema_invalid"
        bad_schema = http.post("/v1/collections", json={"name": "ok-name", "schema": {"attributes": [{"name": "x y", "type": "string"}]}})
        assert bad_schema.status_code == 400
        assert "attributes" in bad_schema.json()["error"]["message"]
        assert http.get("/v1/collections/..%2Fetc").status_code in (400, 404)
    assert "ok-name" not in live.store.list_collections()


def test_ingest_json_documents_then_ask_and_delete(live: Live) -> None:
    docs = [
        {"id": "acme-2023", "text": "Acme Corp reported revenue of 12 million dollars in 2023.", "metadata": {"company": "Acme", "year": 2023}},
        {"id": "globex-2022", "text": "Globex reported revenue of 7 million dollars in 2022.", "metadata": {"company": "Globex", "year": "2022"}},
    ]
    with live.client() as http:
        http.post("/v1/collections", json={"name": "filings", "schema": SCHEMA})
        added = http.post("/v1/collections/filings/documents", json={"documents": docs})
        assert added.status_code == 201, added.text
        assert added.json() == {"collection": "filings", "documents": ["acme-2023", "globex-2022"], "chunks": 2,
                                "added": 2, "replaced": 0, "unchanged": 0, "removed": 0, "embedded": 2}
        again = http.post("/v1/collections/filings/documents", json={"documents": docs})
        assert (again.json()["added"], again.json()["unchanged"], again.json()["embedded"]) == (0, 2, 0)  # idempotent
        detail = http.get("/v1/collections/filings").json()
        assert detail["known_values"] == {"company": ["Acme", "Globex"]}
        answer = http.post("/v1/answers", json={"question": "What revenue did Globex report?", "collection": "filings",
                                                 "filter": {"year": {"$eq": 2022}}}).json()
        assert [c["id"] for c in answer["citations"]] == ["globex-2022"]
        deleted = http.delete("/v1/collections/filings/documents/globex-2022")
        assert deleted.status_code == 200 and deleted.json()["deleted"] == 1
        assert http.delete("/v1/collections/filings/documents/globex-2022").status_code == 404
        assert http.get("/v1/collections/filings").json()["known_values"] == {"company": ["Acme"]}


def test_bad_metadata_fails_the_whole_batch_and_stores_nothing(live: Live) -> None:
    docs = [
        {"id": "ok", "text": "A fine document.", "metadata": {"year": 2020}},
        {"id": "bad", "text": "A bad one.", "metadata": {"year": "last year"}},
    ]
    with live.client() as http:
        http.post("/v1/collections", json={"name": "filings", "schema": SCHEMA})
        reply = http.post("/v1/collections/filings/documents", json={"documents": docs})
        assert reply.status_code == 400
        error = reply.json()["error"]
        assert error["code"] == "ingest_failed" and error["message"].startswith("bad: attribute 'year'")
        assert http.get("/v1/collections/filings").json()["count"] == 0
        empty = http.post("/v1/collections/filings/documents", json={"documents": []})
        assert empty.status_code == 400 and empty.json()["error"]["code"] == "invalid_request"
        assert empty.json()["error"]["message"].startswith("documents: List should have at least 1 item")
        wrong_type = http.post("/v1/collections/filings/documents", content=b"hello", headers={"content-type": "text/plain"})
        assert wrong_type.status_code == 415


def test_upload_files(live: Live) -> None:
    markdown = b"# Acme annual report\n\nAcme Corp grew revenue to 12 million dollars.\n"
    jsonl = "\n".join(json.dumps(r) for r in [
        {"id": "n1", "text": "Globex opened a plant in Ohio.", "metadata": {"company": "Globex", "year": 2021}},
        {"id": "n2", "text": "Initech cut costs.", "metadata": {"company": "Initech", "year": 2022}},
    ]).encode()
    with live.client() as http:
        http.post("/v1/collections", json={"name": "filings", "schema": SCHEMA})
        files = [("files", ("../../etc/acme.md", markdown, "text/markdown")), ("files", ("news.jsonl", jsonl, "application/jsonl"))]
        reply = http.post("/v1/collections/filings/documents", files=files, data={"chunk_size": "500"})
        assert reply.status_code == 201, reply.text
        body = reply.json()
        assert body["documents"] == ["acme.md", "n1", "n2"]  # the upload's base name only
        assert body["added"] == 3
        stored = live.store.get_collection("filings").get(["n1"])[0]
        assert stored.metadata["source"] == "news.jsonl"
        assert http.delete("/v1/collections/filings/documents/acme.md").json()["deleted"] == 1
        unsupported = http.post("/v1/collections/filings/documents", files=[("files", ("x.exe", b"MZ", "application/octet-stream"))])
        assert unsupported.status_code == 400 and unsupported.json()["error"]["code"] == "ingest_failed"
        broken = http.post("/v1/collections/filings/documents", files=[("files", ("bad.jsonl", b"{not json", "application/jsonl"))])
        assert broken.status_code == 400
        assert "bad.jsonl" in broken.json()["error"]["message"] and "/tmp" not in broken.json()["error"]["message"]
        form = http.post("/v1/collections/filings/documents", data={"x": "1"})  # urlencoded, not multipart
        assert form.status_code == 415 and form.json()["error"]["code"] == "unsupported_media_type"
        no_files = http.post("/v1/collections/filings/documents", files={"other": ("a.md", b"x", "text/markdown")})
        assert no_files.status_code == 400 and no_files.json()["error"]["code"] == "invalid_request"


def test_delete_collection(live: Live) -> None:
    with live.client() as http:
        assert http.delete("/v1/collections/movies").status_code == 204
        assert http.get("/v1/collections/movies").status_code == 404
        assert http.delete("/v1/collections/movies").status_code == 404


def test_concurrent_ingests_keep_every_known_value(live: Live) -> None:
    # Chroma replaces collection metadata whole: without the write lock, concurrent ingests
    # erase each other's catalogue additions (seen: 6 of 32 values kept).
    from concurrent.futures import ThreadPoolExecutor

    with live.client() as http:
        http.post("/v1/collections", json={"name": "race", "schema": SCHEMA})

    def ingest(n: int) -> int:
        doc = {"id": f"d{n}", "text": f"Document number {n}.", "metadata": {"company": f"c{n:02d}"}}
        with live.client() as http:
            return http.post("/v1/collections/race/documents", json={"documents": [doc]}).status_code

    with ThreadPoolExecutor(16) as pool:
        assert set(pool.map(ingest, range(32))) == {201}
    with live.client() as http:
        detail = http.get("/v1/collections/race").json()
    assert detail["count"] == 32
    assert detail["known_values"]["company"] == [f"c{n:02d}" for n in range(32)]


def test_a_pattern_the_linear_regex_engine_cannot_run_is_400_schema_invalid(live: Live) -> None:
    lookbehind = {"attributes": [{"name": "ceo", "type": "string"}],
                  "extractors": [{"attribute": "ceo", "pattern": "(?<=CEO )(\\w+)"}]}
    with live.client() as http:
        reply = http.post("/v1/collections", json={"name": "ceos", "schema": lookbehind})
        assert reply.status_code == 400, reply.text
        error = reply.json()["error"]
        assert error["code"] == "schema_invalid"
        assert "extractor for 'ceo'" in error["message"] and "lookbehind" in error["message"]
        assert "Value error" not in error["message"]
        # The pattern that backtracks catastrophically in Python's re is fine: RE2 runs it in linear time.
        hostile = {"attributes": [{"name": "x", "type": "string"}], "extractors": [{"attribute": "x", "pattern": "(a+)+$"}]}
        assert http.post("/v1/collections", json={"name": "hostile", "schema": hostile}).status_code == 201
    assert "ceos" not in live.store.list_collections()
