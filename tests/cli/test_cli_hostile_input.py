"""Garbage in is refused, not stored; and the small things a careful user hits.

Binary files and undecodable text are refused, per file and by name: in a folder they are skipped
(the rest ingests and the summary says what was skipped and why); named explicitly, they fail the
run with nothing written. A failed ingest leaves no empty collection behind.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from rich.console import Console

from selfrag.errors import ProviderError
from selfrag.store import Store
from selfrag.testing import HashEmbeddings
from tests.cli.conftest import FakeProviders

Cli = Callable[..., Result]
BINARY = bytes(range(256)) * 40  # what a renamed executable or image looks like


def test_a_binary_file_in_a_folder_is_skipped_by_name(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.txt").write_text("Anvils are heavy.\n")
    (folder / "image.txt").write_bytes(BINARY)
    (folder / "nul-free.txt").write_bytes(bytes(b for b in BINARY if b) * 2)  # no NUL byte to give it away
    result = cli("ingest", folder, "-c", "docs")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == (
        "docs: 1 file, 1 document (1 chunk): 1 added, 0 replaced, 0 unchanged, 0 removed (2 unreadable files skipped)"
    )
    skipped = sorted(result.stderr.strip().splitlines())
    assert skipped[0].startswith(f"skipped {folder / 'image.txt'}: binary content")
    assert skipped[1].startswith(f"skipped {folder / 'nul-free.txt'}: binary content or an unknown encoding")
    assert [d.id for d in open_store().get_collection("docs").documents()] == ["docs/good.txt"]


def test_strict_fails_on_an_unreadable_file_in_a_folder(
    cli: Cli, tmp_path: Path, assert_one_line_error: Callable[[Result, str], str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.txt").write_text("Anvils are heavy.\n")
    (folder / "image.txt").write_bytes(BINARY)
    line = assert_one_line_error(cli("ingest", folder, "-c", "docs", "--strict"), "ingest_failed")
    assert "image.txt: binary content" in line


def test_a_named_binary_file_fails_and_leaves_no_collection_behind(
    cli: Cli, tmp_path: Path, open_store: Callable[[], Store], assert_one_line_error: Callable[[Result, str], str]
) -> None:
    bad = tmp_path / "report.txt"
    bad.write_bytes(BINARY)
    line = assert_one_line_error(cli("ingest", bad, "-c", "reports"), "ingest_failed")
    assert line == f"error[ingest_failed]: {bad}: binary content, not text (it contains NUL bytes)"
    assert not open_store().has_collection("reports")
    # So a retry with a schema is not blocked by an empty collection of another schema.
    schema = tmp_path / "schema.json"
    schema.write_text('{"attributes": [{"name": "company", "type": "string"}]}')
    good = tmp_path / "good.txt"
    good.write_text("Acme reports.")
    retry = cli("ingest", good, "-c", "reports", "--schema", schema)
    assert retry.exit_code == 0, retry.output


def test_an_ingest_that_fails_while_writing_leaves_no_empty_collection(
    cli: Cli, tmp_path: Path, open_store: Callable[[], Store], monkeypatch: pytest.MonkeyPatch,
    assert_one_line_error: Callable[[Result, str], str],
) -> None:
    def down(self: HashEmbeddings, texts: list[str]) -> list[list[float]]:
        raise ProviderError("the embeddings server is down")

    monkeypatch.setattr(HashEmbeddings, "embed_documents", down)
    (tmp_path / "a.txt").write_text("Some text.")
    assert_one_line_error(cli("ingest", tmp_path / "a.txt", "-c", "docs"), "provider_unavailable")
    assert not open_store().has_collection("docs")


def test_a_folder_of_garbage_ingests_nothing_and_says_why(
    cli: Cli, tmp_path: Path, open_store: Callable[[], Store], assert_one_line_error: Callable[[Result, str], str]
) -> None:
    folder = tmp_path / "junk"
    folder.mkdir()
    (folder / "a.txt").write_bytes(BINARY)
    line = assert_one_line_error(cli("ingest", folder, "-c", "junk"), "ingest_failed")
    assert "nothing to ingest" in line and "a.txt: binary content" in line
    assert not open_store().has_collection("junk")


def test_latin1_text_is_read_and_stored_as_text(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    (tmp_path / "old.txt").write_bytes("Café crème, résumé: naïve façade.".encode("latin-1"))
    assert cli("ingest", tmp_path / "old.txt", "-c", "docs").exit_code == 0
    [hit] = open_store().get_collection("docs").search("café", k=1)
    assert hit.text == "Café crème, résumé: naïve façade."


def test_a_file_name_that_is_not_utf8(cli: Cli, tmp_path: Path, open_store: Callable[[], Store]) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    name = os.fsdecode(b"caf\xe9.txt")  # Latin-1 bytes in a Linux file name
    (folder / name).write_text("Coffee notes.\n")
    result = cli("ingest", folder, "-c", "docs")
    assert result.exit_code == 0, result.output
    [doc] = open_store().get_collection("docs").documents()
    assert doc.id == "docs/caf\\xe9.txt" and doc.source == "docs/caf\\xe9.txt"


def test_a_fake_pdf_gets_one_line(
    cli: Cli, tmp_path: Path, assert_one_line_error: Callable[[Result, str], str], capfd: pytest.CaptureFixture[str]
) -> None:
    fake = tmp_path / "scan.pdf"
    fake.write_text("this is not a PDF at all, just text with a .pdf name\n" * 20)
    line = assert_one_line_error(cli("ingest", fake, "-c", "docs"), "ingest_failed")
    assert line == f"error[ingest_failed]: {fake}: not a PDF file (no %PDF header)"
    truncated = tmp_path / "broken.pdf"
    truncated.write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ngarbage" * 3)
    line = assert_one_line_error(cli("ingest", truncated, "-c", "docs"), "ingest_failed")
    assert line.startswith(f"error[ingest_failed]: {truncated}: ")
    assert capfd.readouterr().err == ""  # and nothing from pypdf's logger either


def test_plan_reads_a_latin1_question_file(cli: Cli, tmp_path: Path) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    questions = tmp_path / "questions.txt"
    questions.write_bytes("Which films are rated above 8.5, s'il vous plaît?\n".encode("latin-1"))
    result = cli("plan", "--collection", "movies", "--file", questions, "--json")
    assert result.exit_code == 0, result.output
    assert '"rating": {"$gt": 8.5}' in result.stdout


def test_plan_refuses_a_binary_question_file(
    cli: Cli, tmp_path: Path, assert_one_line_error: Callable[[Result, str], str]
) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_bytes(BINARY)
    line = assert_one_line_error(cli("plan", "--collection", "movies", "--file", questions), "usage_error")
    assert f"--file {questions}: binary content" in line


def test_plan_holds_questions_to_the_length_limit_of_ask(
    cli: Cli, tmp_path: Path, assert_one_line_error: Callable[[Result, str], str]
) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    line = assert_one_line_error(cli("plan", "--collection", "movies", "why " * 1200), "question_invalid")
    assert "is 4799 characters long; the limit is 4000" in line
    questions = tmp_path / "q.txt"
    questions.write_text("a fine question\n" + "why " * 1200 + "\n")
    line = assert_one_line_error(cli("plan", "--collection", "movies", "--file", questions), "question_invalid")
    assert "question 2 is 4799 characters long" in line


@pytest.mark.parametrize("thread", ["bad thread", ".leading-dot", "x" * 200, "ünïcode", "a/b"])
def test_ask_validates_thread_ids_like_the_api(
    cli: Cli, thread: str, assert_one_line_error: Callable[[Result, str], str], fake: FakeProviders
) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    fake.script(relevant=["dinosaurs"], generate="Jurassic Park [1].")
    line = assert_one_line_error(cli("ask", "What about dinosaurs?", "--collection", "movies", "--thread", thread), "usage_error")
    assert "invalid --thread" in line


def test_ingest_progress_without_a_terminal(tmp_path: Path) -> None:
    """Off a terminal: a periodic one-line status per stage (here every update), reading before embedding."""
    from selfrag.ingest import stage_progress

    out = io.StringIO()
    with stage_progress("docs", Console(file=out, force_terminal=False, width=200), every_s=0.0) as progress:
        progress("reading", 0, 2)
        progress("reading", 1, 2)
        progress("reading", 2, 2)
        progress("embedding", 0, 3)
        progress("embedding", 3, 3)
    assert out.getvalue().splitlines() == [
        "docs: reading 0/2 files", "docs: reading 1/2 files", "docs: reading 2/2 files",
        "docs: embedding 0/3 chunks", "docs: embedding 3/3 chunks",
    ]
