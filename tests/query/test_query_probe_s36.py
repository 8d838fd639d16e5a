"""What session 36's own questions to earlier users' collections found signed wrong in the self-query's
reading."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.query._grounding import clauses
from selfrag.schema import CollectionSchema

HERE = Path(__file__).parent / "schemas"
# The eighth new user's trial registry (session 33): a start and a completion date.
TRIALS = CollectionSchema.model_validate(json.loads((HERE / "trials.json").read_text()))
TRIAL_VALUES = {"trial_id": ["NCT-7001", "NCT-7002"], "drug": ["Velatrib", "Orzanex"],
                "sponsor": ["Halvern Pharma", "Pellion Bio"], "countries": ["Japan", "United States"]}
PLANNER = SelfQueryPlanner(None, mode="rules")


def _plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, TRIALS, TRIAL_VALUES, today=date(2026, 6, 1))


def _bounds(question: str) -> set[tuple[str, str, object]]:
    return {(c.attribute, c.comparator, c.value) for c in clauses(_plan(question).query.filter)}


@pytest.mark.parametrize(("question", "expected"), [
    # "Which trials did not end in 2023?" was signed with the seven trials that ended in 2023: the
    # negation stood before the auxiliary's bare verb ("did not end"), which the date reader did
    # not pass through, as it passes "were not completed".
    ("Which trials did not end in 2023?",
     {("completion_date", "lt", 20230101), ("completion_date", "gte", 20240101)}),
    ("How many trials didn't start in March 2022?",
     {("start_date", "lt", 20220301), ("start_date", "gte", 20220401)}),
    ("Which trials did not start before 2022?", {("start_date", "gte", 20220101)}),
    ("trials that never started in 2021", {("start_date", "lt", 20210101), ("start_date", "gte", 20220101)}),
])
def test_a_negation_before_a_bare_verb_negates_the_date_phrase(question: str, expected: set[tuple[str, str, object]]) -> None:
    plan = _plan(question)
    assert _bounds(question) == expected
    assert plan.negated == (next(iter(expected))[0],)


@pytest.mark.parametrize("question", [
    "Which trials not in Japan started in 2021?",
    "Which trials without a placebo started in 2021?",
])
def test_a_negation_of_another_phrase_does_not_reach_the_date(question: str) -> None:
    assert ("start_date", "gte", 20210101) in _bounds(question)
