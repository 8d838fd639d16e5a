"""Usefulness: does the answer state what the question asks for?"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from graders.base import CaseInputs, StructuredGrader
from graders.prompts import USEFULNESS_V1
from graders.registry import register
from graders.verdicts import GradeResult, UsefulnessGrade
from selfrag.fencing import fence

__all__ = ["UsefulnessGrader"]

_MARKERS = re.compile(r"\s*\[\d{1,3}\]")


@register
class UsefulnessGrader(StructuredGrader):
    """Signal: the critic's usefulness probability (ISUSE) for the question and the answer (the
    reader's short answer when there is one: "Yes", "$245 billion", not the quote after it).

    It judges whether the answer addresses the question, not whether it is true (groundedness
    does that); conditions a filter already satisfied ("positive", "latest") are not asked of it.
    """

    kind = "usefulness"
    schema = UsefulnessGrade
    positive = "useful"
    negative = "not_useful"
    default_prompt = USEFULNESS_V1
    fields = frozenset({"question", "answer"})
    critic_task = "usefulness"

    def grade_case(self, case: CaseInputs) -> GradeResult:
        return self.grade(case.question, case.answer, case.documents)

    @classmethod
    def case_problem(cls, case: CaseInputs) -> str | None:
        return None if case.question and case.answer else "a usefulness case needs a question and an answer"

    def grade(self, question: str, answer: str, documents: Sequence[Mapping[str, Any]] = (), *,
              short_answer: str | None = None) -> GradeResult:
        fields = {"question": fence("question", question), "answer": fence("answer", answer)}
        return self._grade(fields, {"question": question, "answer": short_answer or answer})

    def _signal(self, raw: Mapping[str, Any]) -> float | None:
        if self.critic is None:
            return None
        answer = " ".join(_MARKERS.sub("", str(raw["answer"])).split())
        return self.critic.score("usefulness", [str(raw["question"])], [answer])[0] if answer else 0.0
