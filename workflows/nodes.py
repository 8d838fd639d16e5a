"""The nodes of the Self-RAG graph, one small function each, named as in the diagram, grouped by
phase: plan (``workflows.plan_nodes``), search (``workflows.search_nodes``) and answer
(``workflows.answer_nodes``). This module declares them (``NODES``): what the rest of the house
derives from a node.

Nodes read the state and the run's options (``Runtime[RunOptions]``), call out through
``Components``, and return only the fields they write. They never raise to steer the graph:
routing (``workflows.routing``) decides from the state alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langgraph.graph import END
from langgraph.runtime import Runtime

from workflows import records as rec
from workflows import routing, summaries
from workflows.answer_nodes import AnswerNodes
from workflows.options import RunOptions
from workflows.plan_nodes import PlanNodes
from workflows.search_nodes import SearchNodes
from workflows.state import SelfRagState
from workflows.summaries import NodeSummary
from workflows.tracing import node_span

__all__ = ["ENTRY", "NODES", "NODE_NAMES", "Node", "NodeSpec", "SelfRagNodes", "node_spec", "recursion_limit_for",
           "timed"]

Node = Callable[[SelfRagState, Runtime[RunOptions]], dict[str, Any]]


def timed(name: str, fn: Node, tracer: Any = None) -> Node:
    """Append the node's wall time to ``timings`` (the trace's path comes from it); with an
    OpenTelemetry ``tracer``, run it inside a span (``workflows.tracing``)."""

    def node(state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        start = time.perf_counter()
        with node_span(tracer, name):
            update = fn(state, runtime)
        ms = round((time.perf_counter() - start) * 1000, 2)
        return {**update, "timings": [*state["timings"], rec.Timing(node=name, ms=ms)]}

    node.__name__ = name
    return node


class SelfRagNodes(PlanNodes, SearchNodes, AnswerNodes):
    """Every node of the graph over one set of components."""

    def as_dict(self, table: Sequence[NodeSpec] | None = None) -> dict[str, Node]:
        """Each node of ``table`` (``NODES`` unless given), timed, under its name."""
        return {spec.name: timed(spec.name, spec.run.__get__(self), self.c.tracer) for spec in table or NODES}


@dataclass(frozen=True)
class NodeSpec:
    """Everything the rest of the house derives from a node: declare a node here and only here.

    ``NODES`` is the edge table: each row is a node and where it may go next. The graphs compile
    from it (``workflows.graph``: the engine's whole graph, the retriever's half); the SSE stream
    and the CLI's progress read ``summarize``; the recursion limit counts ``repeats``; per-turn
    resets come from the state type. Adding a node is its module, a row here, and a test.
    """

    name: str
    run: Callable[..., dict[str, Any]]
    """``(nodes, state, runtime) -> the fields it writes``: a ``SelfRagNodes`` method, or any
    function of that shape (it is bound to the graph's ``SelfRagNodes``)."""
    then: tuple[str, ...] = ()
    """The nodes it may go to next (``END`` for the last); one, unless ``route`` picks among them."""
    route: Callable[[SelfRagState], str] | None = None
    """Picks the next node from the state (``workflows.routing``); None: always ``then[0]``."""
    summarize: Callable[[SelfRagState], NodeSummary] = summaries.written
    """What it did, from its update: the CLI's progress line and the SSE event's data (by default
    the fields it wrote; a node with something better to say has its own in ``workflows.summaries``)."""
    event: str | None = None
    """The SSE event it streams as (the diagram's name), or None for bookkeeping nodes."""
    repeats: Literal["once", "rewrite", "generation"] = "once"
    """Which budget can make it run again in one turn (each rewrite, each generation)."""


ENTRY = "condense"
"""The node every turn starts at."""

NODES: tuple[NodeSpec, ...] = (
    NodeSpec("condense", SelfRagNodes.condense, ("self_query", "finalize"), routing.after_condense,
             summaries.condense),
    NodeSpec("self_query", SelfRagNodes.self_query, ("graph_resolve", "latest", "retrieve", "finalize"), routing.after_self_query,
             summaries.self_query, event="self_query"),
    NodeSpec("graph_resolve", SelfRagNodes.graph_resolve, ("latest", "retrieve", "finalize"),
             routing.after_graph_resolve, summaries.graph_resolve, event="graph_resolve"),
    NodeSpec("latest", SelfRagNodes.latest, ("grade_documents", "finalize"), routing.after_retrieve, summaries.latest,
             event="latest"),
    NodeSpec("retrieve", SelfRagNodes.retrieve, ("grade_documents", "finalize"), routing.after_retrieve,
             summaries.retrieve, event="retrieve", repeats="rewrite"),
    NodeSpec("grade_documents", SelfRagNodes.grade_documents, ("generate", "rewrite", "finalize"), routing.after_grade,
             summaries.grade_documents, event="grade", repeats="rewrite"),
    NodeSpec("rewrite", SelfRagNodes.rewrite, ("retrieve", "finalize"), routing.after_rewrite, summaries.rewrite,
             event="rewrite", repeats="rewrite"),
    NodeSpec("generate", SelfRagNodes.generate, ("check",), None, summaries.generate, event="generate",
             repeats="generation"),
    NodeSpec("check", SelfRagNodes.check, ("generate", "rewrite", "finalize"), routing.after_check, summaries.check,
             event="check", repeats="generation"),
    NodeSpec("finalize", SelfRagNodes.finalize, (END,), None, summaries.finalize),
)
NODE_NAMES = tuple(spec.name for spec in NODES)
_BY_NAME = {spec.name: spec for spec in NODES}


def node_spec(name: str) -> NodeSpec | None:
    """The declaration of the node ``name`` (None for a name the graph does not have)."""
    return _BY_NAME.get(name)


def recursion_limit_for(max_rewrites: int, max_generations: int, table: Sequence[NodeSpec] = NODES) -> int:
    """A LangGraph recursion limit that the budgets can never reach.

    Each node runs once per turn, plus once more per rewrite or generation its ``repeats`` names;
    a margin absorbs the rest. The budgets, not this limit, are what stop the loop.
    """
    extra = {"once": 0, "rewrite": max_rewrites, "generation": max_generations}
    return sum(1 + extra[spec.repeats] for spec in table) + 5
