"""``selfrag ask -c a -c b``: every collection given is searched (two -c once kept only the last),
with per-collection ``--search`` settings; user mistakes are one line and exit 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

Cli = Callable[..., Result]
TOYS = "Which movie is about toys coming alive?"


@pytest.fixture
def both(cli: Cli) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    assert cli("ingest", "--sample", "filings").exit_code == 0


def test_two_collections_are_both_searched(cli: Cli, both: None, fake: Any) -> None:
    fake.script(relevant=["Toys come alive"], generate="Toy Story: toys come alive [1].")
    result = cli("ask", TOYS, "-c", "movies", "-c", "filings", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["collection"] == "movies" and data["collections"] == ["movies", "filings"]
    searched = data["trace"]["retrievals"][0]["resources"]
    assert [r["resource"] for r in searched] == ["movies", "filings"]
    assert all(r["error"] is None for r in searched)
    assert data["outcome"] == "answered"
    assert [(c["id"], c["resource"]) for c in data["citations"]] == [("toy-story", "movies")]


def test_human_output_names_the_collection_of_each_citation(cli: Cli, both: None, fake: Any) -> None:
    fake.script(relevant=["Toys come alive"], generate="Toy Story: toys come alive [1].")
    result = cli("ask", TOYS, "-c", "movies", "-c", "filings")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].split()[:2] == ["[1]", "movies:"]


def test_search_settings_per_collection(cli: Cli, both: None, fake: Any) -> None:
    fake.script(relevant=["Toys come alive"], generate="Toy Story: toys come alive [1].")
    result = cli("ask", TOYS, "-c", "movies", "-c", "filings", "--search", "movies:k=2",
                 "--search", "filings:k=1,self_query=off", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    searched = {r["resource"]: r for r in data["trace"]["retrievals"][0]["resources"]}
    assert searched["movies"]["k"] == 2 and searched["filings"]["k"] == 1
    assert {p["resource"]: p["source"] for p in data["trace"]["resources"]}["filings"] == "off"


def test_an_unknown_collection_among_several_is_refused_as_over_http(cli: Cli, both: None, fake: Any) -> None:
    # "-c papers -c nosuchcoll" answered from papers with exit 0, the typo seen only in a progress
    # line; POST /v1/answers refuses the same request with a 404 collection_not_found.
    fake.script(relevant=["Toys come alive"], generate="Toy Story: toys come alive [1].")
    result = cli("ask", TOYS, "-c", "movies", "-c", "gone", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["code"] == "collection_not_found"
    plain = cli("ask", TOYS, "-c", "movies", "-c", "gone")
    assert plain.exit_code == 2 and plain.stderr.startswith("error[collection_not_found]: collection 'gone' does not exist")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--search", "filings:k=2"], "not given with --collection"),
        (["--search", "movies:k=zero"], "bad value for k"),
        (["--search", "movies"], "expected COLLECTION:key=value"),
        (["--search", "movies:depth=3"], "unknown key 'depth'"),
    ],
)
def test_bad_search_options_are_one_line_errors(cli: Cli, both: None, args: list[str], message: str) -> None:
    result = cli("ask", TOYS, "-c", "movies", *args)
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
