"""The reader's and the critic's records: light, with no model code (importing them loads no torch)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["AnswerKind", "CriticTask", "Reading", "answer_key"]

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


def answer_key(answer: str) -> str:
    """What two answers must share to be the same answer: their words, case and punctuation aside."""
    return " ".join("".join(c for c in answer.lower() if c.isalnum() or c.isspace()).split())
