"""Graph data files: ``nodes.jsonl`` and ``edges.jsonl``, one JSON object a line.

    {"id": "org-neo4j", "label": "Organization", "name": "Neo4j", "aliases": ["Neo4j Inc."], "properties": {"industry": "software"}}
    {"source": "org-neo4j", "type": "INVESTED_IN", "target": "org-acme", "properties": {"year": 2021}}

``id`` is the node's stable identity: loading the same file again changes nothing, and a later
file may update a node's name, aliases and properties by its id. Property names are identifiers;
values are scalars or flat lists of one scalar type (what FalkorDB stores). A bad line fails the
whole file before anything is written, and the message names the file and the line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from selfrag.errors import GraphDataError
from selfrag.kg.schema import NodeLabel, RelationshipType, check_identifier

__all__ = ["RESERVED_PROPERTIES", "EdgeRecord", "NodeRecord", "read_edges", "read_nodes"]

RESERVED_PROPERTIES = frozenset({"id", "name", "aliases", "keys"})
"""Properties selfrag sets on every node itself (``keys``: the normalised name and aliases)."""

_MAX_TEXT = 500


def _check_properties(props: dict[str, Any]) -> dict[str, Any]:
    for key, value in props.items():
        check_identifier(key, "property name")
        if key in RESERVED_PROPERTIES:
            raise ValueError(f"property {key!r} is reserved (selfrag sets {', '.join(sorted(RESERVED_PROPERTIES))})")
        if isinstance(value, list):
            kinds = {type(v) for v in value}
            if len(kinds) > 1 or not kinds <= {str, int, float, bool}:
                raise ValueError(f"property {key!r}: a list must hold values of one scalar type")
        elif not isinstance(value, str | int | float | bool):
            raise ValueError(f"property {key!r}: use a string, number, boolean or a flat list of one of them")
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, float) and not math.isfinite(v) for v in values):
            raise ValueError(f"property {key!r}: numbers must be finite (no NaN or Infinity)")
    return props


_Properties = Annotated[dict[str, Any], AfterValidator(_check_properties)]


class NodeRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=200)
    label: NodeLabel
    name: str = Field(min_length=1, max_length=_MAX_TEXT)
    aliases: tuple[str, ...] = ()
    properties: _Properties = Field(default_factory=dict)

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if any(not a.strip() or len(a) > _MAX_TEXT for a in v):
            raise ValueError(f"aliases must be non-empty strings of at most {_MAX_TEXT} characters")
        return v


class EdgeRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str = Field(min_length=1, max_length=200)
    type: RelationshipType
    target: str = Field(min_length=1, max_length=200)
    properties: _Properties = Field(default_factory=dict)


def _lines(path: Path) -> Iterator[tuple[int, Any]]:
    try:
        with path.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    yield number, json.loads(line)
                except json.JSONDecodeError:
                    raise GraphDataError(f"{path.name} line {number}: not a JSON object") from None
    except FileNotFoundError:
        raise GraphDataError(f"graph data file {path.name!r} does not exist") from None
    except (OSError, UnicodeDecodeError):
        raise GraphDataError(f"cannot read graph data file {path.name!r} (UTF-8 JSON lines expected)") from None


def _invalid(path: Path, number: int, exc: ValidationError) -> GraphDataError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    msg = str(first["msg"]).removeprefix("Value error, ")
    return GraphDataError(f"{path.name} line {number}: {where + ': ' if where else ''}{msg}")


def read_nodes(path: Path) -> list[NodeRecord]:
    """Every node of a nodes file, validated; ids are unique, and names unique per label.

    Raises:
        GraphDataError: the file is missing or unreadable, or a line is invalid (named).
    """
    nodes: list[NodeRecord] = []
    ids: dict[str, int] = {}
    names: dict[tuple[str, str], int] = {}
    for number, raw in _lines(path):
        try:
            node = NodeRecord.model_validate(raw)
        except ValidationError as exc:
            raise _invalid(path, number, exc) from None
        if node.id in ids:
            raise GraphDataError(f"{path.name} line {number}: id {node.id!r} already used on line {ids[node.id]}")
        # Names are what mention attributes store, so one name must mean one entity of a label.
        key = (node.label, node.name)
        if key in names:
            raise GraphDataError(f"{path.name} line {number}: a {node.label} named {node.name!r} is already on line {names[key]}")
        ids[node.id] = names[key] = number
        nodes.append(node)
    return nodes


def read_edges(path: Path) -> list[EdgeRecord]:
    """Every edge of an edges file, validated (its endpoints are checked when it is loaded).

    Raises:
        GraphDataError: the file is missing or unreadable, or a line is invalid (named).
    """
    edges: list[EdgeRecord] = []
    for number, raw in _lines(path):
        try:
            edges.append(EdgeRecord.model_validate(raw))
        except ValidationError as exc:
            raise _invalid(path, number, exc) from None
    return edges
