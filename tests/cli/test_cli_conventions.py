"""CLI conventions: listings as JSON, an empty store said in words, errors as JSON under --json,
citations with their whole document id."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

Cli = Callable[..., Result]


def test_an_empty_store_says_so(cli: Cli) -> None:
    result = cli("collections", "list")
    assert result.exit_code == 0 and result.stdout == ""
    assert "no collections yet" in result.stderr
    as_json = cli("collections", "list", "--json")
    assert as_json.exit_code == 0 and json.loads(as_json.stdout) == {"collections": []}


def test_listings_as_json(cli: Cli) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    listed = json.loads(cli("collections", "list", "--json").stdout)
    assert listed == {"collections": [{"name": "movies", "count": 19}]}
    documents = json.loads(cli("documents", "list", "-c", "movies", "--json").stdout)
    assert documents["collection"] == "movies" and len(documents["documents"]) == 19
    assert {"id": "little-women", "chunks": 1, "source": "movies.jsonl"} in documents["documents"]


def test_errors_are_json_under_json(cli: Cli) -> None:
    result = cli("documents", "list", "-c", "nope", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["code"] == "collection_not_found"
    assert result.stderr == ""
    asked = cli("ask", "Which movie?", "-c", "nope", "--json")
    assert asked.exit_code == 2 and json.loads(asked.stdout)["error"]["code"] == "collection_not_found"
    # Without --json the same error is the usual one line on stderr.
    plain = cli("documents", "list", "-c", "nope")
    assert plain.stdout == "" and plain.stderr.startswith("error[collection_not_found]: ")


def test_citations_show_the_whole_document_id(cli: Cli, fake: Any, tmp_path: Path) -> None:
    long_id = "reports/2024/annual-report-of-the-example-company.md"
    folder = tmp_path / "reports" / "2024"
    folder.mkdir(parents=True)
    (folder / "annual-report-of-the-example-company.md").write_text("Example Company revenue grew in 2024.\n", encoding="utf-8")
    assert cli("ingest", tmp_path / "reports", "-c", "filings", "--root", tmp_path).exit_code == 0
    fake.script(relevant=["Example Company"], generate="Revenue grew [1].")
    result = cli("ask", "Did Example Company revenue grow?", "-c", "filings")
    assert result.exit_code == 0, result.output
    assert f"[1] {long_id}" in result.stdout
