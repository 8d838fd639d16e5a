"""Answers made elsewhere, as records the harness scores: a ``Prediction`` per question.

A predictions file holds one per row (JSONL, CSV, or any format ``eval.loaders`` reads, with a
column mapping); an endpoint run (``eval.endpoints``) and an engine run produce the same record,
so every way of answering is scored by the same metrics and reported the same way::

    {"id": "q1", "question": "...", "answer": "...", "contexts": ["passage", ...],
     "reference": "...", "outcome": "answered", "confidence": 0.8}

``outcome`` is the engine's vocabulary (``answered``, ``abstained``, ``ungrounded``…); a system
that has none is taken at its word: an empty answer abstained, any other answered.
``answerable`` false marks a question the reference says cannot be answered (also inferred from
references such as "unanswerable"; see ``eval.abstention``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Prediction", "outcome_of"]


class Prediction(BaseModel):
    """One answered (or abstained) question, from any system."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str = Field(min_length=1)
    answer: str = ""
    short_answer: str | None = None
    """The short answer the answer leads with, when the system says (exact match and F1 score it)."""
    contexts: list[str] = Field(default_factory=list)
    """The passages the answer rests on (RAGAS's ``retrieved_contexts``), best first."""
    reference: str | None = None
    collection: str | None = None
    """A dataset row's collection to answer from (an engine or ``/v1/answers`` run), if it names one."""
    outcome: str | None = None
    """The system's own outcome; None: ``answered`` unless the answer is empty."""
    confidence: float | None = None
    """The system's confidence in the answer (orders the risk-coverage curve); None if it has none."""
    answerable: bool | None = None
    latency_s: float | None = None
    error: str | None = None
    """Why no answer came back (an endpoint's HTTP error); the case then counts as failed."""
    verdict: str | None = None
    """What decided the outcome, when the system says (the report's table of cases that went wrong)."""
    meta: dict[str, Any] = Field(default_factory=dict)


def outcome_of(prediction: Prediction) -> str:
    """The prediction's outcome, with the default for systems that report none."""
    if prediction.outcome:
        return prediction.outcome
    return "answered" if prediction.answer.strip() else "abstained"
