"""A collection's link to a knowledge graph: mention attributes and declared relations.

A relation is a path through the graph, declared as data: the label of the entity a question
names (``start``), then one hop per relationship with its type, its direction and the label it
reaches. The last label is the result: the entities whose names filter the documents. Nothing in
a schema is query text: labels and types must be identifiers, and the compiler
(``selfrag.kg.cypher``) quotes them, so they are the only non-parameter words a query holds.

    {"name": "in_country", "description": "organizations located in a country",
     "start": "Country",
     "path": [{"type": "IN_COUNTRY", "direction": "in", "label": "City"},
              {"type": "LOCATED_IN", "direction": "in", "label": "Organization"}]}

reads ``(:Country)<-[:IN_COUNTRY]-(:City)<-[:LOCATED_IN]-(:Organization)``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from selfrag.errors import SchemaError

__all__ = [
    "IDENTIFIER",
    "AttributeName",
    "NodeLabel",
    "RelationshipType", "GraphLink", "Hop", "MentionAttribute", "Relation", "check_identifier",
    "load_graph_link",
]

IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,62}")
"""What a label, a relationship type, a relation or an attribute name may be: ASCII letters,
digits and underscores, starting with a letter. No quote, backtick, space or brace can pass."""


def check_identifier(value: str, what: str) -> str:
    """``value`` when it is an identifier (see ``IDENTIFIER``).

    Raises:
        ValueError: it is not; the message names ``what`` and the rule.
    """
    if not isinstance(value, str) or not IDENTIFIER.fullmatch(value):
        raise ValueError(f"{what} {value!r} must be an identifier: a letter, then letters, digits or '_' (at most 63)")
    return value


def _identifier(what: str) -> AfterValidator:
    return AfterValidator(lambda v: check_identifier(v, what))


# Each name that reaches Cypher as text (labels, types) or a Chroma filter (attributes) is one of these.
NodeLabel = Annotated[str, _identifier("node label")]
RelationshipType = Annotated[str, _identifier("relationship type")]
AttributeName = Annotated[str, _identifier("attribute name")]
_RelationName = Annotated[str, _identifier("relation name")]
_GraphName = Annotated[str, _identifier("graph name")]


class Hop(BaseModel):
    """One relationship step of a relation's path."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: RelationshipType
    """The relationship type, e.g. ``SUPPLIES``."""
    direction: Literal["out", "in", "both"]
    """``out``: (previous)-[:type]->(next); ``in``: (previous)<-[:type]-(next); ``both``: either
    way, for symmetric relationships stored once (``COMPETES_WITH``)."""
    label: NodeLabel
    """The label of the node this hop reaches."""


class Relation(BaseModel):
    """A named relation the self-query may use as a condition: ``(relation, value)``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: _RelationName
    description: str = Field(min_length=1, max_length=500)
    """What the relation means, in words: the offline recogniser and the model read it."""
    start: NodeLabel
    """The label of the entity the condition's value names."""
    path: tuple[Hop, ...] = Field(min_length=1, max_length=4)

    @property
    def result_label(self) -> str:
        """The label of the entities the relation resolves to."""
        return self.path[-1].label

    def describe_path(self) -> str:
        """The path in arrow notation, for messages and the CLI (never sent to the server)."""
        parts = [f"({self.start})"]
        for hop in self.path:
            parts.append({"out": f"-[{hop.type}]->", "in": f"<-[{hop.type}]-", "both": f"-[{hop.type}]-"}[hop.direction])
            parts.append(f"({hop.label})")
        return "".join(parts)


class MentionAttribute(BaseModel):
    """An array metadata attribute holding the names of the entities of one label a document mentions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    attribute: AttributeName
    label: NodeLabel


class GraphLink(BaseModel):
    """What a collection declares about its graph: which graph, which attributes, which relations."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    graph: _GraphName
    mentions: tuple[MentionAttribute, ...] = Field(min_length=1)
    relations: tuple[Relation, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> GraphLink:
        names = [r.name for r in self.relations]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate relation(s): {', '.join(dupes)}")
        attrs = [m.attribute for m in self.mentions]
        if len(set(attrs)) != len(attrs):
            raise ValueError("a mention attribute is declared twice")
        labels = {m.label for m in self.mentions}
        for r in self.relations:
            if r.result_label not in labels:
                raise ValueError(
                    f"relation {r.name!r} ends at label {r.result_label!r}, which no mention attribute holds "
                    f"(declared: {', '.join(sorted(labels))})"
                )
        return self

    def relation(self, name: str) -> Relation | None:
        return next((r for r in self.relations if r.name == name), None)

    def mention_for(self, label: str) -> MentionAttribute | None:
        """The mention attribute that holds entities of ``label``, if any."""
        return next((m for m in self.mentions if m.label == label), None)


def load_graph_link(path: Path) -> GraphLink:
    """Read and validate a graph link (JSON).

    Raises:
        SchemaError: unreadable, not JSON, or invalid (the message says where).
    """
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        raise SchemaError(f"cannot read graph link file {path.name!r}") from None
    except json.JSONDecodeError as exc:
        raise SchemaError(f"graph link file {path.name!r} is not JSON (line {exc.lineno})") from None
    try:
        return GraphLink.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        raise SchemaError(f"invalid graph link in {path.name!r} at {where}: {first['msg']}") from None
