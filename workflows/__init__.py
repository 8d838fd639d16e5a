"""The Self-RAG workflow: graph state, nodes, routing, budgets, outcomes and the engine around them."""

from workflows.components import CollectionLike, Components, StoreLike
from workflows.condense import Condenser
from workflows.engine import MAX_QUESTION_CHARS, NodeEvent, SelfRagEngine, ThreadInfo
from workflows.generation import AnswerGenerator, Generation
from workflows.graph import build_graph, mermaid
from workflows.options import RunOptions, recursion_limit_for
from workflows.outcomes import Citation, LLMUsage, Outcome, Result, Trace
from workflows.rewrite import QueryRewriter
from workflows.state import SelfRagState, Turn

__all__ = [
    "MAX_QUESTION_CHARS",
    "AnswerGenerator",
    "Citation",
    "CollectionLike",
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
    "StoreLike",
    "ThreadInfo",
    "Trace",
    "Turn",
    "build_graph",
    "mermaid",
    "recursion_limit_for",
]
