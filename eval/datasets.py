"""Dataset files of the evaluation harness: end-to-end cases and grader cases, as JSONL.

End-to-end case (one per line)::

    {"id": "movies-001", "question": "...", "collection": "movies",          # an existing collection, or
     "documents": [{"id": "d1", "text": "...", "metadata": {...}}],          # inline documents (a collection is built), or
     "collection": "halueval-qa-1-200", "documents_file": "documents.jsonl", # a shared corpus file to ingest
     "reference_answer": "...", "expected_filter": {"rating": {"$gt": 8.5}} | null,
     "gold_ids": ["d1"], "split": "dev" | "test", "meta": {...}}

Grader case::

    {"id": "g-001", "kind": "relevance" | "groundedness" | "usefulness", "question": "...",
     "documents": [{"id": ..., "text": ..., "metadata": {...}}], "answer": "...",
     "label": true | false, "split": "dev" | "test", "meta": {...}}

``documents_file`` lets many cases share one corpus without repeating it on every line: a jsonl
of documents (the ``Document`` shape, which ``selfrag ingest`` also reads) named relative to the
dataset file, to be ingested into ``collection``. ``load_e2e`` checks that it exists;
``load_documents`` reads it.

``label`` is the positive verdict: relevant / grounded / useful. Every line is validated; a bad
line is reported with its number. A dataset's hash (sha256 of its bytes) identifies it in run
manifests.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graders import GRADERS, CaseInputs
from selfrag.errors import DatasetError
from selfrag.jsonl import json_models

__all__ = [
    "Document",
    "E2ECase",
    "GraderCase",
    "DatasetError",
    "Split",
    "load_documents",
    "load_e2e",
    "load_grader_cases",
    "read_jsonl",
    "write_jsonl",
    "dataset_hash",
]

Split = Literal["dev", "test"]
T = TypeVar("T", bound=BaseModel)


class Document(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    text: str
    metadata: dict[str, str | int | float | bool] = Field(default_factory=dict)


class E2ECase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    question: str = Field(min_length=1)
    collection: str | None = None
    documents: list[Document] | None = None
    documents_file: str | None = None
    """A jsonl of documents to ingest into ``collection``, relative to the dataset file (shared corpora)."""
    reference_answer: str | None = None
    expected_filter: dict[str, Any] | None = None
    """The Chroma where clause the self-query step should produce; compared by what it selects."""
    gold_ids: list[str] | None = None
    """Ids of the documents that answer the question (document ids for inline documents)."""
    split: Split = "test"
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _has_source(self) -> E2ECase:
        if self.collection is None and not self.documents:
            raise ValueError("a case needs a 'collection' or inline 'documents'")
        if self.documents_file is not None:
            if self.collection is None or self.documents:
                raise ValueError("'documents_file' needs a 'collection' to ingest into and no inline 'documents'")
            if not self.documents_file.strip() or Path(self.documents_file).is_absolute():
                raise ValueError("'documents_file' must be a path relative to the dataset file")
        return self

    def documents_path(self, dataset: str | Path) -> Path | None:
        """Where this case's ``documents_file`` is, for a case read from ``dataset``."""
        return None if self.documents_file is None else Path(dataset).parent / self.documents_file


class GraderCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    kind: str
    """A registered grader kind (``graders.GRADERS``)."""
    question: str = ""
    documents: list[Document] = Field(default_factory=list)
    answer: str = ""
    label: bool
    """True for the positive verdict: relevant / grounded / useful."""
    split: Split = "test"
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _inputs(self) -> GraderCase:
        grader = GRADERS.get(self.kind)
        if grader is None:
            raise ValueError(f"unknown grader kind {self.kind!r} (known: {', '.join(GRADERS)})")
        problem = grader.case_problem(self.inputs())
        if problem:
            raise ValueError(problem)
        return self

    def inputs(self) -> CaseInputs:
        """What a grader reads; ``meta.score`` is the case's retrieval similarity, when recorded."""
        score = self.meta.get("score")
        return CaseInputs(self.question, [d.model_dump() for d in self.documents], self.answer,
                          float(score) if isinstance(score, (int, float)) else None)


def read_jsonl(path: str | Path, model: type[T]) -> list[T]:
    """Every dataset file's reader: one ``model`` per non-blank line, at least one, ids unique.

    Raises:
        DatasetError: unreadable, a line that is not JSON or not a ``model`` (named by line), no
            rows, or a repeated id.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read dataset {p}: {exc.strerror or exc}") from exc
    out: list[T] = [row for _, row in json_models(text, str(p), DatasetError, model)]
    if not out:
        raise DatasetError(f"dataset {p} has no cases")
    ids = [c.id for c in out]  # type: ignore[attr-defined]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise DatasetError(f"dataset {p} repeats case ids: {', '.join(dupes[:5])}")
    return out


def load_e2e(path: str | Path) -> list[E2ECase]:
    """Read and validate an end-to-end dataset. Raises ``DatasetError`` with the bad line's number.

    A case's ``documents_file`` must exist (checked here so a run fails before it starts).
    """
    cases = read_jsonl(path, E2ECase)
    for case in cases:
        docs = case.documents_path(path)
        if docs is not None and not docs.is_file():
            raise DatasetError(f"{path}: case {case.id}: documents_file {case.documents_file!r} not found ({docs})")
    return cases


def load_documents(path: str | Path) -> list[Document]:
    """Read a documents file (one ``Document`` per line, unique ids), e.g. a case's ``documents_file``."""
    return read_jsonl(path, Document)


def load_grader_cases(path: str | Path, *, kind: str | None = None) -> list[GraderCase]:
    """Read grader cases, optionally keeping one kind."""
    cases = read_jsonl(path, GraderCase)
    return [c for c in cases if kind is None or c.kind == kind]


def write_jsonl(path: str | Path, rows: Iterable[BaseModel | dict[str, Any]]) -> int:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with p.open("w", encoding="utf-8") as f:
        for row in rows:
            data = row.model_dump(mode="json", exclude_none=True) if isinstance(row, BaseModel) else row
            f.write(json.dumps(data, ensure_ascii=False) + "\n")
            n += 1
    return n


def dataset_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
