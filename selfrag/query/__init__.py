"""Self-query: turn a question into semantic query text plus a metadata filter, safely.

    planner = SelfQueryPlanner(model)                    # or SelfQueryPlanner(None, mode="rules")
    plan = planner.plan("sci-fi rated above 8.5", schema, catalogue, mandatory_where={"tenant": "acme"})
    collection.query(query_texts=[plan.query.query], where=plan.where)

The pieces, each usable alone: ``validate_query`` (repair model output against the schema, and
make sure the filter can select something), ``rule_based_query``/``read_question`` (a
deterministic constructor driven by the schema and the catalogue alone), ``to_where``/``and_where``
(Chroma translation), ``relaxations`` (what to drop when a filtered search finds nothing),
``check_text`` (is a model's search text still about the question), ``build_planner`` (a planner
as the settings and the provider profile describe it), ``find_graph_terms``/``read_graph_terms``/
``validate_relations`` (relation conditions, entity mentions, named ranges, dates and latest-first
over a collection's knowledge graph), ``without_unrecorded`` (no set answer from a negated condition
that records of the kind cannot be placed by), ``absent_identifiers`` (codes in an identifier's
shape that no known value is).
"""

from selfrag.query._numbers import Number, find_numbers
from selfrag.query._profile import affirmed
from selfrag.query._where import MAX_FILTER_VALUES
from selfrag.query.absent import Absent, absent_identifiers, code_key, written_in
from selfrag.query.anchor import TextCheck, check_text, is_placeholder
from selfrag.query.graph_terms import (
    EntityChoice,
    GraphReading,
    GraphTerm,
    find_graph_terms,
    read_graph_terms,
    validate_relations,
)
from selfrag.query.model import (
    Change,
    Comparator,
    Comparison,
    FilterNode,
    Operation,
    Operator,
    Scalar,
    StructuredQuery,
)
from selfrag.query.planner import Computation, Plan, SelfQueryPlanner
from selfrag.query.profiles import build_planner, profile_mode
from selfrag.query.relax import describe, relaxations
from selfrag.query.rules import Reading, headed_attribute, item_words, read_question, record_words, rule_based_query
from selfrag.query.translate import and_where, to_where
from selfrag.query.unrecorded import without_unrecorded
from selfrag.query.validate import Validated, grounding, parse_where, validate_query

__all__ = [
    "MAX_FILTER_VALUES",
    "Absent",
    "Change",
    "Comparator",
    "Comparison",
    "Computation",
    "EntityChoice",
    "FilterNode",
    "GraphReading",
    "GraphTerm",
    "Number",
    "Operation",
    "Operator",
    "Plan",
    "Reading",
    "Scalar",
    "SelfQueryPlanner",
    "StructuredQuery",
    "TextCheck",
    "Validated",
    "absent_identifiers",
    "affirmed",
    "and_where",
    "build_planner",
    "check_text",
    "code_key",
    "describe",
    "find_graph_terms",
    "find_numbers",
    "grounding",
    "headed_attribute",
    "is_placeholder",
    "item_words",
    "parse_where",
    "profile_mode",
    "read_graph_terms",
    "read_question",
    "record_words",
    "relaxations",
    "rule_based_query",
    "to_where",
    "validate_query",
    "validate_relations",
    "without_unrecorded",
    "written_in",
]
