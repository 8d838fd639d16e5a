"""A selfrag home (``SELFRAG_HOME``) that cannot be used is one line naming it: never a traceback,
never an ``internal`` error, and nothing already stored is removed."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests.denied import deny

Cli = Callable[..., Result]
Check = Callable[[Result, str], str]


@pytest.fixture
def home() -> Path:
    return Path(os.environ["SELFRAG_HOME"])


# -- a home this user cannot read or write -------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("ask", "Which movie has toys?", "-c", "movies"),
    ("ingest", "--sample", "movies"),
    ("collections", "list"),
    ("documents", "list", "-c", "movies"),
    ("plan", "Which movie has toys?", "-c", "movies"),
])
def test_an_unreadable_home_is_a_store_error_naming_it(
    cli: Cli, home: Path, monkeypatch: pytest.MonkeyPatch, assert_one_line_error: Check, args: tuple[str, ...]
) -> None:
    home.mkdir()
    deny(monkeypatch, home)  # mode 000, or another user's mode 700
    result = cli(*args)
    line = assert_one_line_error(result, "store_unavailable")
    assert result.exit_code == 1
    assert f"the selfrag home {home} cannot be read or written: Permission denied" in line
    assert "SELFRAG_HOME" in line and "Errno" not in line


def test_an_unreadable_home_under_json_is_the_json_error(cli: Cli, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home.mkdir()
    deny(monkeypatch, home)
    result = cli("ask", "Which movie has toys?", "-c", "movies", "--json")
    assert result.exit_code == 1 and "Traceback" not in result.output
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "store_unavailable"
    assert error["message"].startswith(f"the selfrag home {home} cannot be read or written")


def test_an_unreadable_lexical_folder_is_a_store_error_and_nothing_is_removed(cli: Cli, home: Path) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    index = home / "lexical" / "movies.sqlite3"
    assert index.is_file()
    with pytest.MonkeyPatch.context() as denied:
        deny(denied, home / "lexical")
        for args in (("ask", "Which movie has toys?", "-c", "movies"), ("ingest", "--sample", "movies")):
            result = cli(*args)
            assert result.exit_code == 1 and result.stdout == "" and "Traceback" not in result.output, result.output
            line = result.stderr.strip().splitlines()[-1]  # ask prints the progress of the nodes that ran first
            assert line.startswith("error[store_unavailable]: "), line
            assert f"the lexical index {index} cannot be read or written: Permission denied" in line
            assert "selfrag home" in line and "SELFRAG_HOME" in line
    assert index.is_file()
    assert cli("collections", "list").stdout.splitlines() == ["movies  19 chunks"]


def test_a_checkpoint_file_that_cannot_be_opened_is_a_store_error(
    cli: Cli, home: Path, assert_one_line_error: Check
) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    (home / "checkpoints.sqlite").mkdir()  # no database can be opened there, even by root
    line = assert_one_line_error(cli("ask", "Which movie has toys?", "-c", "movies", "--thread", "t1"), "store_unavailable")
    assert f"the checkpoint store {home / 'checkpoints.sqlite'} cannot be read or written" in line
    assert "SELFRAG_HOME" in line


def test_a_damaged_checkpoint_file_is_a_store_error_and_is_kept(
    cli: Cli, home: Path, assert_one_line_error: Check, fake: Any
) -> None:
    # A disk fault or a stray copy overwrote its first page. It holds every thread's history, so
    # it is not the engine's to delete: the user is told which file, and what to do.
    assert cli("ingest", "--sample", "movies").exit_code == 0
    fake.script(relevant=["Toys come alive"], generate="Toy Story [1].")
    assert cli("ask", "Which movie has toys?", "-c", "movies", "--thread", "t1").exit_code == 0
    path = home / "checkpoints.sqlite"
    damaged = b"not a database!!" + path.read_bytes()[16:]
    path.write_bytes(damaged)
    line = assert_one_line_error(cli("ask", "and the year?", "-c", "movies", "--thread", "t1"), "store_unavailable")
    assert line.startswith(f"error[store_unavailable]: the checkpoint store {path} is not a SQLite database "
                           "(damaged or overwritten): threads cannot be read or continued; move it aside "
                           "to start again without them")
    assert path.read_bytes() == damaged
    assert cli("ask", "Which movie has toys?", "-c", "movies").exit_code == 0  # without a thread, unaffected


@pytest.mark.parametrize("args", [
    ("collections", "list"),
    ("collections", "list", "--json"),
    ("ask", "Which movie has toys?", "-c", "movies"),
    ("documents", "list", "-c", "movies"),
    ("ingest", "--sample", "movies"),
])
def test_a_chroma_folder_replaced_by_a_file_is_a_store_error_not_an_empty_store(
    cli: Cli, home: Path, args: tuple[str, ...]
) -> None:
    # A reader saw "no collections" (exit 0, `{"collections": []}`) and ask said "ingest into it
    # first": an outage of the store looked like an empty one.
    assert cli("ingest", "--sample", "movies").exit_code == 0
    chroma = home / "chroma"
    chroma.rename(home / "chroma.moved")
    chroma.write_text("x", encoding="utf-8")
    result = cli(*args)
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    if "--json" in args:
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "store_unavailable" and f"{chroma} is not a folder" in error["message"]
    else:
        line = result.stderr.strip().splitlines()[-1]
        assert line.startswith("error[store_unavailable]: ") and f"{chroma} is not a folder" in line, line
    assert chroma.read_text(encoding="utf-8") == "x"


# -- a home that is not a directory --------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("ask", "Which movie has toys?", "-c", "movies"),
    ("ingest", "--sample", "movies"),
    ("collections", "list"),
    ("keys", "list"),
])
@pytest.mark.parametrize("below", [False, True])
def test_a_home_that_is_a_file_is_a_config_error_saying_so(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, assert_one_line_error: Check,
    args: tuple[str, ...], below: bool,
) -> None:
    file = tmp_path / "hostname"
    file.write_text("box\n", encoding="utf-8")
    home = file / "selfrag" if below else file  # a folder below a file cannot exist either
    monkeypatch.setenv("SELFRAG_HOME", str(home))
    line = assert_one_line_error(cli(*args), "config_invalid")
    what = f"{file} is a file" if below else "it is a file"
    assert line == (f"error[config_invalid]: the selfrag home {home} (SELFRAG_HOME) is not a directory: {what}; "
                    "set SELFRAG_HOME to a folder")
    assert file.read_text(encoding="utf-8") == "box\n"


# -- a home that does not exist yet --------------------------------------------------------------
@pytest.mark.parametrize("exists", [False, True])
def test_reading_commands_create_nothing_in_a_new_home(
    cli: Cli, home: Path, assert_one_line_error: Check, exists: bool
) -> None:
    if exists:
        home.mkdir()  # e.g. holding only a config file or a key file
    assert_one_line_error(cli("ask", "Which movie has toys?", "-c", "movies"), "collection_not_found")
    # A thread's memory opens its checkpoints only for a collection there is to answer from.
    assert_one_line_error(cli("ask", "Which movie has toys?", "-c", "movies", "--thread", "t1"), "collection_not_found")
    several = cli("ask", "Which movie has toys?", "-c", "movies", "-c", "films")  # planned after a condense line
    assert several.exit_code == 2 and several.stderr.splitlines()[-1].startswith("error[collection_not_found]: ")
    assert_one_line_error(cli("plan", "Which movie has toys?", "-c", "movies"), "collection_not_found")
    assert_one_line_error(cli("documents", "list", "-c", "movies"), "collection_not_found")
    assert_one_line_error(cli("collections", "show", "movies"), "collection_not_found")
    listed = cli("collections", "list")
    assert listed.exit_code == 0 and listed.stdout == "" and "no collections yet" in listed.stderr
    assert json.loads(cli("collections", "list", "--json").stdout) == {"collections": []}
    assert (sorted(home.iterdir()) == []) if exists else not home.exists()
    # The first write creates it, and the readers then see what it wrote.
    assert cli("ingest", "--sample", "movies").exit_code == 0
    assert cli("collections", "list").stdout.splitlines() == ["movies  19 chunks"]
