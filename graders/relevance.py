"""Relevance: is a retrieved document relevant to the question? Graded concurrently, one call each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.runnables.config import ContextThreadPoolExecutor

from graders.base import CaseInputs, Combine, StructuredGrader
from graders.prompts import RELEVANCE_V1
from graders.registry import register
from graders.verdicts import GradeResult, RelevanceGrade
from selfrag.fencing import document_text, fence

__all__ = ["RelevanceGrader"]


@register
class RelevanceGrader(StructuredGrader):
    """Grades one document against a question.

    Signal: the critic's relevance probability (ISREL) for the question and the document's text
    with its metadata line, all of a question's documents in one batch.
    """

    kind = "relevance"
    schema = RelevanceGrade
    positive = "relevant"
    negative = "irrelevant"
    default_prompt = RELEVANCE_V1
    fields = frozenset({"question", "document"})
    critic_task = "relevance"

    def grade_case(self, case: CaseInputs) -> GradeResult:
        return self.grade(case.question, dict(case.documents[0]))

    @classmethod
    def case_problem(cls, case: CaseInputs) -> str | None:
        ok = case.question and len(case.documents) == 1
        return None if ok else "a relevance case needs a question and exactly one document"

    def grade(self, question: str, document: Mapping[str, Any], *, score: float | None = None) -> GradeResult:
        """Grade ``document`` (a mapping with ``text``, optional ``id`` and ``metadata``)."""
        fields = {"question": fence("question", question), "document": fence("document", document_text(document))}
        raw = {"question": question, "document": document}
        return self._grade(fields, raw, subject=str(document.get("id")) if document.get("id") is not None else None,
                           score=score)

    def grade_many(
        self, question: str, documents: Sequence[Mapping[str, Any]], *, concurrency: int = 4
    ) -> list[GradeResult]:
        """Grade every document at once (the critic in one batch, model calls bounded by
        ``concurrency``); results keep the input order."""
        if not documents:
            return []
        scores: list[float | None] = [None] * len(documents)
        if self.critic is not None and self.config.combine is not Combine.LLM:
            scores = list(self.critic.score("relevance", [question] * len(documents),
                                            [document_text(d) for d in documents]))
        pairs = list(zip(documents, scores, strict=True))
        workers = max(1, min(concurrency, len(documents)))
        if workers == 1 or self.config.combine is Combine.SIGNAL:
            return [self.grade(question, d, score=s) for d, s in pairs]
        # ContextThreadPoolExecutor carries the run's callbacks (LLM call counting) into the workers.
        with ContextThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda p: self.grade(question, p[0], score=p[1]), pairs))

    def _signal(self, raw: Mapping[str, Any]) -> float | None:
        if self.critic is None:
            return None
        return self.critic.score("relevance", [str(raw["question"])], [document_text(raw["document"])])[0]
