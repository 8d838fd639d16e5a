"""Where to go next, decided from the state and the budgets alone.

Budgets live in the state (``max_rewrites``, ``max_generations``) so a checkpoint records the
limits a run was given. A ``stop_reason`` set by a node (no progress) always ends the loop.
"""

from __future__ import annotations

from typing import Literal

from workflows._phase import asks, nothing_matches, whether
from workflows.outcomes import Outcome
from workflows.records import GeneratedAnswer
from workflows.state import SelfRagState

__all__ = ["after_check", "after_condense", "after_graph_resolve", "after_self_query", "after_grade", "after_retrieve", "after_rewrite", "decide_outcome"]


def _gens_left(state: SelfRagState) -> bool:
    return state["generation_count"] < state["max_generations"]


def _rewrites_left(state: SelfRagState) -> bool:
    return state["rewrite_count"] < state["max_rewrites"]


def after_condense(state: SelfRagState) -> Literal["self_query", "finalize"]:
    """A question about the conversation was answered from memory: nothing to retrieve."""
    return "finalize" if state["generations"] else "self_query"


def _search(state: SelfRagState) -> Literal["latest", "retrieve"]:
    return "latest" if any(p["latest"] for p in state["resource_plans"] if p["error"] is None) else "retrieve"


def after_self_query(state: SelfRagState) -> Literal["graph_resolve", "latest", "retrieve", "finalize"]:
    """Graph conditions resolve first; a plan with filters and no topic takes the newest documents.
    No resource left (each knows the question names a record it lacks) ends the run."""
    if state["stop_reason"]:
        return "finalize"
    if any(p["graph_terms"] for p in state["resource_plans"] if p["error"] is None):
        return "graph_resolve"
    return _search(state)


def after_graph_resolve(state: SelfRagState) -> Literal["latest", "retrieve", "finalize"]:
    """An ambiguous name (ask which) or no resource left (nothing can match) ends the run."""
    if state["stop_reason"]:
        return "finalize"
    return _search(state)


def after_retrieve(state: SelfRagState) -> Literal["grade_documents", "finalize"]:
    return "finalize" if state["stop_reason"] else "grade_documents"


def after_grade(state: SelfRagState) -> Literal["generate", "rewrite", "finalize"]:
    # A question asking for the graph's entities is answered from the graph, documents or none.
    # So is one whose filters hold it whole and select nothing: "No", or none.
    if state["relevant"] or asks(state) in ("entities", "entities_and_documents", "membership") \
            or nothing_matches(state) or whether(state) is not None:
        return "generate" if _gens_left(state) else "finalize"
    return "rewrite" if _rewrites_left(state) else "finalize"


def after_rewrite(state: SelfRagState) -> Literal["retrieve", "finalize"]:
    return "finalize" if state["stop_reason"] else "retrieve"


def after_check(state: SelfRagState) -> Literal["generate", "rewrite", "finalize"]:
    last = state["generations"][-1]
    if last["grounded"] and last["useful"]:
        return "finalize"
    if not last["grounded"]:
        if last["strategy"] == "reader":
            # The reader is deterministic: the same documents would give the same answer. Other
            # documents might not.
            return "rewrite" if _rewrites_left(state) and _gens_left(state) else "finalize"
        return "generate" if _gens_left(state) else "finalize"
    # grounded but not useful: the documents were the wrong ones; look again
    return "rewrite" if _rewrites_left(state) and _gens_left(state) else "finalize"


def decide_outcome(state: SelfRagState) -> tuple[str, GeneratedAnswer | None, str]:
    """The outcome, the generation to answer with (None when abstaining) and why the run stopped."""
    gens = state["generations"]
    stop = state["stop_reason"]
    checked = [g for g in gens if g["grounded"] and g["useful"]]
    for g in checked:
        if g["verified"] is not False:
            return Outcome.ANSWERED.value, g, stop or "answered"
    if checked:
        best = max(checked, key=lambda g: g["probability"] or 0.0)
        if state["relaxations"]:
            dropped = "; ".join(r["detail"] for r in state["relaxations"])
            return Outcome.UNVERIFIED.value, best, stop or f"no document matched all the question's conditions ({dropped})"
        named = [v for v in state["verdicts"]
                 if v["kind"] in ("names", "attribute", "figure", "span") and not v["passed"] and v["generation"] == best["number"]]
        if named:
            return Outcome.UNVERIFIED.value, best, stop or named[-1]["reason"]
        # Why it is not signed, in the failed check's own words (a guard's "but …" as well as a
        # probability below the threshold, a ranking not computed, a negation's unknowns).
        failed = [v for v in state["verdicts"] if not v["passed"] and v["generation"] == best["number"]]
        return Outcome.UNVERIFIED.value, best, stop or (failed[-1]["reason"] if failed else
                                                        "the reader's probability is below its threshold")
    if not gens:
        return Outcome.ABSTAINED.value, None, stop or "no relevant documents within the rewrite budget"
    grounded = [g for g in gens if g["grounded"]]
    if grounded:
        if stop is not None and stop.startswith("no_progress"):
            return Outcome.NO_PROGRESS.value, grounded[-1], stop
        reason = stop or "rewrite or generation budget spent before a useful answer"
        return Outcome.BUDGET_EXHAUSTED.value, grounded[-1], reason
    with_text = [g for g in gens if g["answer"]] or gens
    return Outcome.UNGROUNDED.value, with_text[-1], stop or "generation budget spent without a grounded answer"
