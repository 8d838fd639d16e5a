"""Typed records the graph side hands to the rest of the engine (plain JSON when dumped)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["Entity", "EntityRef", "GraphSummary", "LoadReport", "PropertyValue", "RelationCondition", "Resolution"]

PropertyValue = str | int | float | bool | list[str] | list[int] | list[float] | list[bool]
"""What a node or edge property may hold: a scalar, or a flat list of one scalar type."""


@dataclass(frozen=True)
class Entity:
    """One node of a graph, as matching and disambiguation see it."""

    id: str
    label: str
    name: str
    aliases: tuple[str, ...] = ()
    properties: Mapping[str, Any] = field(default_factory=dict)


class EntityRef(BaseModel):
    """An entity in a trace or a result: enough to show and to filter on (``name``)."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str


class RelationCondition(BaseModel):
    """A structured query's relation condition: ``relation`` from the schema, ``value`` an entity named in words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    relation: str
    value: str


class Resolution(BaseModel):
    """What resolving one relation condition did, for the trace: the Cypher template, its
    parameters and the entity set it found (empty: no document can match)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    relation: str
    entity: EntityRef
    """The start entity the condition's value was resolved to."""
    template: str
    params: dict[str, Any]
    entities: tuple[EntityRef, ...]
    attribute: str
    """The mention attribute the entity names filter on."""

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entities]


@dataclass(frozen=True)
class LoadReport:
    """What one load did: lines read and how many nodes and edges it created (the rest already existed)."""

    graph: str
    nodes: int
    edges: int
    nodes_created: int
    edges_created: int


@dataclass(frozen=True)
class GraphSummary:
    """Counts per node label and per relationship type."""

    graph: str
    labels: Mapping[str, int]
    types: Mapping[str, int]
