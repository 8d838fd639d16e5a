"""The Self-RAG graders: relevance, groundedness, usefulness, and any other registered one.

Each returns a ``GradeResult`` with a verdict, a reason, its prompt version and who decided (the
trained critic, the model, or both), after bounded retries (``selfrag.retry``, imported from there: this package is graders only) and an explicit
failure policy (``graders.policy``). The critic's calibrated probability is every grader's signal.
"""

from graders.base import CaseInputs, Combine, GraderConfig, StructuredGrader, model_label
from graders.figures import unsupported_figures
from graders.groundedness import Claim, GroundednessGrader, answer_claims
from graders.policy import FailurePolicy
from graders.prompts import GROUNDEDNESS_V1, RELEVANCE_V1, USEFULNESS_V1, PromptSpec
from graders.registry import GRADERS, grader_kinds, register
from graders.relevance import RelevanceGrader
from graders.usefulness import UsefulnessGrader
from graders.verdicts import GradeResult, GraderKind, GroundednessGrade, RelevanceGrade, UsefulnessGrade, Verdict

__all__ = [
    "GRADERS",
    "GROUNDEDNESS_V1",
    "RELEVANCE_V1",
    "USEFULNESS_V1",
    "CaseInputs",
    "Claim",
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
    "StructuredGrader",
    "UsefulnessGrade",
    "UsefulnessGrader",
    "Verdict",
    "answer_claims",
    "grader_kinds",
    "model_label",
    "register",
    "unsupported_figures",
]
