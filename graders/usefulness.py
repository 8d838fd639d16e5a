"""Usefulness: does the answer address the question that was asked?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graders.base import StructuredGrader
from graders.fencing import fence
from graders.prompts import USEFULNESS_V1
from graders.signals import term_overlap
from graders.verdicts import GradeResult, UsefulnessGrade

__all__ = ["UsefulnessGrader"]


class UsefulnessGrader(StructuredGrader):
    """Signal: the share of the question's content terms that the answer takes up."""

    kind = "usefulness"
    schema = UsefulnessGrade
    positive = "useful"
    negative = "not_useful"
    default_prompt = USEFULNESS_V1

    def grade(self, question: str, answer: str) -> GradeResult:
        fields = {"question": fence("question", question), "answer": fence("answer", answer)}
        return self._grade(fields, {"question": question, "answer": answer})

    def _signal(self, raw: Mapping[str, Any]) -> float | None:
        return term_overlap(str(raw["question"]), str(raw["answer"]))
