"""Assembly of the Self-RAG graph. Reads like the diagram in the README:

    START → condense → self_query → retrieve → grade_documents ─┬→ generate → check ─┬→ finalize → END
                                      ↑              ↑            │                    ├→ generate (ungrounded)
                                      │              └─ rewrite ←─┘ (none relevant)    └→ rewrite  (not useful)
                                      └─ (filter relaxation happens inside retrieve)

    condense → finalize: a question about the conversation itself, answered from its memory.
    self_query → graph_resolve → retrieve: relation conditions resolved to entity sets first;
        graph_resolve → finalize when a name is ambiguous (needs_clarification) or a set is empty.
    self_query/graph_resolve → latest → grade_documents: filters but no topic, newest first.

The edges are the edge table's (``workflows.nodes.NODES``: each node and where it may go next);
this module compiles a table, or the part of it from one node on (the retriever's half).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import date
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from workflows.components import Components
from workflows.nodes import ENTRY, NODES, Node, NodeSpec, SelfRagNodes
from workflows.options import RunOptions
from workflows.state import SelfRagState

__all__ = ["build_graph", "compile_table", "mermaid"]


def build_graph(
    components: Components,
    *,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    today: Callable[[], date] = date.today,
    table: Sequence[NodeSpec] = NODES,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the Self-RAG graph (``table``, the edge table) around ``components``; pass a
    checkpointer for thread memory."""
    return compile_table(table, SelfRagNodes(components, today=today).as_dict(table), checkpointer=checkpointer)


def _within(route: Callable[[SelfRagState], str], kept: Collection[str]) -> Callable[[SelfRagState], str]:
    def next_node(state: SelfRagState) -> str:
        chosen = route(state)
        return chosen if chosen in kept else END

    next_node.__name__ = getattr(route, "__name__", "route")
    return next_node


def compile_table(
    table: Sequence[NodeSpec], nodes: Mapping[str, Node], *, entry: str = ENTRY, only: Collection[str] | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None, name: str = "selfrag",
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The graph of ``table``'s rows, starting at ``entry``.

    Args:
        nodes: each row's runnable node by name (``SelfRagNodes.as_dict``).
        only: the rows to keep (None: all); an edge to a row left out ends the run there.
    """
    kept = [spec for spec in table if only is None or spec.name in only]
    names = {spec.name for spec in kept}
    g: StateGraph[Any, Any, Any, Any] = StateGraph(SelfRagState, context_schema=RunOptions)
    for spec in kept:
        g.add_node(spec.name, nodes[spec.name])  # type: ignore[call-overload]
    g.add_edge(START, entry)
    for spec in kept:
        targets = list(dict.fromkeys(t if t in names else END for t in spec.then))
        if spec.route is None:
            [target] = targets
            g.add_edge(spec.name, target)
        elif only is None:
            g.add_conditional_edges(spec.name, spec.route, targets)
        else:
            g.add_conditional_edges(spec.name, _within(spec.route, names), targets)
    return g.compile(checkpointer=checkpointer, name=name)


def _never_run(state: SelfRagState, runtime: Any) -> dict[str, Any]:
    raise AssertionError("a graph compiled for drawing is never run")


def mermaid() -> str:
    """The workflow as a Mermaid diagram (drawing needs the topology only: no model or store)."""
    return compile_table(NODES, {spec.name: _never_run for spec in NODES}).get_graph().draw_mermaid()
