"""``E2ECase.documents_file``: many cases sharing one corpus file, named relative to the dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.datasets import DatasetError, E2ECase, load_documents, load_e2e

CASE = {"id": "c1", "question": "q?", "collection": "corpus", "documents_file": "docs/corpus.jsonl"}


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_case_reads_its_documents_file_relative_to_the_dataset(tmp_path: Path) -> None:
    _write(tmp_path / "set" / "docs" / "corpus.jsonl", [{"id": "d1", "text": "one", "metadata": {"row": 1}}])
    dataset = _write(tmp_path / "set" / "e2e.jsonl", [CASE])
    (case,) = load_e2e(dataset)
    assert case.documents_path(dataset) == tmp_path / "set" / "docs" / "corpus.jsonl"
    (doc,) = load_documents(case.documents_path(dataset) or "")
    assert (doc.id, doc.text, doc.metadata) == ("d1", "one", {"row": 1})


def test_a_missing_documents_file_fails_the_load(tmp_path: Path) -> None:
    dataset = _write(tmp_path / "e2e.jsonl", [CASE])
    with pytest.raises(DatasetError, match="case c1: documents_file 'docs/corpus.jsonl' not found"):
        load_e2e(dataset)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"collection": None}, "needs a 'collection'"),
        ({"documents": [{"id": "d", "text": "t"}]}, "no inline 'documents'"),
        ({"documents_file": "/abs/corpus.jsonl"}, "relative to the dataset file"),
        ({"documents_file": " "}, "relative to the dataset file"),
    ],
)
def test_documents_file_rules(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        E2ECase.model_validate({**CASE, **change})


def test_cases_without_documents_file_are_unchanged(tmp_path: Path) -> None:
    case = E2ECase(id="c", question="q?", collection="movies")
    assert case.documents_file is None and case.documents_path(tmp_path / "x.jsonl") is None
    assert "documents_file" not in case.model_dump(exclude_none=True)


def test_documents_files_reject_duplicate_ids(tmp_path: Path) -> None:
    path = _write(tmp_path / "docs.jsonl", [{"id": "d", "text": "a"}, {"id": "d", "text": "b"}])
    with pytest.raises(DatasetError, match="repeats case ids: d"):
        load_documents(path)
