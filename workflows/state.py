"""The graph state. Each field says which node writes it.

No field has a reducer: nodes run one after another, each returns whole new values, and the
engine resets every per-turn field in the input of a new turn. Only ``history`` outlives a turn
(it is what a thread's checkpoint carries from one question to the next).
"""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["SelfRagState", "Turn", "per_turn_reset"]


class Turn(TypedDict):
    """One finished exchange in a thread."""

    question: str
    standalone_question: str
    answer: str
    outcome: str


class SelfRagState(TypedDict, total=False):
    # -- engine input --------------------------------------------------------------------------
    question: str
    collection: str
    max_rewrites: int
    max_generations: int
    # -- memory (finalize appends; persisted by the checkpointer per thread) ---------------------
    history: list[Turn]
    # -- condense ------------------------------------------------------------------------------
    standalone_question: str
    # -- self_query ----------------------------------------------------------------------------
    plan: dict[str, Any]
    """The validated structured query, where clause, validation changes and source (llm/rules)."""
    query: str
    """The current semantic query text; rewrite replaces it."""
    query_filter: Any
    """The validated FilterNode (or None) that relaxation works on; mandatory filter kept apart."""
    limit: int | None
    # -- retrieve ------------------------------------------------------------------------------
    where: dict[str, Any] | None
    """The where clause of the last search (after any relaxation)."""
    relaxations: list[dict[str, Any]]
    documents: list[dict[str, Any]]
    retrieved_sets: list[list[str]]
    # -- grade_documents -----------------------------------------------------------------------
    graded: list[dict[str, Any]]
    """Every grading decision of the turn, across retrievals (for the trace)."""
    relevant: list[dict[str, Any]]
    # -- rewrite -------------------------------------------------------------------------------
    rewrites: list[dict[str, Any]]
    queries_seen: list[str]
    rewrite_count: int
    # -- generate ------------------------------------------------------------------------------
    generations: list[dict[str, Any]]
    generation_count: int
    # -- check ---------------------------------------------------------------------------------
    verdicts: list[dict[str, Any]]
    # -- any node: why the loop stopped early --------------------------------------------------
    stop_reason: str | None
    # -- finalize ------------------------------------------------------------------------------
    outcome: str
    answer: str
    citations: list[dict[str, Any]]
    # -- every node (timed wrapper) ------------------------------------------------------------
    timings: list[dict[str, Any]]


def per_turn_reset() -> dict[str, Any]:
    """Values that start every turn fresh (a thread's checkpoint would otherwise carry them over)."""
    return {
        "standalone_question": "",
        "plan": {},
        "query": "",
        "query_filter": None,
        "limit": None,
        "where": None,
        "relaxations": [],
        "documents": [],
        "retrieved_sets": [],
        "graded": [],
        "relevant": [],
        "rewrites": [],
        "queries_seen": [],
        "rewrite_count": 0,
        "generations": [],
        "generation_count": 0,
        "verdicts": [],
        "stop_reason": None,
        "outcome": "",
        "answer": "",
        "citations": [],
        "timings": [],
    }
