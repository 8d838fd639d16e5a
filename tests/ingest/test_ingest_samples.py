"""The shipped samples load, ingest idempotently and carry the metadata the demo relies on."""

from __future__ import annotations

import json
import re

import pytest

from selfrag.errors import UsageError
from selfrag.samples import SAMPLES, ingest_sample, load_sample
from selfrag.store import Store

LANGCHAIN_MOVIES = [
    ("A bunch of scientists bring back dinosaurs and mayhem breaks loose",
     {"year": 1993, "rating": 7.7, "genre": "science fiction"}),
    ("Leo DiCaprio gets lost in a dream within a dream within a dream within a ...",
     {"year": 2010, "director": "Christopher Nolan", "rating": 8.2}),
    ("A psychologist / detective gets lost in a series of dreams within dreams within dreams and Inception reused the idea",
     {"year": 2006, "director": "Satoshi Kon", "rating": 8.6}),
    ("A bunch of normal-sized women are supremely wholesome and some men pine after them",
     {"year": 2019, "director": "Greta Gerwig", "rating": 8.3}),
    ("Toys come alive and have a blast doing so", {"year": 1995, "genre": "animated"}),
    ("Three men walk into the Zone, three men walk out of the Zone",
     {"year": 1979, "director": "Andrei Tarkovsky", "genre": "thriller", "rating": 9.9}),
]


def test_samples_are_listed_and_unknown_names_rejected() -> None:
    assert SAMPLES == ("movies", "filings", "companies")
    with pytest.raises(UsageError, match="unknown sample 'nope'"):
        load_sample("nope")


def test_movies_sample_has_the_langchain_films_verbatim() -> None:
    schema, paths = load_sample("movies")
    assert [p.name for p in paths] == ["movies.jsonl"]
    records = [json.loads(line) for line in paths[0].read_text().splitlines()]
    assert [(r["text"], r["metadata"]) for r in records[:6]] == LANGCHAIN_MOVIES
    assert len(records) >= 16
    genre = schema.attribute("genre")
    assert genre is not None and genre.allowed_values is not None
    rating = schema.attribute("rating")
    assert rating is not None and (rating.minimum, rating.maximum) == (1, 10)
    for r in records[6:]:
        assert set(r["metadata"]) == {"title", "year", "director", "rating", "genre"}
        assert r["metadata"]["genre"] in genre.allowed_values
    assert {r["metadata"].get("genre") for r in records} >= set(genre.allowed_values)
    assert len({r["id"] for r in records}) == len(records)


def test_ingest_movies_is_idempotent(store: Store) -> None:
    first = ingest_sample(store, "movies")
    second = ingest_sample(store, "movies")
    assert len(first.added) == first.chunks >= 16 and second.added == () and len(second.unchanged) == first.chunks
    movies = store.get_collection("movies")
    [toys] = movies.get(["toy-story"])
    assert {k: v for k, v in toys.metadata.items() if k in {"year", "genre", "rating", "director"}} == {
        "year": 1995,
        "genre": "animated",
    }
    assert "Christopher Nolan" in movies.known_values("director")
    hits = movies.search("gets lost in a dream within dreams", where={"year": {"$gt": 2005}}, k=2)
    assert {h.id for h in hits} == {"inception", "paprika"}


def test_every_filings_chunk_has_company_and_fiscal_year(store: Store) -> None:
    schema, paths = load_sample("filings")
    assert len(paths) >= 8 and all(p.name.lower() != "readme.md" for p in paths)
    report = ingest_sample(store, "filings")
    assert report.files == len(paths)
    filings = store.get_collection("filings")
    assert filings.schema == schema
    hits = filings.search("revenue net income employees", where=None, k=filings.count())
    assert len(hits) == report.chunks
    for hit in hits:
        name = str(hit.metadata["filename"])
        match = re.match(r"([a-z]+)-fy(\d{4})", name)
        assert match, name
        assert str(hit.metadata["company"]).lower() == match.group(1), name
        assert hit.metadata["fiscal_year"] == int(match.group(2)), name
        assert hit.metadata["doc_type"] in {"annual report", "shareholder letter"}, name
    assert filings.known_values("company") == ["Apple", "Costco", "Microsoft", "Walmart"]
    assert filings.known_values("doc_type") == ["annual report", "shareholder letter"]


def test_filings_documents_are_short_and_marked_illustrative() -> None:
    _, paths = load_sample("filings")
    companies = set()
    for path in paths:
        text = path.read_text()
        assert 200 <= len(text.split()) <= 400, path.name
        assert "illustrative" in text.lower(), path.name
        companies.add(path.name.split("-")[0])
    assert len(companies) >= 3
