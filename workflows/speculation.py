"""Speculation below the critical path: search and grade the question as it stands while the
self-query model call runs.

On the happy path a question costs four model latencies one after another: self-query, a
grading round, generate, a checks round (``bench/graph_latency.py``). For a topical question the
self-query changes nothing: no filter, no limit, a search text made of the question's own words.
So ``self_query`` starts the search for the question (with the caller's mandatory filter, the only
one that is certain) and grades each hit beside the model call; when the plan comes back it either
``keep()``s that work, which then *is* the first search and its verdicts (same text, where, k and
min_score, so identical to what ``retrieve`` and ``grade_documents`` would do), or ``drop()``s it:
calls not started are cancelled, calls in flight finish into nothing, and the run goes on exactly
as without speculation. Dropped work costs calls (``discarded_calls``), never the result.

The gate (``should_speculate``) keeps that waste down: the setting is on, the turn is not resumed
from a clarification, the collection links no graph, the planner asks a model (otherwise the plan
takes milliseconds and there is nothing to hide), and the planner's rules-only forecast finds no
filter, limit or date in the question. ``bench/speculation.py`` measures what it saves and wastes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import CancelledError, Future
from datetime import date
from typing import Any

from langchain_core.runnables.config import ContextThreadPoolExecutor

from graders import GradeResult, RelevanceGrader
from selfrag.errors import describe
from selfrag.query import Plan, SelfQueryPlanner, to_where
from selfrag.schema import CollectionSchema
from selfrag.text import content_terms
from workflows import records as rec

__all__ = ["Speculation", "departure", "plan_keeps_question", "should_speculate"]


def departure(plan: Plan, question: str, top_k: int) -> str | None:
    """How ``plan`` searches something other than ``question`` with ``top_k`` results (None: it
    keeps the question: no filter, no graph condition, not newest-first, no other limit, and a
    search text whose content words are all the question's)."""
    query = plan.query
    if query.filter is not None:
        return f"the plan filters: {to_where(query.filter)}"
    if plan.terms:
        return "the plan has conditions through a knowledge graph"
    if plan.latest:
        return "the plan asks for the newest documents"
    if query.limit is not None and query.limit != top_k:
        return f"the plan asks for {query.limit} results, not {top_k}"
    added = content_terms(query.query) - content_terms(question)
    if added:
        return f"the plan's search text adds words the question does not have: {', '.join(sorted(added))}"
    return None


def plan_keeps_question(plan: Plan, question: str, top_k: int) -> bool:
    """Whether ``plan`` searches ``question`` as it stands (see ``departure``)."""
    return departure(plan, question, top_k) is None


def should_speculate(
    planner: SelfQueryPlanner, question: str, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]], *,
    resumed: bool, today: date,
) -> bool:
    """The gate: speculation can pay off and is unlikely to be thrown away (the setting is the caller's)."""
    if resumed or schema.graph is not None or not planner.asks_model:
        return False
    return planner.forecast(question, schema, catalogue, today=today) is None


class Speculation:
    """The search for ``question`` and its relevance grading, started at once in worker threads.

    Args:
        relevance: the run's relevance grader.
        question: the standalone question: the search text and the question graded against.
        search: the retrieval ``retrieve`` would run for ``question`` with ``where``, ``k`` and
            ``min_score`` (the node's own, dense or hybrid, reranked): its documents and trace record.
        where: the certain part of the where clause (the caller's mandatory filter), or None.
        k: results to fetch (``top_k``).
        min_score: the run's minimum similarity.
        concurrency: documents graded at once (the run's ``grade_concurrency``).
    """

    def __init__(
        self, relevance: RelevanceGrader, question: str, *,
        search: Callable[[], tuple[list[rec.Document], rec.RetrievalRecord]],
        where: dict[str, Any] | None, k: int, min_score: float | None, concurrency: int,
    ) -> None:
        self.question, self.where, self.k, self.min_score = question, where, k, min_score
        self._relevance, self._run_search = relevance, search
        self._retrieval: rec.RetrievalRecord | None = None
        self._lock = threading.Lock()
        self._dropped = False
        self._started_calls = 0
        self._documents: list[rec.Document] = []
        self._grades: list[Future[GradeResult]] = []
        self._finished_at = 0.0
        self._start = time.perf_counter()
        # Carries the run's callbacks into the workers: speculative calls are counted as calls.
        self._searcher = ContextThreadPoolExecutor(max_workers=1)
        self._graders = ContextThreadPoolExecutor(max_workers=max(1, min(concurrency, k)))
        self._search: Future[None] = self._searcher.submit(self._search_and_grade)
        self.record: rec.SpeculationRecord | None = None
        """Set by ``keep`` or ``drop``: what ran and whether it was used, for the trace."""

    def _search_and_grade(self) -> None:
        docs, retrieval = self._run_search()
        with self._lock:
            self._documents = docs
            self._retrieval = retrieval
            if not self._dropped:
                self._grades = [self._graders.submit(self._grade, d) for d in docs]
            if not docs:
                self._finished_at = time.perf_counter()

    def _grade(self, doc: rec.Document) -> GradeResult:
        with self._lock:
            if self._dropped:  # queued before the drop, picked up after it: never call the model
                raise CancelledError
            self._started_calls += 1
        try:
            return self._relevance.grade(self.question, doc)
        finally:
            with self._lock:
                self._finished_at = max(self._finished_at, time.perf_counter())

    def keep(self) -> rec.SpeculativeWork | None:
        """The plan keeps the question: wait for the work and hand it over (None, and dropped, if
        the speculative search or a grading failed: the run then searches and grades as usual)."""
        called = time.perf_counter()
        try:
            self._search.result()
            results = [f.result() for f in self._grades]
        except Exception as exc:  # noqa: BLE001 - speculation must never fail the run; it just did not help
            self.drop(f"the speculative work failed: {describe(exc, 200)}")
            return None
        self._shutdown()
        docs = self._documents
        graded = [
            rec.GradedDocument(id=d["id"], metadata=d["metadata"], score=d["score"], query=self.question,
                               resource=d["resource"], sources=d["sources"], relevant=r.passed, grade=r.record())
            for d, r in zip(docs, results, strict=True)
        ]
        # Only the work done before the plan came back is off the critical path.
        saved = max(0.0, min(called, self._finished_at or called) - self._start)
        self.record = rec.SpeculationRecord(
            kept=True, reason="the plan kept the question", documents=len(docs), graded=len(results),
            discarded_calls=0, ms_saved=round(saved * 1000, 2),
        )
        assert self._retrieval is not None  # set with the documents by the finished search
        return rec.SpeculativeWork(text=self.question, where=self.where, k=self.k, min_score=self.min_score,
                                   documents=docs, graded=graded, retrieval=self._retrieval)

    def drop(self, reason: str) -> None:
        """Throw the work away: cancel what has not started; what has finishes into nothing."""
        with self._lock:
            self._dropped = True
            finished = sum(1 for f in self._grades if f.done() and not f.cancelled())
            documents = len(self._documents)
            started = self._started_calls
        self._shutdown()
        self.record = rec.SpeculationRecord(kept=False, reason=reason, documents=documents, graded=finished,
                                            discarded_calls=started, ms_saved=0.0)

    def _shutdown(self) -> None:
        self._searcher.shutdown(wait=False, cancel_futures=True)
        self._graders.shutdown(wait=False, cancel_futures=True)
