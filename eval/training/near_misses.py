"""Support examples from the reader's own near misses: what a verifier of its answers must learn.

The critic's support judgement, trained on HaluEval's invented answers, tells a right answer from
one the passage never states; it barely ranks the reader's own answers (AUC 0.54 on an end-to-end
dev run: ``bench/results/judge/verifier``), because the reader's mistakes are other spans of the
same passage: the other person, the other year, the bridge entity instead of the answer. So each
training row is read by a trained reader, and its best distinct answers become support examples
("question answer" against the passage), labelled by whether they match the row's answer.

A yes/no row also gets the opposite answer as a negative: the reader's yes/no mistakes are the
other word.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from eval._halueval_source import HaluEvalRow
from eval.metrics import is_correct
from eval.training.examples import CriticExample

if TYPE_CHECKING:
    from selfrag.reading.judge import Judge

__all__ = ["build_near_misses"]

_OPPOSITE = {"yes": "No", "no": "Yes"}


def build_near_misses(reader: Judge, rows: Sequence[HaluEvalRow], *, per_row: int = 3) -> list[CriticExample]:
    """Up to ``per_row`` of the reader's answers per row, plus the row's own answer, as support pairs."""
    out: list[CriticExample] = []
    for row in rows:
        q, passage, right = row.question.strip(), row.knowledge.strip(), row.right_answer.strip()
        if not (q and passage and right):
            continue
        out.append(CriticExample("support", f"{q} {right}", passage, 1))
        low = right.lower().rstrip(".")
        if low in _OPPOSITE:
            out.append(CriticExample("support", f"{q} {_OPPOSITE[low]}", passage, 0))
            continue
        for reading in reader.candidates(q, [passage], per_row):
            if reading.kind != "span" or not reading.answer.strip():
                continue
            ok = is_correct(reading.answer, reading.answer, right)
            if ok and reading.answer.strip().lower() == right.lower():
                continue  # the row's own answer, already added
            out.append(CriticExample("support", f"{q} {reading.answer.strip()}", passage, int(ok)))
    return out
