"""``selfrag plan``: the self-query step alone, as JSON lines or a human summary."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Cli = Callable[..., Result]

# What the deterministic rules make of the sample questions (self_query_mode=rules in conftest).
EXPECTED = {
    "I want to watch a movie rated higher than 8.5": {"rating": {"$gt": 8.5}},
    "Has Greta Gerwig directed any movies about women": {"director": {"$eq": "Greta Gerwig"}},
    "What's a highly rated (above 8.5) science fiction film?": {
        "$and": [{"rating": {"$gt": 8.5}}, {"genre": {"$eq": "science fiction"}}]
    },
    "Which movie is about toys coming alive?": None,
}


@pytest.fixture
def movies(cli: Cli) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0


def rows(result: Result) -> list[dict[str, object]]:
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize("question", list(EXPECTED))
def test_json_is_one_object_with_query_filter_limit(cli: Cli, movies: None, question: str) -> None:
    [row] = rows(cli("plan", "--collection", "movies", question, "--json"))
    assert set(row) == {"query", "filter", "limit"}
    assert row["filter"] == EXPECTED[question]
    assert row["limit"] is None
    assert isinstance(row["query"], str) and row["query"]


def test_file_gives_one_line_per_question_in_order(cli: Cli, movies: None, tmp_path: Path) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text("\n".join(EXPECTED) + "\n\n   \n", encoding="utf-8")  # blank lines are skipped
    out = rows(cli("plan", "-c", "movies", "--file", questions, "--json"))
    assert [set(r) for r in out] == [{"query", "filter", "limit"}] * len(EXPECTED)
    assert [r["filter"] for r in out] == list(EXPECTED.values())


def test_explain_adds_source_and_changes(cli: Cli, movies: None) -> None:
    [row] = rows(cli("plan", "-c", "movies", "--json", "--explain", "Has Greta Gerwig directed any movies about women"))
    assert set(row) == {"query", "filter", "limit", "source", "changes", "llm_error"}
    assert row["source"] == "rules" and row["llm_error"] is None


def test_plan_in_rules_mode_never_builds_a_chat_model(cli: Cli, movies: None, fake: Any) -> None:
    assert rows(cli("plan", "-c", "movies", "--json", "films rated above 9"))[0]["filter"] == {"rating": {"$gt": 9.0}}
    assert fake.models == []


def test_plan_with_the_model_shows_its_validated_filter(
    cli: Cli, movies: None, fake: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SELFRAG_WORKFLOW__SELF_QUERY_MODE", "llm")
    # the model writes the director in lower case; validation maps it onto the catalogue's value
    reply = {"query": "women", "filter": {"attribute": "director", "comparator": "eq", "value": "greta gerwig"}, "limit": 2}
    fake.rules = {"StructuredQuery": json.dumps(reply)}
    [row] = rows(cli("plan", "-c", "movies", "--json", "--explain", "Which films did Greta Gerwig direct? Two please"))
    assert row["filter"] == {"director": {"$eq": "Greta Gerwig"}}
    assert row["limit"] == 2 and row["source"] == "llm"
    assert [c.task for c in fake.calls] == ["StructuredQuery"]


def test_human_output_names_query_filter_and_limit(cli: Cli, movies: None) -> None:
    result = cli("plan", "-c", "movies", "I want to watch a movie rated higher than 8.5")
    assert result.exit_code == 0, result.output
    lines = [ln.strip() for ln in result.stdout.splitlines()]
    assert lines[0] == "I want to watch a movie rated higher than 8.5"
    assert lines[2] == "filter {'rating': {'$gt': 8.5}}"
    assert lines[3].startswith("limit  None") and lines[3].endswith("(rules)")
