"""The Self-RAG workflow: graph state, nodes, routing, budgets, outcomes and the engine around them."""

from workflows.components import Components
from workflows.condense import Condenser
from workflows.engine import MAX_QUESTION_CHARS, NodeEvent, SelfRagEngine, ThreadInfo
from workflows.generation import AnswerGenerator, Generation
from workflows.graph import build_graph, mermaid
from workflows.nodes import NODES, NodeSpec, recursion_limit_for
from workflows.options import RunOptions
from workflows.outcomes import Citation, LLMUsage, Outcome, Result, Trace
from workflows.records import (
    CitedDocument,
    Document,
    GeneratedAnswer,
    GradedDocument,
    Relaxation,
    RewriteRecord,
    Timing,
)
from workflows.resources import Resource, ResourceSearch
from workflows.retrieval import RetrievalStage
from workflows.rewrite import QueryRewriter
from workflows.state import SelfRagState, Turn
from workflows.summaries import NodeSummary

__all__ = [
    "MAX_QUESTION_CHARS",
    "NODES",
    "AnswerGenerator",
    "Citation",
    "CitedDocument",
    "Components",
    "Condenser",
    "Document",
    "GeneratedAnswer",
    "Generation",
    "GradedDocument",
    "LLMUsage",
    "NodeEvent",
    "NodeSpec",
    "NodeSummary",
    "Outcome",
    "QueryRewriter",
    "Relaxation",
    "Resource",
    "ResourceSearch",
    "Result",
    "RetrievalStage",
    "RewriteRecord",
    "RunOptions",
    "SelfRagEngine",
    "SelfRagState",
    "ThreadInfo",
    "Timing",
    "Trace",
    "Turn",
    "build_graph",
    "mermaid",
    "recursion_limit_for",
]
