"""The reader's and the critic's records: light, with no model code (importing them loads no torch)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["AnswerKind", "CriticTask", "Reading", "answer_key", "disagree"]

AnswerKind = Literal["span", "yes", "no", "none"]
CriticTask = Literal["relevance", "support", "usefulness"]


@dataclass(frozen=True)
class Reading:
    """What the reader found in one set of passages."""

    kind: AnswerKind
    answer: str
    """The short answer: the span's text, "Yes", "No", or "" for none."""
    passage: int
    """Index of the passage it read the answer in (-1 for none)."""
    start: int = -1
    end: int = -1
    """The span's character offsets in that passage."""
    sentences: tuple[tuple[int, int], ...] = ()
    """Character spans of the supporting sentence(s) in that passage, in order."""
    raw: float = -math.inf
    """The uncalibrated score (log-probability of an answer, plus the span's)."""
    probability: float = 0.0
    """Calibrated probability that this answer is right (``ArtifactInfo.calibration['reader']``)."""
    kind_probabilities: dict[str, float] = field(default_factory=dict)
    rival: Reading | None = None
    """The reader's best answer in another passage that ``disagree``s with this one (``Judge.read``):
    two documents that answer otherwise (last year's timetable and this year's) make neither
    answer one to sign, however sure the reader is of its first."""


def answer_key(answer: str) -> str:
    """What two answers must share to be the same answer: their words, case and punctuation aside."""
    return " ".join("".join(c for c in answer.lower() if c.isalnum() or c.isspace()).split())


def disagree(first: str, second: str) -> bool:
    """Whether two answers say different things: neither's words hold the other's ("42 minutes"
    and "46 minutes", "Yes" and "No" do; "Gorillaz" and "the band Gorillaz" do not)."""
    a, b = set(answer_key(first).split()), set(answer_key(second).split())
    return bool(a) and bool(b) and not (a <= b or b <= a)
