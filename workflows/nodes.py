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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from langgraph.runtime import Runtime

from workflows import records as rec
from workflows import summaries
from workflows.answer_nodes import AnswerNodes
from workflows.options import RunOptions
from workflows.plan_nodes import PlanNodes
from workflows.search_nodes import SearchNodes
from workflows.state import SelfRagState
from workflows.summaries import NodeSummary
from workflows.tracing import node_span

__all__ = ["NODES", "NODE_NAMES", "Node", "NodeSpec", "SelfRagNodes", "node_spec", "recursion_limit_for", "timed"]

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

    def as_dict(self, specs: tuple[NodeSpec, ...] | None = None) -> dict[str, Node]:
        """Each declared node (``NODES`` unless given), timed, under its name."""
        return {spec.name: timed(spec.name, spec.run.__get__(self), self.c.tracer) for spec in specs or NODES}


@dataclass(frozen=True)
class NodeSpec:
    """Everything the rest of the house derives from a node: declare a node here and only here.

    The graph registers ``run`` under ``name`` (its edges stay in ``workflows.graph``: where a
    node sits is the diagram's business); the SSE stream and the CLI's progress read
    ``summarize``; the recursion limit counts ``repeats``; per-turn resets come from the state type.
    """

    name: str
    run: Callable[..., dict[str, Any]]
    """A ``SelfRagNodes`` method: ``(self, state, runtime) -> the fields it writes``."""
    summarize: Callable[[SelfRagState], NodeSummary] = summaries.written
    """What it did, from its update: the CLI's progress line and the SSE event's data (by default
    the fields it wrote; a node with something better to say has its own in ``workflows.summaries``)."""
    event: str | None = None
    """The SSE event it streams as (the diagram's name), or None for bookkeeping nodes."""
    repeats: Literal["once", "rewrite", "generation"] = "once"
    """Which budget can make it run again in one turn (each rewrite, each generation)."""


NODES: tuple[NodeSpec, ...] = (
    NodeSpec("condense", SelfRagNodes.condense, summaries.condense, event=None),
    NodeSpec("self_query", SelfRagNodes.self_query, summaries.self_query, event="self_query"),
    NodeSpec("graph_resolve", SelfRagNodes.graph_resolve, summaries.graph_resolve, event="graph_resolve"),
    NodeSpec("latest", SelfRagNodes.latest, summaries.latest, event="latest"),
    NodeSpec("retrieve", SelfRagNodes.retrieve, summaries.retrieve, event="retrieve", repeats="rewrite"),
    NodeSpec("grade_documents", SelfRagNodes.grade_documents, summaries.grade_documents, event="grade", repeats="rewrite"),
    NodeSpec("rewrite", SelfRagNodes.rewrite, summaries.rewrite, event="rewrite", repeats="rewrite"),
    NodeSpec("generate", SelfRagNodes.generate, summaries.generate, event="generate", repeats="generation"),
    NodeSpec("check", SelfRagNodes.check, summaries.check, event="check", repeats="generation"),
    NodeSpec("finalize", SelfRagNodes.finalize, summaries.finalize, event=None),
)
NODE_NAMES = tuple(spec.name for spec in NODES)
_BY_NAME = {spec.name: spec for spec in NODES}


def node_spec(name: str) -> NodeSpec | None:
    """The declaration of the node ``name`` (None for a name the graph does not have)."""
    return _BY_NAME.get(name)


def recursion_limit_for(max_rewrites: int, max_generations: int) -> int:
    """A LangGraph recursion limit that the budgets can never reach.

    Each node runs once per turn, plus once more per rewrite or generation its ``repeats`` names;
    a margin absorbs the rest. The budgets, not this limit, are what stop the loop.
    """
    extra = {"once": 0, "rewrite": max_rewrites, "generation": max_generations}
    return sum(1 + extra[spec.repeats] for spec in NODES) + 5
