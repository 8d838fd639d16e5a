"""The Self-RAG graders: relevance, groundedness, usefulness, and any other registered one.

Each returns a ``GradeResult`` with a verdict, a reason, its prompt version and model, after
bounded retries (``selfrag.retry``) and an explicit failure policy (``graders.policy``).
"""

from graders.base import CaseInputs, Combine, GraderConfig, StructuredGrader, model_label
from graders.groundedness import GroundednessGrader
from graders.policy import FailurePolicy
from graders.prompts import GROUNDEDNESS_V1, RELEVANCE_V1, USEFULNESS_V1, PromptSpec
from graders.registry import GRADERS, grader_kinds, register
from graders.relevance import RelevanceGrader
from graders.signals import lexical_support, term_overlap
from graders.usefulness import UsefulnessGrader
from graders.verdicts import GradeResult, GraderKind, GroundednessGrade, RelevanceGrade, UsefulnessGrade, Verdict
from selfrag.retry import RetryPolicy, call_with_retries, is_retryable
from selfrag.text import content_terms

__all__ = [
    "GRADERS",
    "GROUNDEDNESS_V1",
    "RELEVANCE_V1",
    "USEFULNESS_V1",
    "CaseInputs",
    "Combine",
    "FailurePolicy",
    "GradeResult",
    "GraderConfig",
    "GraderKind",
    "GroundednessGrade",
    "GroundednessGrader",
    "PromptSpec",
    "RelevanceGrade",
    "RelevanceGrader",
    "RetryPolicy",
    "StructuredGrader",
    "UsefulnessGrade",
    "UsefulnessGrader",
    "Verdict",
    "call_with_retries",
    "content_terms",
    "grader_kinds",
    "is_retryable",
    "lexical_support",
    "model_label",
    "register",
    "term_overlap",
]
