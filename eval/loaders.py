"""Datasets teams already have: CSV, RAGAS-style JSONL, a Hugging Face dataset saved to disk, a
LangSmith export, read through one column mapping into ``Prediction`` rows (or engine cases).

Formats (``fmt``; guessed from the path when None):

- ``selfrag``: the harness's own end-to-end JSONL (``eval.datasets.E2ECase``);
- ``jsonl`` / ``ragas``: one JSON object per line, e.g. RAGAS's ``EvaluationDataset`` rows
  ``{"user_input", "retrieved_contexts", "response", "reference"}``;
- ``csv``: a header row; a list column (contexts) holds a JSON array or one passage;
- ``hf``: a directory written by ``datasets.Dataset.save_to_disk`` (read offline with
  ``datasets.load_from_disk``; a ``DatasetDict`` gives its ``test`` split, else its only one);
- ``langsmith``: an export of a LangSmith dataset, JSONL or a JSON array of examples
  ``{"id", "inputs": {...}, "outputs": {...}, "metadata": {...}}``; nested keys are read as
  ``inputs.question``, ``outputs.answer``.

Mapping: each field of ``FIELDS`` is read from the first of its usual column names present, or
from the column given with ``FIELD=COLUMN`` (``--map question=user_input``). ``question`` is
required; ``id`` is generated when missing (``row-<n>``, counted from 1 in file order). A dataset
whose columns match nothing gets one message listing what it found and what was expected.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from eval.datasets import Document, E2ECase, load_e2e
from eval.predictions import Prediction
from selfrag.errors import DatasetError, UsageError

__all__ = ["FIELDS", "FORMATS", "guess_format", "load_cases", "load_rows", "parse_mapping"]

FORMATS = ("selfrag", "jsonl", "ragas", "csv", "hf", "langsmith")

FIELDS: dict[str, tuple[str, ...]] = {
    "id": ("id", "example_id", "question_id"),
    "question": ("question", "user_input", "query", "input", "inputs.question", "inputs.input", "inputs.query"),
    "answer": ("answer", "response", "prediction", "generated_answer", "outputs.response"),
    "contexts": ("contexts", "retrieved_contexts", "context", "documents", "passages", "inputs.contexts"),
    "reference": ("reference", "reference_answer", "ground_truth", "ground_truths", "expected_answer",
                  "expected_output", "outputs.answer", "outputs.output", "outputs.reference"),
    "collection": ("collection",),
    "outcome": ("outcome",),
    "confidence": ("confidence",),
    "answerable": ("answerable",),
}
"""Each field a row may carry and the column names it is read from by default, in order.

``answer`` is the *system's* answer (a predictions file); a dataset whose ``answer`` column is
the reference says so: ``--map reference=answer``."""


def parse_mapping(items: Sequence[str]) -> dict[str, str]:
    """``["question=user_input", ...]`` as ``{"question": "user_input"}``.

    Raises:
        UsageError: an item is not ``FIELD=COLUMN`` or names an unknown field.
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, column = item.partition("=")
        name, column = name.strip(), column.strip()
        if not sep or not name or not column:
            raise UsageError(f"bad mapping {item!r}: expected FIELD=COLUMN, e.g. question=user_input")
        if name not in FIELDS:
            raise UsageError(f"bad mapping {item!r}: unknown field {name!r} (fields: {', '.join(FIELDS)})")
        out[name] = column
    return out


def guess_format(path: Path) -> str:
    """The format of ``path`` from its kind and, for JSON lines, its first row's shape."""
    if path.is_dir():
        return "hf"
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return "csv"
    first = _first_object(path)
    if isinstance(first.get("inputs"), dict):
        return "langsmith"
    if "id" in first and "question" in first and ("collection" in first or "documents" in first):
        return "selfrag"
    return "jsonl"


def load_rows(path: str | Path, *, fmt: str | None = None, mapping: Mapping[str, str] | None = None) -> list[Prediction]:
    """Every row of a dataset or predictions file, mapped onto ``Prediction``'s fields.

    Raises:
        DatasetError: unreadable, a format it is not, no question column, a bad row (named by its
            number), repeated ids, or no rows.
        UsageError: an unknown format.
    """
    p = Path(path)
    if not p.exists():
        raise DatasetError(f"dataset {p} does not exist")
    chosen = fmt or guess_format(p)
    if chosen not in FORMATS:
        raise UsageError(f"unknown dataset format {chosen!r} (formats: {', '.join(FORMATS)})")
    if chosen == "selfrag":
        return [_from_case(c) for c in load_e2e(p)]
    raw = _read(p, chosen)
    if not raw:
        raise DatasetError(f"dataset {p} has no rows")
    columns = list(dict.fromkeys(k for row in raw for k in row))
    chosen_columns = _resolve(p, columns, dict(mapping or {}))
    rows = [_row(p, n, row, chosen_columns) for n, row in enumerate(raw, start=1)]
    ids = [r.id for r in rows]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise DatasetError(f"dataset {p} repeats ids: {', '.join(dupes[:5])}")
    return rows


def load_cases(path: str | Path, *, fmt: str | None = None, mapping: Mapping[str, str] | None = None) -> list[E2ECase]:
    """End-to-end cases from any supported format; a foreign row's contexts become its documents.

    Raises:
        DatasetError: as ``load_rows``, or a row with neither contexts nor a collection.
    """
    p = Path(path)
    if (fmt or (guess_format(p) if p.exists() else "selfrag")) == "selfrag":
        if mapping:
            raise UsageError("--map applies to foreign datasets; a selfrag dataset already names its fields")
        return load_e2e(p)
    cases = []
    for n, row in enumerate(load_rows(p, fmt=fmt, mapping=mapping), start=1):
        if not row.contexts and not row.collection:
            raise DatasetError(f"{p}: row {n} ({row.id}) has no contexts and no collection to answer from "
                               "(map one: --map contexts=COLUMN or --map collection=COLUMN)")
        docs = None if row.collection else [Document(id=f"{row.id}-ctx{i}", text=t) for i, t in enumerate(row.contexts, 1)]
        cases.append(E2ECase(id=row.id, question=row.question, collection=row.collection, documents=docs,
                             reference_answer=row.reference, meta={"answerable": row.answerable} if row.answerable is not None else {}))
    return cases


def _from_case(case: E2ECase) -> Prediction:
    answerable = case.meta.get("answerable")
    return Prediction(id=case.id, question=case.question, reference=case.reference_answer, collection=case.collection,
                      contexts=[d.text for d in case.documents or []],
                      answerable=answerable if isinstance(answerable, bool) else None)


# -- reading each format into flat dicts ------------------------------------------------------------
def _first_object(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read dataset {path}: {exc}") from exc
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"dataset {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from exc
        first = items[0] if isinstance(items, list) and items else {}
    else:
        line = next((ln for ln in text.splitlines() if ln.strip()), "{}")
        try:
            first = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"dataset {path} is neither JSON lines nor CSV (first line: {exc.msg}); "
                               "give --format csv for a CSV without a .csv name") from exc
    return first if isinstance(first, dict) else {}


def _flatten(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects (LangSmith's ``inputs``/``outputs``) as dotted keys; the object itself stays too."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        name = f"{prefix}{key}"
        out[name] = value
        if isinstance(value, dict) and not prefix:
            out.update(_flatten(value, f"{name}."))
    return out


def _read(path: Path, fmt: str) -> list[dict[str, Any]]:
    if fmt == "hf":
        return [_flatten(r) for r in _read_hf(path)]
    if fmt == "csv":
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise DatasetError(f"cannot read dataset {path}: {exc}") from exc
        dialect = "excel-tab" if path.suffix.lower() == ".tsv" else "excel"
        return [dict(r) for r in csv.DictReader(io.StringIO(text), dialect=dialect)]
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read dataset {path}: {exc}") from exc
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"dataset {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from exc
    else:
        items = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{n}: not valid JSON ({exc.msg}); a CSV needs a .csv name or --format csv") from exc
    if not all(isinstance(i, dict) for i in items):
        raise DatasetError(f"dataset {path}: every row must be a JSON object")
    return [_flatten(i) for i in items]


def _read_hf(path: Path) -> list[dict[str, Any]]:
    try:
        import datasets  # the optional dependency, loaded only for this format
    except ImportError as exc:
        raise DatasetError("reading a Hugging Face dataset needs the 'datasets' package: pip install datasets") from exc
    try:
        loaded = datasets.load_from_disk(str(path))
    except (FileNotFoundError, ValueError, OSError) as exc:
        raise DatasetError(f"{path} is not a Hugging Face dataset saved with save_to_disk") from exc
    if isinstance(loaded, datasets.DatasetDict):
        splits = list(loaded)
        split = "test" if "test" in loaded else splits[0] if len(splits) == 1 else None
        if split is None:
            raise DatasetError(f"{path} holds splits {', '.join(splits)} and none is 'test'; save the one to evaluate")
        loaded = loaded[split]
    return [dict(r) for r in loaded]


# -- mapping -----------------------------------------------------------------------------------------
def _resolve(path: Path, columns: list[str], mapping: dict[str, str]) -> dict[str, str]:
    """Field → the column it is read from."""
    missing = [f"{f}={c}" for f, c in mapping.items() if c not in columns]
    if missing:
        raise DatasetError(f"dataset {path}: mapped column(s) not found: {', '.join(missing)} "
                           f"(found: {', '.join(columns[:20])})")
    out = dict(mapping)
    for field, names in FIELDS.items():
        if field not in out:
            found = next((c for c in names if c in columns), None)
            if found is not None:
                out[field] = found
    if "question" not in out:
        expected = ", ".join(FIELDS["question"])
        raise DatasetError(f"dataset {path}: no question column; found columns {', '.join(columns[:20]) or '(none)'}; "
                           f"expected one of {expected} (or map one: --map question=COLUMN)")
    return out


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list):  # RAGAS's older ground_truths: a list of references
        return str(value[0]) if value else None
    return str(value)


def _contexts(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return [value]
    if isinstance(value, list):
        return [str(v.get("text", v.get("page_content", v)) if isinstance(v, dict) else v) for v in value]
    return [str(value)]


def _flag(value: Any) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "y")


def _row(path: Path, n: int, raw: Mapping[str, Any], columns: Mapping[str, str]) -> Prediction:
    def get(field: str) -> Any:
        return raw.get(columns[field]) if field in columns else None

    confidence = get("confidence")
    try:
        return Prediction(
            id=_text(get("id")) or f"row-{n}",
            question=_text(get("question")) or "",
            answer=_text(get("answer")) or "",
            contexts=_contexts(get("contexts")),
            reference=_text(get("reference")),
            collection=_text(get("collection")) or None,
            outcome=_text(get("outcome")) or None,
            confidence=float(confidence) if confidence not in (None, "") else None,
            answerable=_flag(get("answerable")),
        )
    except (ValidationError, ValueError, TypeError) as exc:
        what = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise DatasetError(f"{path}: row {n}: {what}") from exc
