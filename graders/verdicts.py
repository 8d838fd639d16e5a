"""What the graders return: the LLM's structured outputs and the graded result around them.

The ``*Grade`` models are the structured-output schemas sent to the model: a ``Literal`` verdict
and a short reason. A small model sometimes writes a long reason; we truncate rather than reject,
because the verdict is what matters and a retry costs another call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from typing_extensions import TypedDict

__all__ = ["GradeResult", "GraderKind", "GroundednessGrade", "RelevanceGrade", "UsefulnessGrade", "Verdict"]

GraderKind = str
"""A grader's registered name (``graders.registry``): relevance, groundedness, usefulness, or any added one."""
_REASON_MAX = 200


class _Grade(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reason: str = Field(default="", max_length=_REASON_MAX, description="One short sentence explaining the verdict.")

    @field_validator("reason", mode="before")
    @classmethod
    def _short(cls, v: object) -> str:
        text = " ".join(str(v or "").split())
        return text[:_REASON_MAX]


class RelevanceGrade(_Grade):
    """Is this document relevant to the question?"""

    verdict: Literal["relevant", "irrelevant"] = Field(
        description="'relevant' if the document contains information that helps answer the question."
    )


class GroundednessGrade(_Grade):
    """Is every claim of the answer supported by the documents?"""

    verdict: Literal["grounded", "ungrounded"] = Field(
        description="'grounded' only if every claim in the answer is supported by the documents."
    )


class UsefulnessGrade(_Grade):
    """Does the answer address the question?"""

    verdict: Literal["useful", "not_useful"] = Field(
        description="'useful' if the answer addresses the question that was asked."
    )


class Verdict(TypedDict):
    """One grading decision as the trace and checkpoints hold it (plain JSON).

    The one shape of a verdict: the workflow's relevance grades (inside each graded document),
    its groundedness and usefulness checks, and the evaluation's trace rows all use it.
    """

    kind: str
    subject: str | None
    """What was graded: a document id for relevance, None for an answer."""
    passed: bool
    label: str
    reason: str
    llm_label: str | None
    score: float | None
    failed: bool
    error: str | None
    attempts: int
    prompt_version: str
    model: str
    generation: int | None
    """The answer graded (its 1-based number) for groundedness and usefulness; None for relevance."""
    claims: list[dict[str, object]]
    """Per-claim support records (groundedness only; empty otherwise)."""


@dataclass(frozen=True)
class GradeResult:
    """One grading decision, as recorded in the trace.

    ``passed`` is the final boolean after the failure policy and any signal combination;
    ``failed`` says the LLM could not produce a valid verdict and the policy decided instead.
    """

    kind: GraderKind
    passed: bool
    label: str
    """The verdict label (``relevant``/``irrelevant``, ...), or the policy's label on failure."""
    reason: str
    prompt_version: str
    model: str
    attempts: int = 1
    failed: bool = False
    error: str | None = None
    score: float | None = None
    """A deterministic signal in [0, 1] when the grader computes one (e.g. lexical support)."""
    llm_label: str | None = None
    """What the LLM said, before any combination with the signal; None if it failed."""
    subject: str | None = None
    """What was graded (a document id for relevance)."""
    claims: tuple[dict[str, object], ...] = ()
    """Per-claim support records (groundedness only; see ``graders.claims.ClaimSupport``)."""

    def record(self, generation: int | None = None) -> Verdict:
        """This decision as a trace ``Verdict`` (``generation``: the answer it graded, if any)."""
        return Verdict(
            kind=self.kind, subject=self.subject, passed=self.passed, label=self.label, reason=self.reason,
            llm_label=self.llm_label, score=self.score, failed=self.failed, error=self.error,
            attempts=self.attempts, prompt_version=self.prompt_version, model=self.model,
            generation=generation, claims=list(self.claims),
        )
