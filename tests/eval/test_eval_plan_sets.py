"""The self-query sets load and are honest, and no search text built for any of their questions is
ungrounded or a placeholder — from the rules, from a model that answers junk, or from a rewrite."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval.plan_eval import planner_fn, score_plan_set
from eval.plan_sets import PlanSet, load_plan_set
from eval.probes import ProbeChroma, probe_records
from selfrag.query import SelfQueryPlanner, check_text, is_placeholder, parse_where
from selfrag.testing import HashEmbeddings, ScriptedChatModel
from workflows.condense import Condenser
from workflows.rewrite import QueryRewriter
from workflows.state import Turn

SETS = Path(__file__).resolve().parents[2] / "eval" / "sets"
FOLDERS = sorted(p.parent for p in SETS.glob("*/set.json"))
JUNK = ["<question>", "The Magic School Slamdabra", "", "{query}", "N/A"]


@pytest.fixture(scope="module")
def plan_sets() -> list[PlanSet]:
    return [load_plan_set(f) for f in FOLDERS]


@pytest.fixture(scope="module")
def chroma() -> Iterator[ProbeChroma]:
    probes = ProbeChroma()
    yield probes
    probes.close()


def test_at_least_four_schemas_of_forty_questions_with_both_splits(plan_sets: list[PlanSet]) -> None:
    own = [s for s in plan_sets if s.name != "movies-guide"]
    assert len(own) >= 4
    assert len({tuple(sorted(s.schema_.names)) for s in own}) == len(own)  # different shapes
    for s in plan_sets:
        assert len(s.cases) >= 40, s.name
        assert {c.split for c in s.cases} == {"dev", "heldout"}
        assert any(c.accept == [{}] for c in s.cases), f"{s.name}: a question with no filter at all"
        assert any(c.limit for c in s.cases), f"{s.name}: a question asking for a number of results"


def test_every_accepted_filter_fits_the_schema_and_can_select_something(plan_sets: list[PlanSet], chroma: ProbeChroma) -> None:
    for s in plan_sets:
        for case in s.cases:
            for where in case.accept:
                if not where:
                    continue
                parse_where(where, s.schema_)  # names, types, operators
                records = probe_records(s.schema_, [where], catalogue=s.catalogue(), respect_schema=True)
                with chroma.loaded(records) as col:
                    assert chroma.select(col, where), f"{case.id}: {where} selects nothing"


def _all_questions(plan_sets: list[PlanSet]) -> Iterator[tuple[PlanSet, str]]:
    for s in plan_sets:
        for case in s.cases:
            yield s, case.question


def test_rule_search_text_is_grounded_for_every_question(plan_sets: list[PlanSet]) -> None:
    embeddings = HashEmbeddings()
    for s, question in _all_questions(plan_sets):
        plan = SelfQueryPlanner(None, mode="rules", today=s.today, embeddings=embeddings).plan(question, s.schema_, s.catalogue())
        text = plan.query.query
        assert not is_placeholder(text) and check_text(text, question).ok, (question, text)


def test_a_junk_model_never_sets_the_search_text(plan_sets: list[PlanSet]) -> None:
    replies = iter(JUNK * 1000)
    model = ScriptedChatModel.from_rules(
        {"StructuredQuery": lambda _m: json.dumps({"query": next(replies), "filter": None, "limit": None})}
    )
    for s, question in _all_questions(plan_sets):
        for mode in ("auto", "llm"):
            planner = SelfQueryPlanner(model, mode=mode, today=s.today, wait_initial=0, retries=0)  # type: ignore[arg-type]
            text = planner.plan(question, s.schema_, s.catalogue()).query.query
            assert not is_placeholder(text) and check_text(text, question).ok, (mode, question, text)


def test_a_junk_model_never_sets_a_rewrite_or_a_condensed_question(plan_sets: list[PlanSet]) -> None:
    replies = iter(JUNK * 1000)
    model = ScriptedChatModel.from_rules({"text": lambda _m: next(replies)})
    rewriter, condenser = QueryRewriter(model), Condenser(model)
    for s, question in _all_questions(plan_sets):
        rewrite = rewriter.rewrite(question, question, "no retrieved document was relevant").query
        assert not is_placeholder(rewrite) and check_text(rewrite, question).ok, (question, rewrite)
        turn = Turn(question=s.cases[0].question, standalone_question=s.cases[0].question, answer="…", outcome="answered")
        condensed = condenser.condense(question, [turn], s.catalogue()).question
        assert not is_placeholder(condensed) and check_text(condensed, f"{turn['question']} {question}").ok, (question, condensed)


def test_the_harness_scores_by_selection_and_shows_a_diff(tmp_path: Path) -> None:
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "set.json").write_text(json.dumps({"name": "tiny", "today": "2025-06-01"}))
    (folder / "schema.json").write_text(json.dumps({"attributes": [
        {"name": "year", "type": "integer", "description": "Year it was published"},
        {"name": "genre", "type": "string", "allowed_values": ["poetry", "essay"]},
    ]}))  # fmt: skip
    (folder / "records.jsonl").write_text(json.dumps({"id": "a", "text": "x", "metadata": {"year": 1990, "genre": "essay"}}) + "\n")
    rows: list[dict[str, Any]] = [
        {"id": "t1", "question": "after 1990", "accept": [{"year": {"$gt": 1990}}]},
        {"id": "t2", "question": "poetry", "accept": [{"genre": {"$eq": "poetry"}}], "split": "heldout"},
    ]
    (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    plan_set = load_plan_set(folder)
    from eval.plan_eval import Planned

    answers = {"after 1990": {"year": {"$gte": 1991}}, "poetry": {"genre": {"$eq": "essay"}}}  # same selection / wrong
    score = score_plan_set(plan_set, lambda q: Planned(where=answers[q], query=q, limit=None))
    assert [c.filter_ok for c in score.cases] == [True, False]
    assert score.summary("dev")["filter_accuracy"] == 1.0 and score.summary("heldout")["filter_accuracy"] == 0.0
    (failure,) = score.failures("all")
    assert "t2" in failure and '"essay"' in failure and "misses e.g." in failure
    real = score_plan_set(plan_set, planner_fn(SelfQueryPlanner(None, mode="rules", today=plan_set.today), plan_set))
    assert [c.filter_ok for c in real.cases] == [True, True]
