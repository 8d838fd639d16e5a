"""Scoring the engine's *answers* on a graph set against its reference answers.

    problems = check_answer_keys(rows, articles, ranges={"positive": ("gt", 0.5), "negative": ("lt", -0.5)})
    case = judge_answer(row, result)          # right entity set? outcome, citations, correct?
    headline(cases)                           # among rows whose entity set is right

``eval.graph_eval`` scores what a run *did* (conditions, entity set, filters); this module scores
what it *said*. A row's reference answer (``GraphQuestion.answer_ids`` and friends) is correct when:

- the question is ambiguous (``clarify``): the run ends ``needs_clarification``;
- nothing answers it (``answerable`` false): the run does not end ``answered``;
- otherwise the run gives an answer (``answered`` or a flagged outcome) that cites one of
  ``answer_ids`` (or, with ``names_entities``, names every entity of the set), and whose short
  answer (else the answer) starts with the expected ``yes_no`` when there is one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval.graph_eval import GraphQuestion, score_case

__all__ = ["FLAGGED", "AnswerCase", "check_answer_keys", "headline", "judge_answer"]

FLAGGED = frozenset({"unverified", "ungrounded", "budget_exhausted", "no_progress"})
"""Outcomes that show an answer marked as not to be relied upon."""

_ENTITY_LABELS = ("entities", "mentions", "clarify")
"""The labels that make up a question's entity set (what the graph or the mentions resolved to)."""


@dataclass(frozen=True)
class AnswerCase:
    """One row's run, read against its reference answer."""

    id: str
    kind: str
    question: str
    entity_set_right: bool
    """The run resolved the row's entity set (graph entities, mentions, or the clarification candidates)."""
    outcome: str
    answer: str
    short_answer: str | None
    cited: list[str]
    """Article ids of the answer's citations (chunk suffixes removed), in citation order."""
    answerable: bool
    correct: bool
    reason: str


def _article_id(chunk_id: str) -> str:
    return re.sub(r":\d+$", "", chunk_id)


def _first_word(text: str) -> str:
    words = re.findall(r"[a-z]+", text.lower())
    return words[0] if words else ""


def _verdict(row: GraphQuestion, outcome: str, answer: str, short: str | None, cited: list[str]) -> tuple[bool, str]:
    if row.clarify is not None:
        ok = outcome == "needs_clarification"
        return ok, "asked which entity" if ok else "should have asked which entity"
    if not row.answerable:
        ok = outcome != "answered"
        return ok, "not answered, as nothing answers it" if ok else "answered though nothing answers it"
    if outcome != "answered" and outcome not in FLAGGED:
        return False, f"no answer ({outcome})"
    if row.names_entities:
        assert row.entities  # GraphQuestion checks it
        missing = [e for e in row.entities if e.lower() not in answer.lower()]
        if missing:
            return False, f"does not name {', '.join(missing)}"
    elif not set(cited) & set(row.answer_ids or []):
        return False, f"cites none of the answering articles (cited {cited or 'nothing'})"
    if row.yes_no is not None:
        said = _first_word(short if short else answer)
        if said != row.yes_no:
            return False, f"does not say {row.yes_no!r} (starts {said!r})"
    return True, "right"


def judge_answer(row: GraphQuestion, result: Any) -> AnswerCase:
    """Read ``result`` (a run of ``row.question``) against ``row``'s reference answer.

    Raises:
        ValueError: ``row`` carries no reference answer.
    """
    if not row.annotated:
        raise ValueError(f"{row.id}: no reference answer")
    wrong = score_case(row, result, 0.0).wrong
    outcome = str(result.outcome.value)
    cited = list(dict.fromkeys(_article_id(c.id) for c in result.citations))
    correct, reason = _verdict(row, outcome, result.answer, result.short_answer, cited)
    return AnswerCase(row.id, row.kind, row.question, not any(k in wrong for k in _ENTITY_LABELS), outcome,
                      result.answer, result.short_answer, cited, bool(row.answerable), correct, reason)


def headline(cases: Sequence[AnswerCase]) -> dict[str, int]:
    """Counts among the cases whose entity set is right: answered right/wrong, flagged right/wrong,
    abstained, clarification asked, and unanswerable rows left unanswered. ``answered_wrong`` is the
    trust number: it must be 0."""
    right_set = [c for c in cases if c.entity_set_right]
    count: Counter[str] = Counter()
    for c in right_set:
        if c.outcome == "answered":
            count["answered_correct" if c.correct else "answered_wrong"] += 1
        elif c.outcome in FLAGGED:
            count["flagged_correct" if c.correct else "flagged_wrong"] += 1
        else:
            count[c.outcome] += 1
    keys = ["answered_correct", "answered_wrong", "flagged_correct", "flagged_wrong", "abstained", "needs_clarification"]
    return {"rows": len(cases), "entity_set_right": len(right_set),
            "correct": sum(c.correct for c in right_set),
            **{k: count.pop(k, 0) for k in keys}, **dict(sorted(count.items()))}


def _in_range(value: float, comparator: str, bound: float) -> bool:
    return {"gt": value > bound, "gte": value >= bound, "lt": value < bound, "lte": value <= bound}[comparator]


def check_answer_keys(
    rows: Sequence[GraphQuestion], articles: Mapping[str, Mapping[str, Any]], *,
    ranges: Mapping[str, tuple[str, float]], mention_attribute: str = "organizations",
    date_attribute: str = "date", sentiment_attribute: str = "sentiment",
) -> list[str]:
    """What is wrong with the rows' reference answers, one line each (empty: nothing).

    Every ``answer_ids`` article exists, mentions an entity of the row's entity set, and passes the
    row's filters (the named sentiment range, per ``ranges``: word → (comparator, bound); the date span).

    Args:
        articles: each article's metadata, by article id.
    """
    problems = []
    for row in rows:
        for aid in row.answer_ids or []:
            meta = articles.get(aid)
            if meta is None:
                problems.append(f"{row.id}: {aid} is not an article")
                continue
            if not set(meta[mention_attribute]) & set(row.entity_set):
                problems.append(f"{row.id}: {aid} mentions none of {row.entity_set}")
            if row.sentiment is not None and not _in_range(float(meta[sentiment_attribute]), *ranges[row.sentiment]):
                problems.append(f"{row.id}: {aid} is not {row.sentiment} ({meta[sentiment_attribute]})")
            day = str(meta[date_attribute])
            if row.dates is not None and ((row.dates.start and day < row.dates.start)
                                          or (row.dates.end and day >= row.dates.end)):
                problems.append(f"{row.id}: {aid} ({day}) is outside {row.dates.start}..{row.dates.end}")
    return problems
