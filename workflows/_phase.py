"""What the nodes of every phase (plan, search, answer) share: the components, the clock, the
run's resources, and the few facts about the state more than one phase reads."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from graders import Verdict
from graders.figures import Figure, figures
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.text import content_terms
from workflows import records as rec
from workflows.components import Components
from workflows.options import RunOptions
from workflows.resources import Resource
from workflows.set_answers import asked_attribute, filter_values
from workflows.state import SelfRagState

__all__ = ["Phase", "asked_field", "decided_verdict", "filter_held_figures", "filtered", "judged_text", "planned_text",
           "computation", "whole_computation"]


class Phase:
    """A group of nodes over one set of components (``SelfRagNodes`` joins the phases)."""

    def __init__(self, components: Components, *, today: Callable[[], date] = date.today) -> None:
        self.c = components
        self.today = today

    @staticmethod
    def resources(state: SelfRagState, opts: RunOptions) -> tuple[Resource, ...]:
        """The run's resources; a graph run without them (a test, a hand-built graph) asks its one collection."""
        return opts.resources or (Resource(state["collection"]),)

    def field(self, state: SelfRagState) -> AttributeInfo | None:
        """The attribute whose value the question asks of the one document its filter selects (``asked_field``)."""
        return asked_field(state, lambda name: self.c.store.get_collection(name).schema)


def filtered(state: SelfRagState) -> bool:
    """A filter (self-queried, or entity sets from the graph) holds the question's conditions.

    Not once a search had to relax it: a dropped condition ("this year", "layoffs") is held by no
    filter any more, and the search text no longer says it, so only the whole question does."""
    if state["relaxations"]:
        return False
    return any(p["filter"] is not None or p["resolutions"] for p in state["resource_plans"] if p["error"] is None)


def asks(state: SelfRagState) -> str | None:
    """What the question asks for when its filters hold all of it (``ResourcePlan.asks``: the
    graph's ``entities`` or the matching ``documents``), for a question on one resource; None
    otherwise. No documents once a search relaxed the filter: it then holds less than the question
    asks (and half an answer to two questions is none). The graph's entities do not depend on the
    search."""
    live = [p for p in state["resource_plans"] if p["error"] is None]
    asked = live[0].get("asks") if len(live) == 1 else None
    return None if asked in ("documents", "entities_and_documents") and state["relaxations"] else asked


def nothing_matches(state: SelfRagState) -> bool:
    """Whether the question's filters hold all it asks and the store counted no document matching
    them (``ResourcePlan.matched``), for a question on one resource: that none match is the answer."""
    live = [p for p in state["resource_plans"] if p["error"] is None]
    return len(live) == 1 and live[0].get("matched") == 0 and live[0].get("asks") == "documents"


def whether(state: SelfRagState) -> rec.WhetherRecord | None:
    """The yes/no question about one named item the store's counts answer (``ResourcePlan.whether``),
    for a question on one resource."""
    live = [p for p in state["resource_plans"] if p["error"] is None]
    return live[0].get("whether") if len(live) == 1 else None


def computation(state: SelfRagState) -> rec.ComputationRecord | None:
    """The superlative or aggregate the question asks (``ResourcePlan.computed``), for a question on one resource."""
    live = [p for p in state["resource_plans"] if p["error"] is None]
    return live[0].get("computed") if len(live) == 1 else None


def whole_computation(state: SelfRagState) -> rec.ComputationRecord | None:
    """The computation that is the whole answer: its filter and it hold all the question asks, and
    no search relaxed the filter (a dropped condition would compute over other documents)."""
    found = computation(state)
    return found if found is not None and found["whole"] and not state["relaxations"] else None


def asked_field(state: SelfRagState, schema_of: Callable[[str], CollectionSchema]) -> AttributeInfo | None:
    """The attribute whose value the question asks of what its filter selects (``asked_attribute``),
    for a question on one resource whose filter was not relaxed; None otherwise. ``schema_of``:
    a resource's schema by name."""
    live = [p for p in state["resource_plans"] if p["error"] is None]
    if len(live) != 1 or state["relaxations"] or live[0]["filter"] is None or live[0].get("guessed") \
            or live[0].get("partial"):
        # A value read by meaning may select another record than the one asked about; a condition
        # the filter does not hold ("in 2019") asks of a value the record may not hold.
        return None
    return asked_attribute(state["standalone_question"], planned_text(state), schema_of(live[0]["resource"]),
                           live[0]["filter"])


def planned_text(state: SelfRagState) -> str:
    """The self-query's search text: the question minus the conditions its filter holds (one
    resource; with several, the question). Not the rewritten search text: a rewrite changes what is
    searched for, not what the question asks, and it may put the filter's words back."""
    plans = state["resource_plans"]
    return plans[0]["query"] if len(plans) == 1 else state["standalone_question"]


def judged_text(state: SelfRagState) -> str:
    """What a document or an answer must address: the planned search text when a filter holds the
    question's conditions ("positive reviews", "films by directors born in Ohio": a document need not
    state them), else the question (no filter, or one relaxed to find anything)."""
    text = planned_text(state)
    if filtered(state) and len(content_terms(text)) >= 2:
        return text
    return state["standalone_question"]


def decided_verdict(kind: str, generation: int, passed: bool, label: str, reason: str, *, failed: bool = False,
                    model: str = "deterministic", prompt_version: str = "",
                    claims: list[dict[str, object]] | None = None) -> Verdict:
    """A verdict the workflow decides itself (memory, a verbatim quote, a failed generation)."""
    return Verdict(kind=kind, subject=None, passed=passed, label=label, reason=reason, llm_label=None, score=None,
                   failed=failed, error=None, attempts=0, prompt_version=prompt_version, model=model,
                   generation=generation, claims=claims or [])


def filter_held_figures(state: SelfRagState) -> list[Figure]:
    """The figures a filter holds (1990 of "acquired after 1990", the 4 of "room 4"): the values of
    its conditions, while a filter holds the question's conditions (never once relaxed). The
    documents it selected satisfy them without stating them."""
    if not filtered(state):
        return []
    values: list[object] = []
    for plan in state["resource_plans"]:
        if plan["error"] is None and plan["filter"] is not None:
            filter_values(plan["filter"], values)
    return [f for v in values for f in figures(str(v))]
