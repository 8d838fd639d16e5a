"""The graph state. Each field says which node writes it, and what a new turn does with it.

No field has a reducer: nodes run one after another and each returns whole new values. Every
field declares its per-turn policy in its annotation (``Annotated[..., Fresh(...)]``, ``Input``
or ``Kept(...)``), and ``per_turn_reset`` and ``kept_values`` are derived from those declarations:
a field added without one is an error at import, so nothing can silently carry over into a
thread's next turn. Only the ``Kept`` fields (``history``, a pending ``clarification``) and the
engine's inputs, set anew each turn, outlive a turn; a turn's ``Kept`` values are always those of
the thread's last completed turn (``workflows.threads``), never what a failed turn left.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, NotRequired, get_type_hints

from typing_extensions import TypedDict

from graders.verdicts import Verdict
from workflows.records import (
    CitedDocument,
    Clarification,
    Document,
    GeneratedAnswer,
    GradedDocument,
    PlanRecord,
    Relaxation,
    ResourcePlan,
    ResumedChoice,
    RetrievalRecord,
    RewriteRecord,
    SpeculativeWork,
    Timing,
)

__all__ = ["Fresh", "Input", "Kept", "SelfRagState", "Shown", "Turn", "fresh_values", "kept_values", "per_turn_reset",
           "shown", "turn_policies"]


@dataclass(frozen=True)
class Fresh:
    """Starts every turn at ``value`` (copied, so no turn shares a mutable default)."""

    value: Any


@dataclass(frozen=True)
class Kept:
    """Carried from one completed turn of a thread to the next by the checkpointer; ``value`` on
    a thread's first turn (copied, as ``Fresh``'s)."""

    value: Any


@dataclass(frozen=True)
class _Marker:
    name: str


Input = _Marker("input")
"""Set by the engine from the caller's arguments at the start of every turn."""


@dataclass(frozen=True)
class Shown:
    """The key's final value is shown to the caller as the ``Result`` field (``in_trace``: the
    ``Trace`` field) ``name``: ``shown`` derives both from these declarations, nothing copies them."""

    name: str
    in_trace: bool = True


class Turn(TypedDict):
    """One finished exchange in a thread."""

    question: str
    standalone_question: str
    answer: str
    outcome: str
    request_key: NotRequired[str]
    """The caller's idempotency key (``RunOptions.request_key``): a retry of the turn finds it
    and gets this turn back instead of a second one."""
    citations: NotRequired[list[CitedDocument]]
    """Kept with a ``request_key``, so that the replay carries them."""
    short_answer: NotRequired[str | None]
    """Kept with a ``request_key``, as the citations."""
    confidence: NotRequired[float | None]
    """Kept with a ``request_key``, as the citations."""


class SelfRagState(TypedDict, total=False):
    # -- engine input --------------------------------------------------------------------------
    question: Annotated[str, Input, Shown("question", in_trace=False)]
    collection: Annotated[str, Input, Shown("collection", in_trace=False)]
    collections: Annotated[list[str], Input]
    """Every collection the thread's turns have targeted so far (this turn's ``collection`` among
    them): what a thread's readers, and a key continuing it, must be allowed to read."""
    max_rewrites: Annotated[int, Input]
    max_generations: Annotated[int, Input]
    # -- memory (finalize appends; persisted by the checkpointer per thread) ---------------------
    history: Annotated[list[Turn], Kept([])]
    # -- condense ------------------------------------------------------------------------------
    standalone_question: Annotated[str, Fresh("")]
    resumed: Annotated[ResumedChoice | None, Fresh(None)]
    """The entity a reply chose for a pending clarification."""
    # -- self_query ----------------------------------------------------------------------------
    plan: Annotated[PlanRecord, Fresh({}), Shown("plan")]
    """The turn's plan for the trace: condense's source, the validated structured query, where
    clause, validation changes, source (llm/rules), graph resolution, latest-first search."""
    query: Annotated[str, Fresh("")]
    """The turn's search text (the one resource's, or the question for several); rewrite replaces it."""
    resource_plans: Annotated[list[ResourcePlan], Fresh([]), Shown("resources")]
    """Each resource's plan, one collection being a list of one: its search text, filter, ``k``,
    latest flag and graph terms (``graph_resolve`` adds the entity sets; ``retrieve`` writes back
    the filter it relaxed)."""
    speculated: Annotated[SpeculativeWork | None, Fresh(None)]
    """The search and verdicts run beside the self-query, when the plan kept the question: the
    first ``retrieve`` and ``grade_documents`` reuse them (``workflows.speculation``)."""
    # -- graph_resolve (it also adds its entity sets to the resource plans) --------------------
    no_match: Annotated[str | None, Fresh(None)]
    """Why no document can match (a relation reached no entity): the answer says it."""
    clarification: Annotated[Clarification | None, Kept(None)]
    """An ambiguous name the user must choose for; kept on the thread for the next turn."""
    # -- retrieve ------------------------------------------------------------------------------
    where: Annotated[dict[str, Any] | None, Fresh(None), Shown("filter", in_trace=False)]
    """The where clause of the last search (after any relaxation)."""
    relaxations: Annotated[list[Relaxation], Fresh([]), Shown("relaxations")]
    documents: Annotated[list[Document], Fresh([])]
    retrieved_sets: Annotated[list[list[str]], Fresh([])]
    retrievals: Annotated[list[RetrievalRecord], Fresh([]), Shown("retrievals")]
    """Each retrieval of the turn: per resource searched, fusion, rerank (for the trace)."""
    # -- grade_documents -----------------------------------------------------------------------
    graded: Annotated[list[GradedDocument], Fresh([]), Shown("documents")]
    """Every grading decision of the turn, across retrievals (for the trace)."""
    relevant: Annotated[list[Document], Fresh([])]
    # -- rewrite -------------------------------------------------------------------------------
    rewrites: Annotated[list[RewriteRecord], Fresh([]), Shown("rewrites")]
    queries_seen: Annotated[list[str], Fresh([])]
    rewrite_count: Annotated[int, Fresh(0)]
    # -- generate ------------------------------------------------------------------------------
    generations: Annotated[list[GeneratedAnswer], Fresh([]), Shown("generations")]
    generation_count: Annotated[int, Fresh(0)]
    # -- check ---------------------------------------------------------------------------------
    verdicts: Annotated[list[Verdict], Fresh([]), Shown("verdicts")]
    # -- any node: why the loop stopped early --------------------------------------------------
    stop_reason: Annotated[str | None, Fresh(None), Shown("stop_reason")]
    # -- finalize ------------------------------------------------------------------------------
    outcome: Annotated[str, Fresh("")]
    answer: Annotated[str, Fresh(""), Shown("answer", in_trace=False)]
    short_answer: Annotated[str | None, Fresh(None), Shown("short_answer", in_trace=False)]
    confidence: Annotated[float | None, Fresh(None), Shown("confidence", in_trace=False)]
    citations: Annotated[list[CitedDocument], Fresh([]), Shown("citations", in_trace=False)]
    # -- every node (timed wrapper) ------------------------------------------------------------
    timings: Annotated[list[Timing], Fresh([]), Shown("timings")]


def turn_policies(state_type: type = SelfRagState) -> dict[str, Fresh | Kept | _Marker | None]:
    """Each state key and its declared per-turn policy (None: the key declares none)."""
    hints = get_type_hints(state_type, include_extras=True)
    policies: dict[str, Fresh | Kept | _Marker | None] = {}
    for key, hint in hints.items():
        found = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, (Fresh, Kept, _Marker))]
        policies[key] = found[0] if found else None
    return policies


def fresh_values(state_type: type = SelfRagState) -> dict[str, Any]:
    """The ``Fresh`` start value of each key.

    Raises:
        TypeError: a key declares no per-turn policy (it would silently carry over between turns).
    """
    policies = turn_policies(state_type)
    missing = sorted(k for k, p in policies.items() if p is None)
    if missing:
        raise TypeError(f"{state_type.__name__} keys without a per-turn policy (Fresh, Input or Kept): {missing}")
    return {k: p.value for k, p in policies.items() if isinstance(p, Fresh)}


_FRESH = fresh_values()
_KEPT = {k: p.value for k, p in turn_policies().items() if isinstance(p, Kept)}


def _shown_keys(state_type: type) -> dict[str, Shown]:
    hints = get_type_hints(state_type, include_extras=True)
    return {key: m for key, hint in hints.items() for m in getattr(hint, "__metadata__", ()) if isinstance(m, Shown)}


_SHOWN = _shown_keys(SelfRagState)


def shown(state: Mapping[str, Any], *, in_trace: bool) -> dict[str, Any]:
    """The final state's values the caller sees, under their ``Result`` (or ``Trace``) names."""
    return {m.name: state[key] for key, m in _SHOWN.items() if m.in_trace is in_trace}


def per_turn_reset() -> dict[str, Any]:
    """Values that start every turn fresh (a thread's checkpoint would otherwise carry them over)."""
    return copy.deepcopy(_FRESH)


def kept_values(completed: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a thread's next turn carries: each ``Kept`` value of its last completed turn's state
    (``completed``; None for a thread without one), or the key's first-turn value where that state
    has none (a checkpoint written before the key existed)."""
    values = completed or {}
    return copy.deepcopy({k: values.get(k, first) for k, first in _KEPT.items()})
