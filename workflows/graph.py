"""Assembly of the Self-RAG graph. Reads like the diagram in the README:

    START → condense → self_query → retrieve → grade_documents ─┬→ generate → check ─┬→ finalize → END
                                      ↑              ↑            │                    ├→ generate (ungrounded)
                                      │              └─ rewrite ←─┘ (none relevant)    └→ rewrite  (not useful)
                                      └─ (filter relaxation happens inside retrieve)

    condense → finalize: a question about the conversation itself, answered from its memory.
    self_query → graph_resolve → retrieve: relation conditions resolved to entity sets first;
        graph_resolve → finalize when a name is ambiguous (needs_clarification) or a set is empty.
    self_query/graph_resolve → latest → grade_documents: filters but no topic, newest first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from workflows import routing
from workflows.components import Components
from workflows.nodes import NODES, Node, SelfRagNodes
from workflows.options import RunOptions
from workflows.state import SelfRagState

__all__ = ["build_graph", "mermaid"]


def build_graph(
    components: Components,
    *,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    today: Callable[[], date] = date.today,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the Self-RAG graph around ``components``; pass a checkpointer for thread memory."""
    return _assemble(SelfRagNodes(components, today=today).as_dict(), checkpointer)


def _assemble(nodes: Mapping[str, Node], checkpointer: BaseCheckpointSaver[Any] | None) -> CompiledStateGraph[Any, Any, Any, Any]:
    g: StateGraph[Any, Any, Any, Any] = StateGraph(SelfRagState, context_schema=RunOptions)
    for name, fn in nodes.items():
        g.add_node(name, fn)  # type: ignore[call-overload]
    g.add_edge(START, "condense")
    g.add_conditional_edges("condense", routing.after_condense, ["self_query", "finalize"])
    g.add_conditional_edges("self_query", routing.after_self_query, ["graph_resolve", "latest", "retrieve"])
    g.add_conditional_edges("graph_resolve", routing.after_graph_resolve, ["latest", "retrieve", "finalize"])
    g.add_conditional_edges("latest", routing.after_retrieve, ["grade_documents", "finalize"])
    g.add_conditional_edges("retrieve", routing.after_retrieve, ["grade_documents", "finalize"])
    g.add_conditional_edges("grade_documents", routing.after_grade, ["generate", "rewrite", "finalize"])
    g.add_conditional_edges("rewrite", routing.after_rewrite, ["retrieve", "finalize"])
    g.add_edge("generate", "check")
    g.add_conditional_edges("check", routing.after_check, ["generate", "rewrite", "finalize"])
    g.add_edge("finalize", END)
    return g.compile(checkpointer=checkpointer, name="selfrag")


def _never_run(state: SelfRagState, runtime: Any) -> dict[str, Any]:
    raise AssertionError("a graph compiled for drawing is never run")


def mermaid() -> str:
    """The workflow as a Mermaid diagram (drawing needs the topology only: no model or store)."""
    return _assemble({spec.name: _never_run for spec in NODES}, None).get_graph().draw_mermaid()
