"""``selfrag ask``: the result on stdout (human or JSON), progress on stderr, threads that remember."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from selfrag.settings import load_settings
from workflows.factory import build_engine

Cli = Callable[..., Result]
TOYS = "Which movie is about toys coming alive?"
HAPPY_PATH = ["condense", "self_query", "retrieve", "grade_documents", "generate", "check", "finalize"]


@pytest.fixture
def movies(cli: Cli) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0


@pytest.fixture
def filings(cli: Cli) -> None:
    assert cli("ingest", "--sample", "filings").exit_code == 0


def test_json_result_on_stdout_and_progress_on_stderr(cli: Cli, movies: None, fake: Any) -> None:
    fake.script(relevant=["Toys come alive"], generate="Toy Story: toys come alive [1].")
    result = cli("ask", TOYS, "--collection", "movies", "--json")
    assert result.exit_code == 0, result.output

    data = json.loads(result.stdout)  # stdout holds the JSON and nothing else
    assert data["outcome"] == "answered"
    assert data["answer"] == "Toy Story: toys come alive [1]."
    assert [(c["number"], c["id"]) for c in data["citations"]] == [(1, "toy-story")]
    assert data["citations"][0]["metadata"]["genre"] == "animated"
    trace = data["trace"]
    assert trace["path"] == HAPPY_PATH
    relevant = {d["id"] for d in trace["documents"] if d["relevant"]}
    assert relevant == {"toy-story"} and len(trace["documents"]) == 4
    # 4 relevance grades + 1 generation + groundedness + usefulness, every one counted
    assert trace["llm"]["calls"] == len(fake.calls) == 7
    assert trace["llm"]["total_tokens"] > 0

    progress = result.stderr.splitlines()
    assert [ln.split()[1] for ln in progress] == HAPPY_PATH
    assert "outcome answered" in progress[-1]
    assert '"trace"' not in result.stderr and "▸" not in result.stdout


def test_progress_lines_escape_control_characters(cli: Cli, movies: None, fake: Any) -> None:
    # A terminal obeys what it is sent: a question or a model's answer must not recolour, clear or
    # reorder it (a bidi override). Every line escapes them as the self_query line's repr() does.
    fake.script(relevant=["Toys come alive"], generate="Toy Story\x1b[2J: toys come alive [1].")
    result = cli("ask", "\x1b[31mWhich movie\u202e is about toys\x07 coming alive?", "-c", "movies")
    assert result.exit_code == 0, result.output
    progress = result.stderr.splitlines()
    assert [ln.split()[1] for ln in progress] == HAPPY_PATH
    assert all(c.isprintable() for line in progress for c in line), progress
    condense = progress[0]
    assert condense.endswith("question: \\x1b[31mWhich movie\\u202e is about toys\\x07 coming alive?")
    assert "answer #1: Toy Story\\x1b[2J: toys come alive [1]." in progress[HAPPY_PATH.index("generate")]


def test_human_output_shows_outcome_answer_and_citations(cli: Cli, movies: None, fake: Any) -> None:
    fake.script(relevant=["Toys come alive"], generate="Toy Story: toys come alive [1].")
    result = cli("ask", TOYS, "-c", "movies")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "answered  Toy Story: toys come alive [1]."
    assert lines[1].split()[:2] == ["[1]", "toy-story"] and "genre=animated" in lines[1]
    assert "7 LLM calls" in lines[-1]


def test_human_output_escapes_control_characters(cli: Cli, movies: None, fake: Any) -> None:
    # The answer line and the citation lines quote the model's answer and the documents' text:
    # an escape sequence in either must not reach the terminal as a command (the progress lines
    # escape theirs the same way).
    fake.script(relevant=["Toys come alive"], generate="Toy Story\x1b[2J: toys\u202e come alive [1].")
    result = cli("ask", TOYS, "-c", "movies")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(c.isprintable() for line in lines for c in line), lines
    assert lines[0] == "answered  Toy Story\\x1b[2J: toys\\u202e come alive [1]."


def test_an_answer_s_lines_are_printed_as_lines() -> None:
    # Session 36's weather user saw a listing printed as "newest first:\n- Kelby Point …": a line
    # break is no terminal command, and an answer of several lines is shown on several; an escape
    # sequence in them is still escaped.
    import io

    from rich.console import Console

    from selfrag.cli.ask import print_answer

    out = io.StringIO()
    print_answer(Console(file=out, width=200, highlight=False), {
        "outcome": "answered", "answer": "2 matching documents:\n- Kelby Point [1]\n- Port\x1b[2J Selby [2]",
        "citations": [], "collections": ["stations"], "filter": None, "trace": {}})
    lines = out.getvalue().splitlines()
    assert lines[:3] == ["answered  2 matching documents:", "- Kelby Point [1]", "- Port\\x1b[2J Selby [2]"], lines


def test_nothing_relevant_abstains_within_the_budgets(cli: Cli, movies: None, fake: Any) -> None:
    fake.script(relevant=[], rewrite="toy figures that move")
    result = cli("ask", TOYS, "-c", "movies", "--json", "--max-rewrites", "1")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcome"] == "abstained" and data["citations"] == []
    assert data["trace"]["budgets"]["max_rewrites"] == 1 and data["trace"]["budgets"]["rewrites_used"] == 1
    assert fake.text_calls("generate") == []


def test_a_thread_keeps_its_history_across_invocations(cli: Cli, filings: None, fake: Any) -> None:
    fake.script(
        relevant=["Walmart"],
        generate="Walmart's revenue was $648 billion [1].",
        condense="What was Walmart's revenue in fiscal year 2024?",
    )
    first = cli("ask", "What was Walmart's revenue in fiscal year 2023?", "-c", "filings", "--thread", "t1", "--json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["thread_id"] == "t1"
    assert fake.text_calls("condense") == []  # nothing to condense on a thread's first turn

    second = cli("ask", "and in 2024?", "-c", "filings", "--thread", "t1", "--json")
    assert second.exit_code == 0, second.output
    data = json.loads(second.stdout)
    assert data["question"] == "and in 2024?"
    assert data["standalone_question"] == "What was Walmart's revenue in fiscal year 2024?"
    assert data["filter"] == {"$and": [{"company": {"$eq": "Walmart"}}, {"fiscal_year": {"$eq": 2024}}]}
    [condense] = fake.text_calls("condense")
    assert "What was Walmart's revenue in fiscal year 2023?" in condense.prompt  # the first turn, from the checkpoint
    assert {c["metadata"]["fiscal_year"] for c in data["citations"]} == {2024}

    engine = build_engine(load_settings())
    try:
        assert [t["question"] for t in engine.history("t1")] == [
            "What was Walmart's revenue in fiscal year 2023?",
            "and in 2024?",
        ]
        assert engine.history("another-thread") == []
    finally:
        engine.checkpointer.conn.close()  # type: ignore[union-attr]


def test_without_a_thread_a_follow_up_is_not_condensed(cli: Cli, filings: None, fake: Any) -> None:
    fake.script(relevant=["Walmart"], generate="Walmart's revenue was $648 billion [1].")
    assert cli("ask", "What was Walmart's revenue in fiscal year 2023?", "-c", "filings", "--json").exit_code == 0
    result = cli("ask", "and in 2024?", "-c", "filings", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["standalone_question"] == "and in 2024?"
    assert fake.text_calls("condense") == []
