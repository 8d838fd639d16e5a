"""Graph data files: a bad line fails the file with a message naming it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from selfrag.errors import GraphDataError
from selfrag.kg import read_edges, read_nodes


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


GOOD = {"id": "n1", "label": "Organization", "name": "Acme", "aliases": ["ACME Corp"], "properties": {"industry": "tools"}}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", r"nodes\.jsonl line 2: not a JSON object"),
        ({"id": "n2", "label": "Org`x", "name": "B"}, r"line 2: label: node label .* must be an identifier"),
        ({"id": "n2", "label": "Org", "name": ""}, r"line 2: name"),
        ({"id": "n1", "label": "Org", "name": "B"}, r"line 2: id 'n1' already used on line 1"),
        ({"id": "n2", "label": "Organization", "name": "Acme"}, r"line 2: a Organization named 'Acme' is already on line 1"),
        ({"id": "n2", "label": "Org", "name": "B", "properties": {"name": "x"}}, r"property 'name' is reserved"),
        ({"id": "n2", "label": "Org", "name": "B", "properties": {"a b": "x"}}, r"property name 'a b' must be an identifier"),
        ({"id": "n2", "label": "Org", "name": "B", "properties": {"m": {"k": 1}}}, r"property 'm': use a string"),
        ({"id": "n2", "label": "Org", "name": "B", "properties": {"m": [1, "a"]}}, r"one scalar type"),
        ({"id": "n2", "label": "Org", "name": "B", "extra": 1}, r"line 2: extra"),
        ('{"id": "n2", "label": "Org", "name": "B", "properties": {"x": NaN}}', r"numbers must be finite"),
    ],
)
def test_a_bad_node_line_is_named(tmp_path: Path, bad: Any, message: str) -> None:
    with pytest.raises(GraphDataError, match=message):
        read_nodes(_write(tmp_path / "nodes.jsonl", [GOOD, bad]))


def test_good_files_read_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    nodes = read_nodes(_write(tmp_path / "nodes.jsonl", [GOOD, "", {"id": "n2", "label": "City", "name": "Acme"}]))
    assert [n.id for n in nodes] == ["n1", "n2"]  # one name may serve two labels
    edges = read_edges(_write(tmp_path / "edges.jsonl", [{"source": "n1", "type": "LOCATED_IN", "target": "n2"}]))
    assert edges[0].type == "LOCATED_IN"
    with pytest.raises(GraphDataError, match=r"edges\.jsonl line 1: type"):
        read_edges(_write(tmp_path / "edges.jsonl", [{"source": "n1", "type": "X]->() DELETE", "target": "n2"}]))


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(GraphDataError, match="does not exist"):
        read_nodes(tmp_path / "nope.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(GraphDataError, match="cannot read"):
        read_edges(tmp_path / "bin.jsonl")
    # The message names the file, never its directory.
    with pytest.raises(GraphDataError) as info:
        read_nodes(tmp_path / "nope.jsonl")
    assert str(tmp_path) not in info.value.message
