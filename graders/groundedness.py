"""Groundedness: is every claim of the answer supported by the documents it was generated from?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graders.base import StructuredGrader
from graders.fencing import document_text, fence, fence_documents
from graders.prompts import GROUNDEDNESS_V1
from graders.signals import lexical_support
from graders.verdicts import GradeResult, GroundednessGrade

__all__ = ["GroundednessGrader"]


class GroundednessGrader(StructuredGrader):
    """Signal: lexical support, the share of the answer's content terms found in the documents."""

    kind = "groundedness"
    schema = GroundednessGrade
    positive = "grounded"
    negative = "ungrounded"
    default_prompt = GROUNDEDNESS_V1

    def grade(self, answer: str, documents: Sequence[Mapping[str, Any]]) -> GradeResult:
        fields = {"documents": fence_documents(documents), "answer": fence("answer", answer)}
        return self._grade(fields, {"answer": answer, "documents": documents})

    def _signal(self, raw: Mapping[str, Any]) -> float | None:
        return lexical_support(str(raw["answer"]), [document_text(d) for d in raw["documents"]])
