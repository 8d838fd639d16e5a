"""Attribute kinds are shown where a collection is created and where it is shown."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from selfrag.store import Store

Cli = Callable[..., Result]

CLUBS = {
    "attributes": [
        {"name": "yearly_fee", "type": "integer", "description": "Membership fee per year in dollars"},
        {"name": "founded", "type": "integer", "description": "When the club was founded"},
        {"name": "members", "type": "integer", "kind": "count"},
    ]
}


def test_creating_a_collection_shows_and_stores_the_kinds(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    (tmp_path / "schema.json").write_text(json.dumps(CLUBS), encoding="utf-8")
    doc = tmp_path / "clubs.jsonl"
    doc.write_text(json.dumps({"id": "a", "text": "A chess club", "metadata": {"yearly_fee": 120, "founded": 1898}}) + "\n")
    created = cli("ingest", doc, "-c", "clubs", "--schema", tmp_path / "schema.json")
    assert created.exit_code == 0, created.output
    assert "clubs: attribute kinds" in created.stderr
    assert "yearly_fee: money in dollar, founded: year, members: count" in created.stderr
    stored = open_store().get_collection("clubs").schema
    assert [(a.kind, a.unit) for a in stored.attributes] == [("money", "dollar"), ("year", None), ("count", None)]

    again = cli("ingest", doc, "-c", "clubs")
    assert again.exit_code == 0 and "attribute kinds" not in again.stderr  # shown once, when created

    shown = cli("collections", "show", "clubs")
    assert shown.exit_code == 0, shown.output
    assert "yearly_fee (integer): Membership fee per year in dollars  [kind: money in dollar]" in shown.stdout
    assert "founded (integer): When the club was founded  [kind: year]" in shown.stdout
