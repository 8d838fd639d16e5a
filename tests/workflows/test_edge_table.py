"""The edge table (``workflows.nodes.NODES``) is where a node is declared and placed: adding one is
its function, a row, and a test (issue 28). The retriever's graph compiles from the same table."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from tests.workflows.conftest import happy
from workflows import NODES, NodeSpec, Outcome, RunOptions, SelfRagEngine
from workflows.nodes import SelfRagNodes
from workflows.options import RunOptions as Options
from workflows.retriever import RETRIEVAL_NODES, build_retrieval_graph
from workflows.state import SelfRagState

Q = "Which movie is about toys coming alive?"


def stamp(nodes: SelfRagNodes, state: SelfRagState, runtime: Runtime[Options]) -> dict[str, Any]:
    """A toy node between generate and check: marks the latest answer (a module of its own would hold it)."""
    gens = [dict(g) for g in state["generations"]]
    gens[-1]["answer"] = gens[-1]["answer"] + " (stamped)"
    return {"generations": gens}


def with_stamp() -> tuple[NodeSpec, ...]:
    """The edge table with the toy node added: its row, and generate's edge now leading to it."""
    rows = [replace(s, then=("stamp",)) if s.name == "generate" else s for s in NODES]
    return (*rows, NodeSpec("stamp", stamp, ("check",), repeats="generation"))


def test_a_node_added_through_the_edge_table_runs_in_the_graph(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy())
    toy = SelfRagEngine(engine.components, defaults=RunOptions(), table=with_stamp())
    result = toy.run(Q, collection="movies")
    assert result.trace.path == ["condense", "self_query", "retrieve", "grade_documents", "generate", "stamp",
                                 "check", "finalize"]
    assert result.outcome is Outcome.ANSWERED and result.answer.endswith("(stamped)")
    # Unchanged elsewhere: the engine built from the plain table never runs it.
    assert "stamp" not in engine.run(Q, collection="movies").trace.path


def test_the_retrievers_graph_is_the_engines_table_from_self_query_on(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy())
    graph = build_retrieval_graph(engine.components).get_graph()
    assert set(graph.nodes) - {"__start__", "__end__"} == set(RETRIEVAL_NODES)
    edges = {(e.source, e.target) for e in graph.edges}
    assert ("__start__", "self_query") in edges and ("retrieve", "__end__") in edges
    assert ("latest", "__end__") in edges and ("graph_resolve", "__end__") in edges
    # Every edge between two retrieval nodes is one the engine's graph has.
    full = {(e.source, e.target) for e in engine._graph.get_graph().edges}
    assert {e for e in edges if "__end__" not in e and "__start__" not in e} <= full
