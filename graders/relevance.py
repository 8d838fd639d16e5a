"""Relevance: is a retrieved document relevant to the question? Graded concurrently, one call each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.runnables.config import ContextThreadPoolExecutor

from graders.base import CaseInputs, StructuredGrader
from graders.prompts import RELEVANCE_V1
from graders.registry import register
from graders.signals import term_overlap
from graders.verdicts import GradeResult, RelevanceGrade
from selfrag.fencing import document_text, fence

__all__ = ["RelevanceGrader"]


@register
class RelevanceGrader(StructuredGrader):
    """Grades one document against a question.

    Signal: the larger of the retrieval similarity (``score`` in the document mapping, when the
    caller has it) and the share of the question's content terms found in the document and its
    metadata. The second catches documents selected by the self-queried filter whose text alone
    is far from the question ("a science fiction film rated above 8.5").
    """

    kind = "relevance"
    schema = RelevanceGrade
    positive = "relevant"
    negative = "irrelevant"
    default_prompt = RELEVANCE_V1
    fields = frozenset({"question", "document"})
    # The embedded 135M model says "relevant" to nearly everything: its verdict must clear the
    # retrieval cosine. Thresholds chosen on the shipped samples (tune with the grader experiments).
    profiles = {"local": ("signal", 0.3), "openai": ("llm", 0.5)}

    def grade_case(self, case: CaseInputs) -> GradeResult:
        doc = dict(case.documents[0])
        if case.score is not None:
            doc["score"] = case.score
        return self.grade(case.question, doc)

    @classmethod
    def case_problem(cls, case: CaseInputs) -> str | None:
        ok = case.question and len(case.documents) == 1
        return None if ok else "a relevance case needs a question and exactly one document"

    def grade(self, question: str, document: Mapping[str, Any]) -> GradeResult:
        """Grade ``document`` (a mapping with ``text``, optional ``id`` and ``score``)."""
        fields = {"question": fence("question", question), "document": fence("document", document_text(document))}
        raw = {"question": question, "document": document}
        return self._grade(fields, raw, subject=str(document.get("id")) if document.get("id") is not None else None)

    def grade_many(
        self, question: str, documents: Sequence[Mapping[str, Any]], *, concurrency: int = 4
    ) -> list[GradeResult]:
        """Grade every document at once (bounded by ``concurrency``); results keep the input order."""
        if not documents:
            return []
        workers = max(1, min(concurrency, len(documents)))
        if workers == 1:
            return [self.grade(question, d) for d in documents]
        # ContextThreadPoolExecutor carries the run's callbacks (LLM call counting) into the workers.
        with ContextThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda d: self.grade(question, d), documents))

    def _signal(self, raw: Mapping[str, Any]) -> float | None:
        doc = raw["document"]
        overlap = term_overlap(str(raw["question"]), document_text(doc))
        score = doc.get("score")
        if isinstance(score, (int, float)):
            return max(overlap, min(1.0, float(score)))
        return overlap
