"""``selfrag collections list|show|delete`` and ``selfrag documents list|delete``."""

from __future__ import annotations

import json
from collections.abc import Callable

from click.testing import Result
from typer.testing import CliRunner

from selfrag.cli import app
from selfrag.store import Store

Cli = Callable[..., Result]
Check = Callable[[Result, str], str]


def test_list_and_show(cli: Cli) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    assert cli("ingest", "--sample", "filings").exit_code == 0
    listed = cli("collections", "list")
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.splitlines() == ["filings  19 chunks", "movies  19 chunks"]
    shown = cli("collections", "show", "filings")
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert lines[0] == "filings: 8 documents, 19 chunks"
    assert any(line.startswith("  company (string)") and "[known: Apple, Costco, Microsoft, Walmart]" in line for line in lines)
    as_json = json.loads(cli("collections", "show", "movies", "--json").stdout)
    assert (as_json["documents"], as_json["chunks"]) == (19, 19)
    assert [a["name"] for a in as_json["schema"]["attributes"]] == ["title", "genre", "year", "director", "rating"]


def test_delete_a_collection_asks_first(cli: Cli, open_store: Callable[[], Store], assert_one_line_error: Check) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    refused = cli("collections", "delete", "movies")  # no answer to the question: nothing deleted
    assert refused.exit_code == 1 and "error[usage_error]: nothing deleted: answer y, or pass --yes" in refused.stderr
    assert open_store().has_collection("movies")
    assert answering("n\n", "collections", "delete", "movies").exit_code == 1
    deleted = answering("y\n", "collections", "delete", "movies")
    assert deleted.exit_code == 0, deleted.output
    assert "deleted collection 'movies' (19 chunks)" in deleted.stderr
    assert not open_store().has_collection("movies")
    assert_one_line_error(cli("collections", "delete", "movies", "--yes"), "collection_not_found")
    assert_one_line_error(cli("collections", "show", "nowhere"), "collection_not_found")


def test_list_and_delete_documents(cli: Cli, open_store: Callable[[], Store], assert_one_line_error: Check) -> None:
    assert cli("ingest", "--sample", "filings").exit_code == 0
    listed = cli("documents", "list", "-c", "filings")
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.splitlines()[0] == "apple-fy2022.md  2 chunks  apple-fy2022.md"
    assert len(listed.stdout.splitlines()) == 8
    deleted = cli("documents", "delete", "walmart-fy2024.md", "-c", "filings", "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert "deleted 'walmart-fy2024.md' from 'filings' (3 chunks)" in deleted.stderr
    assert open_store().get_collection("filings").count() == 16
    line = assert_one_line_error(cli("documents", "delete", "walmart-fy2024.md", "-c", "filings", "--yes"), "document_not_found")
    assert "no document or chunk 'walmart-fy2024.md'" in line


def answering(text: str, *args: str) -> Result:
    """Run the CLI with ``text`` on its standard input (the answer to a confirmation)."""
    return CliRunner().invoke(app, list(args), input=text)
