"""Every user mistake ends in one ``error[code]: message`` line on stderr, a non-zero exit, no traceback."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from selfrag.store import Store

Cli = Callable[..., Result]
Check = Callable[[Result, str], str]


@pytest.fixture
def movies(cli: Cli) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0


@pytest.fixture
def note(tmp_path: Path) -> Path:
    path = tmp_path / "note.txt"
    path.write_text("Acme reported revenue for fiscal year 2024.", encoding="utf-8")
    return path


# -- missing collection --------------------------------------------------------------------------
def test_ask_unknown_collection(cli: Cli, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("ask", "Which movie?", "-c", "nope"), "collection_not_found")
    assert "collection 'nope' does not exist" in line
    assert cli("ask", "Which movie?", "-c", "nope").exit_code == 2


def test_plan_unknown_collection(cli: Cli, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("plan", "Which movie?", "-c", "nope"), "collection_not_found")
    assert "collection 'nope' does not exist" in line


def test_invalid_collection_name(cli: Cli, note: Path, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("ingest", note, "-c", "a b"), "usage_error")
    assert "invalid collection name 'a b'" in line


# -- empty question ------------------------------------------------------------------------------
@pytest.mark.parametrize("question", ["", "   \n\t "])
def test_ask_empty_question(cli: Cli, movies: None, question: str, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("ask", question, "-c", "movies"), "question_invalid")
    assert line.endswith("the question is empty")


@pytest.mark.parametrize("question", ["???", "...", "!!", " ¿? ", "— * —", "\u3002\uff1f"])
def test_a_question_without_letters_or_digits(cli: Cli, movies: None, question: str, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("ask", question, "-c", "movies"), "question_invalid")
    assert line == "error[question_invalid]: the question has no letters or digits"
    assert_one_line_error(cli("plan", question, "-c", "movies"), "question_invalid")
    as_json = cli("ask", question, "-c", "movies", "--json")
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout)["error"]["code"] == "question_invalid"


def test_a_file_question_without_letters_or_digits_is_named(
    cli: Cli, movies: None, tmp_path: Path, assert_one_line_error: Check
) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text("Which movie has toys?\n???\n", encoding="utf-8")
    line = assert_one_line_error(cli("plan", "-c", "movies", "--file", questions), "question_invalid")
    assert line == "error[question_invalid]: question 2 has no letters or digits"


@pytest.mark.parametrize("question", ["7?", "Что это?", "東京は?", "٣؟", "x"])
def test_a_question_of_any_script_with_a_letter_or_digit_is_asked(cli: Cli, movies: None, question: str) -> None:
    result = cli("plan", question, "-c", "movies", "--json")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("question", ["", "   "])
def test_plan_empty_question(cli: Cli, movies: None, question: str, assert_one_line_error: Check) -> None:
    assert_one_line_error(cli("plan", question, "-c", "movies"), "question_invalid")


def test_plan_file_of_blank_lines_is_an_empty_question(
    cli: Cli, movies: None, tmp_path: Path, assert_one_line_error: Check
) -> None:
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n", encoding="utf-8")
    assert_one_line_error(cli("plan", "-c", "movies", "--file", blank), "question_invalid")


def test_ask_oversized_question(cli: Cli, movies: None, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("ask", "word " * 1000, "-c", "movies"), "question_invalid")
    assert "the limit is 4000" in line


# -- plan's arguments ----------------------------------------------------------------------------
def test_plan_with_question_and_file(cli: Cli, movies: None, note: Path, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("plan", "Which movie?", "--file", note, "-c", "movies"), "usage_error")
    assert "exactly one of QUESTION or --file" in line


def test_plan_with_neither_question_nor_file(cli: Cli, movies: None, assert_one_line_error: Check) -> None:
    assert_one_line_error(cli("plan", "-c", "movies"), "usage_error")


def test_plan_missing_file(cli: Cli, movies: None, tmp_path: Path, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("plan", "-c", "movies", "--file", tmp_path / "none.txt"), "usage_error")
    assert "cannot read" in line and "No such file or directory" in line


# -- ingest inputs -------------------------------------------------------------------------------
def test_ingest_missing_file(cli: Cli, tmp_path: Path, assert_one_line_error: Check) -> None:
    missing = tmp_path / "missing.md"
    line = assert_one_line_error(cli("ingest", missing, "-c", "docs"), "ingest_failed")
    assert str(missing) in line


def test_ingest_unreadable_file(
    cli: Cli, note: Path, monkeypatch: pytest.MonkeyPatch, assert_one_line_error: Check
) -> None:
    # Tests may run as root, for whom chmod 000 changes nothing: deny the read itself instead.
    real_read = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == note.name:
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    line = assert_one_line_error(cli("ingest", note, "-c", "docs"), "ingest_failed")
    assert line.endswith("cannot read file: Permission denied")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_ingest_not_a_regular_file(cli: Cli, tmp_path: Path, assert_one_line_error: Check) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    line = assert_one_line_error(cli("ingest", fifo, "-c", "docs"), "ingest_failed")
    assert "not a regular file" in line


@pytest.mark.parametrize("name", ["report.xlsx", "README"])
def test_ingest_unsupported_extension(cli: Cli, tmp_path: Path, name: str, assert_one_line_error: Check) -> None:
    path = tmp_path / name
    path.write_text("some text", encoding="utf-8")
    line = assert_one_line_error(cli("ingest", path, "-c", "docs"), "ingest_failed")
    assert "unsupported file type" in line and "supported: .txt" in line


def test_ingest_empty_file(cli: Cli, tmp_path: Path, assert_one_line_error: Check) -> None:
    empty = tmp_path / "empty.md"
    empty.write_text("  \n", encoding="utf-8")
    assert assert_one_line_error(cli("ingest", empty, "-c", "docs"), "ingest_failed").endswith("file is empty")


def test_ingest_without_collection(cli: Cli, note: Path, assert_one_line_error: Check) -> None:
    assert "--collection NAME is required" in assert_one_line_error(cli("ingest", note), "usage_error")


def test_ingest_without_anything(cli: Cli, assert_one_line_error: Check) -> None:
    assert_one_line_error(cli("ingest"), "usage_error")


# -- samples -------------------------------------------------------------------------------------
def test_unknown_sample(cli: Cli, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("ingest", "--sample", "nope"), "usage_error")
    assert "unknown sample 'nope'" in line and "movies, filings" in line


def test_sample_with_a_path(cli: Cli, note: Path, assert_one_line_error: Check) -> None:
    assert_one_line_error(cli("ingest", note, "--sample", "movies"), "usage_error")


# -- schema files --------------------------------------------------------------------------------
SCHEMAS = {
    "unknown_extractor_attribute": (
        {"attributes": [{"name": "company", "type": "string"}], "extractors": [{"attribute": "ceo", "pattern": "CEO (\\w+)"}]},
        "extractor for unknown attribute 'ceo'",
    ),
    "unknown_key": ({"attributes": [{"name": "company", "type": "string", "colour": "red"}]}, "attributes.0.colour"),
    "unknown_top_level_key": ({"attributes": [], "indexes": []}, "indexes"),
    "bad_type": ({"attributes": [{"name": "company", "type": "text"}]}, "attributes.0.type"),
    "bad_regex": (
        {"attributes": [{"name": "company", "type": "string"}], "extractors": [{"attribute": "company", "pattern": "(unclosed"}]},
        "pattern does not compile",
    ),
    "regex_the_linear_engine_cannot_run": (
        {"attributes": [{"name": "ceo", "type": "string"}], "extractors": [{"attribute": "ceo", "pattern": "(?<=CEO )(\\w+)"}]},
        "extractor for 'ceo': lookbehind '(?<=' is not supported",
    ),
    "empty_range": (
        {"attributes": [{"name": "room", "type": "integer", "minimum": 10, "maximum": 1}]},
        "attributes.0: minimum 10 of 'room' is above its maximum 1",
    ),
}


@pytest.mark.parametrize("case", list(SCHEMAS))
def test_invalid_schema_file(cli: Cli, note: Path, tmp_path: Path, case: str, assert_one_line_error: Check) -> None:
    content, expected = SCHEMAS[case]
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(content), encoding="utf-8")
    line = assert_one_line_error(cli("ingest", note, "-c", "docs", "--schema", schema), "schema_invalid")
    assert expected in line and str(schema) in line


def test_schema_file_that_is_not_json(cli: Cli, note: Path, tmp_path: Path, assert_one_line_error: Check) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text('{"attributes": [', encoding="utf-8")
    line = assert_one_line_error(cli("ingest", note, "-c", "docs", "--schema", schema), "schema_invalid")
    assert "is not valid JSON" in line
    assert " at at " not in line and "line 1" in line
    schema.write_text('{"description": "x", "attributes": [{"name": "a", "type": "strin', encoding="utf-8")
    line = assert_one_line_error(cli("ingest", note, "-c", "docs", "--schema", schema), "schema_invalid")
    assert " at at " not in line and "line 1" in line


def test_missing_schema_file(cli: Cli, note: Path, tmp_path: Path, assert_one_line_error: Check) -> None:
    line = assert_one_line_error(cli("ingest", note, "-c", "docs", "--schema", tmp_path / "nope.json"), "schema_invalid")
    assert "cannot read schema file" in line


def test_a_bad_schema_creates_no_collection(cli: Cli, note: Path, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text("not json", encoding="utf-8")
    assert cli("ingest", note, "-c", "docs", "--schema", schema).exit_code == 2
    assert not open_store().has_collection("docs")


# -- messages are literal text -------------------------------------------------------------------
def test_brackets_in_a_message_are_printed_literally(cli: Cli, tmp_path: Path, assert_one_line_error: Check) -> None:
    odd = tmp_path / "[/bold] [red]x.md"  # rich markup in a path must neither style nor crash the message
    line = assert_one_line_error(cli("ingest", odd, "-c", "docs"), "ingest_failed")
    assert line == f"error[ingest_failed]: no such file or directory: {odd}"


def test_config_errors_are_one_line_too(cli: Cli, monkeypatch: pytest.MonkeyPatch, assert_one_line_error: Check) -> None:
    monkeypatch.setenv("SELFRAG_WORKFLOW__MAX_REWRITES", "99")
    line = assert_one_line_error(cli("ask", "Which movie?", "-c", "movies"), "config_invalid")
    assert "workflow.max_rewrites" in line


# -- a dependency down ---------------------------------------------------------------------------
def test_ask_with_the_model_server_down_is_a_one_line_error_not_an_abstention(
    cli: Cli, movies: None, fake: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.rules = {"RelevanceGrade": ConnectionError("connection refused by 10.0.0.7:8080")}  # type: ignore[attr-defined]
    result = cli("ask", "Which movie has toys?", "-c", "movies", "--thread", "t1")
    assert result.exit_code == 1 and result.stdout == "" and "Traceback" not in result.output
    line = result.stderr.strip().splitlines()[-1]  # after the progress lines of the nodes that ran
    assert line.startswith("error[provider_unavailable]: ")
    assert "cannot be reached" in line and "10.0.0.7" not in line and "SELFRAG_DEBUG=1" in line
    assert cli("ask", "Which movie has toys?", "-c", "movies").exit_code == 1
    # SELFRAG_DEBUG=1 re-raises: the connection error is the chained cause.
    monkeypatch.setenv("SELFRAG_DEBUG", "1")
    raised = cli("ask", "Which movie has toys?", "-c", "movies")
    assert isinstance(raised.exception.__cause__, ConnectionError)  # type: ignore[union-attr]


@pytest.mark.parametrize(("question", "named"), [
    ("Which movie has \udcff dinosaurs?", "an unpaired surrogate (U+DCFF)"),  # a byte not UTF-8 in argv
    ("Which movie has \u0000 dinosaurs?", "a NUL character"),  # from a --file of questions, an API client
])
def test_a_question_no_store_can_hold_is_a_question_error(cli: Cli, movies: None, question: str, named: str,
                                                          assert_one_line_error: Check) -> None:
    for command in ("ask", "plan"):
        line = assert_one_line_error(cli(command, question, "-c", "movies"), "question_invalid")
        assert line == f"error[question_invalid]: the question contains {named}, which cannot be stored: remove it"


# -- option values the command line itself refuses ----------------------------------------------
@pytest.mark.parametrize("args", [
    ("ask", "Which movie?", "-c", "movies", "--max-rewrites", "99"),
    ("ask", "Which movie?", "-c", "movies", "--no-such-option"),
    ("plan", "Which movie?", "-c", "movies", "extra", "argument"),
    ("no-such-command",),
])
def test_a_value_the_command_line_refuses_is_one_line(cli: Cli, args: tuple[str, ...], assert_one_line_error: Check) -> None:
    # "--max-rewrites 99" was a boxed usage block over several lines (and nothing on stdout under --json).
    assert_one_line_error(cli(*args), "usage_error")


def test_a_value_the_command_line_refuses_is_json_under_json(cli: Cli) -> None:
    result = cli("ask", "Which movie?", "-c", "movies", "--max-rewrites", "99", "--json")
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "usage_error" and "--max-rewrites" in error["message"]


def test_help_and_a_group_without_its_command_still_show_the_help(cli: Cli) -> None:
    assert cli("--help").exit_code == 0 and "Usage" in cli("--help").stdout
    assert "Usage" in cli("kg").stdout
    assert "Usage" in cli("ask", "--help").stdout
