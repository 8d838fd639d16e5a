"""What an eighth new user's research-paper catalogue found signed wrong: "Which papers are not about
graphs?" listed the papers about graphs (the negation before "about" was lost on a list's element)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.query._grounding import clauses
from selfrag.schema import CollectionSchema

PAPERS = CollectionSchema.model_validate(json.loads((Path(__file__).parent / "schemas" / "papers.json").read_text()))
CATALOGUE = {"topics": ["graphs", "retrieval", "evaluation", "augmentation"], "authors": ["Dana Okafor", "Felix Odum"]}
PLANNER = SelfQueryPlanner(None, mode="rules")


def _plan(question: str):  # type: ignore[no-untyped-def]
    return PLANNER.plan(question, PAPERS, CATALOGUE, today=date(2026, 6, 1))


@pytest.mark.parametrize(("question", "topic"), [
    ("Which papers are not about graphs?", "graphs"),
    ("How many papers are not about retrieval?", "retrieval"),
    ("papers not on graphs", "graphs"),
    ("Which papers by Dana Okafor are not about retrieval?", "retrieval"),
    ("List papers that aren't about evaluation.", "evaluation"),
])
def test_a_negation_before_about_excludes_the_list_element(question: str, topic: str) -> None:
    found = {(c.attribute, c.comparator): c.value for c in clauses(_plan(question).query.filter)}
    assert found.get(("topics", "not_contains")) == topic and ("topics", "contains") not in found


@pytest.mark.parametrize("question", [
    "Which papers are about graphs and not open access?",
    "Which papers not by Felix Odum are about retrieval?",
])
def test_a_negation_of_another_condition_leaves_the_element_included(question: str) -> None:
    found = {(c.attribute, c.comparator) for c in clauses(_plan(question).query.filter)}
    assert ("topics", "contains") in found and ("topics", "not_contains") not in found
