"""The structured query: the contract between the self-query step, the store and the trace.

A ``StructuredQuery`` is what the LLM (or the rule-based constructor) produces: semantic query
text, an optional filter tree over the collection's declared attributes, and an optional limit.
It is also the LLM's structured-output schema, so field descriptions are written for the model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from selfrag.kg.records import RelationCondition

__all__ = ["Change", "Comparator", "Comparison", "FilterNode", "Operation", "Operator", "Scalar", "StructuredQuery"]

Comparator = Literal["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "not_contains"]
"""``contains``/``not_contains`` test the elements of a list (``string[]``) attribute; validation
keeps them on no other attribute, and the self-query's scalar view has none."""
Operator = Literal["and", "or", "not"]
Scalar = str | int | float | bool


class Comparison(BaseModel):
    """``attribute comparator value``, e.g. ``rating gt 8.5``."""

    model_config = ConfigDict(frozen=True)

    attribute: str = Field(description="One of the collection's declared attribute names.")
    comparator: Comparator
    value: Scalar | list[Scalar] = Field(description="A single value; a list only for 'in' and 'nin'.")


class Operation(BaseModel):
    """``and``/``or`` over two or more nodes, or ``not`` over exactly one."""

    model_config = ConfigDict(frozen=True)

    operator: Operator
    arguments: list[FilterNode]


FilterNode = Comparison | Operation
Operation.model_rebuild()


class StructuredQuery(BaseModel):
    """A question turned into a semantic search plus a metadata filter."""

    model_config = ConfigDict(frozen=True)

    query: str = Field(description="The text to search for semantically, without the filter conditions.")
    filter: FilterNode | None = Field(
        default=None, description="Conditions on metadata attributes, or null when the question states none."
    )
    limit: int | None = Field(default=None, description="How many results the question asks for, or null.")
    relations: list[RelationCondition] = Field(
        default_factory=list,
        description="Conditions through the collection's knowledge graph: a declared relation and the entity the "
        "question names for it, e.g. documents about companies a named person sits on the board of. Empty when none.",
    )


class Change(BaseModel):
    """One thing validation changed in a structured query, and why (shown in the trace)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal[
        "dropped_attribute",
        "dropped_clause",
        "coerced_value",
        "matched_value",
        "kept_unknown_value",
        "resolved_date",
        "unwrapped",
        "rewrote_not",
        "empty_filter",
        "clamped_limit",
        "ungrounded_limit",
        "fallback",
        "merged_mandatory",
        "relaxed",
        "model_not_asked",
        "contradiction",
        "unsatisfiable",
        "grounded_query",
        "dropped_relation",
        "excluded",
        "negation_not_held",
        "ambiguous_coordination",
        "graph_term",
        "named_range",
        "latest_first",
        "asked_property",
        "unread_bound",
        "computed",
        "guessed_value",
        "either_attribute",
        "ambiguous_name",
        "unrecorded_values",
        "exclusive_element",
        "absent_identifier",
        "another_role",
    ]
    detail: str
