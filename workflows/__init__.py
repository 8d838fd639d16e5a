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
    Verdict,
)
from workflows.rewrite import QueryRewriter
from workflows.state import SelfRagState, Turn
from workflows.summaries import NodeSummary

__all__ = [
    "MAX_QUESTION_CHARS",
    "NODES",
    "CitedDocument",
    "Document",
    "GeneratedAnswer",
    "GradedDocument",
    "NodeSpec",
    "NodeSummary",
    "Relaxation",
    "RewriteRecord",
    "Timing",
    "Verdict",
    "AnswerGenerator",
    "Citation",
    "Components",
    "Condenser",
    "Generation",
    "LLMUsage",
    "NodeEvent",
    "Outcome",
    "QueryRewriter",
    "Result",
    "RunOptions",
    "SelfRagEngine",
    "SelfRagState",
    "ThreadInfo",
    "Trace",
    "Turn",
    "build_graph",
    "mermaid",
    "recursion_limit_for",
]
