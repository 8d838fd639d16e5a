"""The engine's retrieval half as a LangChain ``BaseRetriever`` (``engine.as_retriever()``).

Like LangChain's ``SelfQueryRetriever``, it turns a question into a semantic query and a
validated metadata filter, then searches; here that is the engine's own nodes, compiled into a
small graph of their own, so the retriever behaves exactly as a run does up to its grading:

    START → self_query ─┬→ graph_resolve ─┬→ latest ───→ END
                        │                 └→ retrieve ─→ END
                        ├→ latest ───────────────────→ END
                        └→ retrieve ─────────────────→ END

(filter relaxation, and whatever else the ``retrieve`` node does, happen inside ``retrieve``).
No grading, no generation. A question whose name is ambiguous in a linked knowledge graph, or whose
relation reaches no entity, finds no document. Each document's metadata holds its own, plus
``id``, ``score``, ``collection``, the ``query`` searched for and the ``where`` used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LCDocument
from langchain_core.retrievers import BaseRetriever
from langgraph.graph.state import CompiledStateGraph
from pydantic import ConfigDict

from workflows.components import Components
from workflows.graph import compile_table
from workflows.nodes import NODES, SelfRagNodes
from workflows.options import RunOptions
from workflows.records import Document
from workflows.resources import resolve_resources
from workflows.state import per_turn_reset

if TYPE_CHECKING:
    from workflows.engine import SelfRagEngine

__all__ = ["RETRIEVAL_NODES", "EngineRetriever", "build_retrieval_graph", "to_langchain"]

RETRIEVAL_NODES = ("self_query", "graph_resolve", "latest", "retrieve")
"""The engine's nodes the retriever runs, in the order of the diagram."""


def build_retrieval_graph(
    components: Components, *, today: Callable[[], date] = date.today
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the retrieval half of the Self-RAG graph: the engine's own nodes and edges (the
    edge table), from ``self_query`` on, ending where the engine would go on to grade."""
    nodes = SelfRagNodes(components, today=today).as_dict()
    return compile_table(NODES, nodes, entry="self_query", only=RETRIEVAL_NODES, name="selfrag_retrieval")


def to_langchain(doc: Document, collection: str, **extra: Any) -> LCDocument:
    """A retrieved document as LangChain's ``Document``: its text, and its metadata plus ``id``,
    ``score``, ``collection`` and ``extra`` (the face's own keys win over a document's)."""
    return LCDocument(
        page_content=doc["text"], id=doc["id"],
        metadata={**doc["metadata"], "id": doc["id"], "score": doc["score"], "collection": collection, **extra},
    )


class EngineRetriever(BaseRetriever):
    """Self-query, graph filter and retrieval of one collection, without generation.

    Build it with ``engine.as_retriever(collection=...)``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    engine: Any
    """The ``SelfRagEngine`` whose components and defaults it uses."""
    graph: Any
    """``build_retrieval_graph`` of the engine's components."""
    collection: str
    options: RunOptions | None = None
    """Run options (``top_k``, ``min_score``, ``mandatory_where``…); None: the engine's defaults."""

    @classmethod
    def of(cls, engine: SelfRagEngine, *, collection: str, options: RunOptions | None = None) -> EngineRetriever:
        graph = build_retrieval_graph(engine.components, today=engine.today)
        return cls(engine=engine, graph=graph, collection=collection, options=options)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[LCDocument]:
        question = self.engine.check_question(query)
        self.engine.components.store.get_collection(self.collection)  # unknown: CollectionNotFound, before any work
        opts: RunOptions = self.options or self.engine.defaults
        _, targets = resolve_resources(self.collection, None, opts.search_defaults)
        opts = replace(opts, resources=targets)
        inputs = {
            **per_turn_reset(),
            "question": question,
            "standalone_question": question,  # no thread: the question stands alone (no condense)
            "collection": self.collection,
            "max_rewrites": opts.max_rewrites,
            "max_generations": opts.max_generations,
        }
        state = self.graph.invoke(inputs, {"callbacks": run_manager.get_child()}, context=opts)
        if state["stop_reason"]:  # an ambiguous name or an empty entity set: nothing can match
            return []
        return [to_langchain(d, d["resource"], query=state["query"], where=state["where"]) for d in state["documents"]]
