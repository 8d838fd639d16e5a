"""Groundedness: is every claim of the answer supported by the documents it was generated from?"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from graders.base import CaseInputs, StructuredGrader
from graders.claims import check_claims, claim_score
from graders.prompts import GROUNDEDNESS_V1
from graders.registry import register
from graders.verdicts import GradeResult, GroundednessGrade
from selfrag.fencing import fence, fence_documents

__all__ = ["GroundednessGrader"]


@register
class GroundednessGrader(StructuredGrader):
    """Signal: claim-level support (``graders.claims``), the weakest claim's score.

    Each claim of the answer must be stated by one passage: its figures, years and names together,
    each figure about the same thing it is said to measure. The per-claim records go into the
    result's ``claims`` for the trace.
    """

    kind = "groundedness"
    schema = GroundednessGrade
    positive = "grounded"
    negative = "ungrounded"
    default_prompt = GROUNDEDNESS_V1
    fields = frozenset({"documents", "answer"})
    # Locally, lexical support (numbers weigh double) decides; with an API model, both must agree.
    profiles = {"local": ("signal", 1.0), "openai": ("both", 0.5)}

    def grade_case(self, case: CaseInputs) -> GradeResult:
        return self.grade(case.answer, case.documents, case.question)

    @classmethod
    def case_problem(cls, case: CaseInputs) -> str | None:
        return None if case.answer and case.documents else "a groundedness case needs an answer and documents"

    def grade(self, answer: str, documents: Sequence[Mapping[str, Any]], question: str | None = None) -> GradeResult:
        """Grade ``answer`` against ``documents``; ``question`` lets a bare figure ("$611 billion")
        be checked against what was asked about, and the question's years against the source."""
        claims = check_claims(answer, documents, question)
        fields = {"documents": fence_documents(documents), "answer": fence("answer", answer)}
        result = self._grade(fields, {"score": claim_score(claims)})
        weakest = min(claims, key=lambda c: c.score, default=None)
        vetoed = result.llm_label != self.negative  # the signal decided, not the model's own "ungrounded"
        if not result.passed and not result.failed and vetoed and weakest is not None and not weakest.supported:
            result = dataclasses.replace(result, reason=f"claim not supported: {weakest.reason}")
        return dataclasses.replace(result, claims=tuple(c.to_dict() for c in claims))

    def _signal(self, raw: Mapping[str, Any]) -> float | None:
        return float(raw["score"])
