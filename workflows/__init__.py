"""The Self-RAG workflow: graph state, nodes, routing, budgets, outcomes and the engine around them."""

from workflows.components import Components
from workflows.condense import Condenser
from workflows.engine import MAX_QUESTION_CHARS, NodeEvent, SelfRagEngine
from workflows.extras import Extra, Extras, FinalState
from workflows.generation import AnswerGenerator, Generation
from workflows.graph import build_graph, mermaid
from workflows.nodes import NODES, NodeSpec, recursion_limit_for
from workflows.options import RunOptions
from workflows.outcomes import Citation, LLMUsage, Outcome, Result, Trace
from workflows.records import (
    CitedDocument,
    Document,
    ExtraFailure,
    GeneratedAnswer,
    GradedDocument,
    Relaxation,
    RewriteRecord,
    Timing,
)
from workflows.resources import Resource, ResourceLike, ResourceSearch
from workflows.retrieval import RetrievalStage
from workflows.retriever import EngineRetriever, build_retrieval_graph
from workflows.rewrite import QueryRewriter
from workflows.runnable import AnswerDeltaChunk, EngineRunnable, NodeChunk, RunnableInput, RunnableOutput
from workflows.state import SelfRagState, Turn
from workflows.summaries import NodeSummary
from workflows.threads import ThreadInfo
from workflows.tokens import AnswerDelta, AnswerFinal, AnswerStream

__all__ = [
    "MAX_QUESTION_CHARS",
    "NODES",
    "AnswerDelta",
    "AnswerDeltaChunk",
    "AnswerFinal",
    "AnswerGenerator",
    "AnswerStream",
    "Citation",
    "CitedDocument",
    "Components",
    "Condenser",
    "Document",
    "EngineRetriever",
    "EngineRunnable",
    "Extra",
    "ExtraFailure",
    "Extras",
    "FinalState",
    "GeneratedAnswer",
    "Generation",
    "GradedDocument",
    "LLMUsage",
    "NodeChunk",
    "NodeEvent",
    "NodeSpec",
    "NodeSummary",
    "Outcome",
    "QueryRewriter",
    "Relaxation",
    "Resource",
    "ResourceLike",
    "ResourceSearch",
    "Result",
    "RetrievalStage",
    "RewriteRecord",
    "RunOptions",
    "RunnableInput",
    "RunnableOutput",
    "SelfRagEngine",
    "SelfRagState",
    "ThreadInfo",
    "Timing",
    "Trace",
    "Turn",
    "build_graph",
    "build_retrieval_graph",
    "mermaid",
    "recursion_limit_for",
]
