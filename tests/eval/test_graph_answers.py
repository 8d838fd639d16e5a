"""The companies graph set's reference answers: typed, consistent with the sample, and scored right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from eval.graph_answers import check_answer_keys, headline, judge_answer
from eval.graph_eval import GraphQuestion, load_graph_set
from selfrag.samples import sample_dir
from workflows.outcomes import Citation, Outcome, Result, Trace

SET = Path(__file__).resolve().parents[2] / "eval" / "sets" / "companies"


def _ranges() -> dict[str, tuple[str, float]]:
    schema = json.loads((sample_dir("companies") / "schema.json").read_text(encoding="utf-8"))
    ranges = {}
    for attribute in schema["attributes"]:
        for named in attribute.get("named_ranges", []):
            ranges[named["words"][0]] = (named["comparator"], float(named["value"]))
    return ranges


@pytest.fixture(scope="module")
def articles() -> dict[str, dict[str, Any]]:
    lines = (sample_dir("companies") / "articles.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["id"]: row["metadata"] for row in map(json.loads, lines) if row}


def test_every_dev_row_has_a_reference_answer() -> None:
    rows = load_graph_set(SET)
    dev = [r for r in rows if r.split == "dev"]
    assert len(dev) == 45
    assert all(r.annotated for r in dev)
    kinds = {"articles": sum(bool(r.answer_ids) for r in dev), "entities": sum(r.names_entities for r in dev),
             "none": sum(r.answerable is False and r.clarify is None for r in dev),
             "clarify": sum(r.clarify is not None for r in dev)}
    assert sum(kinds.values()) == 45 and all(kinds.values()), kinds


def test_reference_answers_agree_with_the_sample(articles: dict[str, dict[str, Any]]) -> None:
    assert check_answer_keys(load_graph_set(SET), articles, ranges=_ranges()) == []


def _row(**changes: Any) -> GraphQuestion:
    base: dict[str, Any] = {
        "id": "t1", "split": "dev", "kind": "one_hop", "question": "Any layoffs at competitors of Nimbus Cloud?",
        "relations": [{"relation": "competitors", "value": "Nimbus Cloud"}], "mentions": [], "clarify": None,
        "entities": ["Graphwise"], "sentiment": None, "dates": None, "latest": False,
        "answer_ids": ["news-083"], "answerable": True, "yes_no": None, "names_entities": False,
    }
    return GraphQuestion.model_validate({**base, **changes})


def test_a_wrong_reference_answer_is_reported(articles: dict[str, dict[str, Any]]) -> None:
    rows = [
        _row(id="a", answer_ids=["news-999"]),
        _row(id="b", answer_ids=["news-001"]),  # about Orchard Data, not Graphwise
        _row(id="c", sentiment="positive"),  # news-083 is a negative article
        _row(id="d", dates={"start": "2025-05-01", "end": None}),  # news-083 is from April 2025
    ]
    problems = check_answer_keys(rows, articles, ranges=_ranges())
    assert [p.split(":")[0] for p in problems] == ["a", "b", "c", "d"]
    assert "not an article" in problems[0] and "mentions none" in problems[1]


@pytest.mark.parametrize("changes", [
    {"answerable": False},  # still names answer_ids
    {"answer_ids": []},  # answerable, yet nothing answers it
    {"answer_ids": None},  # one half of the key
    {"answer_ids": [], "names_entities": True, "entities": []},
    {"clarify": ["Atlas Capital", "Atlas Freight"]},  # answerable before the clarification
    {"yes_no": "maybe"},
    {"topic": "layoffs"},  # unknown field
])
def test_an_inconsistent_row_does_not_load(changes: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        _row(**changes)


def _result(outcome: Outcome, answer: str, cited: list[str], *, entities: list[str], short: str | None = None) -> Result:
    plan = {"graph": {
        "terms": [{"kind": "relation", "relation": "competitors", "entity": {"name": "Nimbus Cloud"}, "value": None}],
        "resolutions": [{"kind": "relation", "entities": [{"name": e} for e in entities]}],
    }}
    return Result(question="q", standalone_question="q", collection="companies", answer=answer, outcome=outcome,
                  short_answer=short, citations=[Citation(number=i + 1, id=c, text="") for i, c in enumerate(cited)],
                  trace=Trace(plan=plan))


def test_an_answer_is_right_when_it_cites_an_answering_article() -> None:
    row = _row()
    case = judge_answer(row, _result(Outcome.ANSWERED, "Graphwise cut jobs [1].", ["news-083:0"], entities=["Graphwise"]))
    assert case.entity_set_right and case.correct and case.cited == ["news-083"]
    wrong = judge_answer(row, _result(Outcome.ANSWERED, "Graphwise lost money [1].", ["news-106"], entities=["Graphwise"]))
    assert not wrong.correct and "cites none" in wrong.reason
    flagged = judge_answer(row, _result(Outcome.UNVERIFIED, "Graphwise cut jobs [1].", ["news-083"], entities=["Graphwise"]))
    abstained = judge_answer(row, _result(Outcome.ABSTAINED, "Nothing found.", [], entities=["Graphwise"]))
    off_set = judge_answer(row, _result(Outcome.ANSWERED, "Graphwise cut jobs [1].", ["news-083"], entities=["Orchard Data"]))
    assert flagged.correct and not abstained.correct and not off_set.entity_set_right
    assert headline([case, wrong, flagged, abstained, off_set]) == {
        "rows": 5, "entity_set_right": 4, "correct": 2, "answered_correct": 1, "answered_wrong": 1,
        "flagged_correct": 1, "flagged_wrong": 0, "abstained": 1, "needs_clarification": 0}


def test_yes_no_entities_and_unanswerable_rows() -> None:
    yes = _row(yes_no="yes")
    said_yes = _result(Outcome.ANSWERED, "Yes. Graphwise cut jobs [1].", ["news-083"], entities=["Graphwise"], short="Yes")
    quote_only = _result(Outcome.ANSWERED, "Graphwise cut jobs [1].", ["news-083"], entities=["Graphwise"])
    assert judge_answer(yes, said_yes).correct and not judge_answer(yes, quote_only).correct
    names = _row(answer_ids=[], names_entities=True, entities=["Graphwise", "Orchard Data"])
    both = _result(Outcome.UNVERIFIED, "Graphwise and Orchard Data [1].", ["news-001"], entities=["Graphwise", "Orchard Data"])
    one = _result(Outcome.ANSWERED, "Graphwise [1].", ["news-083"], entities=["Graphwise", "Orchard Data"])
    assert judge_answer(names, both).correct and not judge_answer(names, one).correct
    none = _row(answer_ids=[], answerable=False)
    assert judge_answer(none, _result(Outcome.ABSTAINED, "Nothing found.", [], entities=["Graphwise"])).correct
    assert not judge_answer(none, _result(Outcome.ANSWERED, "Yes [1].", ["news-083"], entities=["Graphwise"])).correct
    with pytest.raises(ValueError, match="no reference answer"):
        judge_answer(_row(answer_ids=None, answerable=None), said_yes)
