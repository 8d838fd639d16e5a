"""Self-query sets: a schema, a small sample collection and labelled questions, in one folder.

A set is a folder under ``eval/sets/`` holding::

    set.json         {"name": "recipes", "today": "2025-06-01", "description": "...",
                      "sample": "movies"}            # optional: take schema and records from a shipped sample
    schema.json      the collection schema (selfrag.schema.CollectionSchema), unless "sample" is given
    records.jsonl    the sample collection: {"id", "text", "metadata"} per line, unless "sample" is given
    questions.jsonl  {"id", "question", "accept": [where, ...], "limit": int | null,
                      "split": "dev" | "heldout", "note": "..."}

``accept`` lists every Chroma ``where`` clause that answers the question right (``{}`` for "no
filter"); a produced filter is right when it selects the same probe records as one of them (see
``eval.probes``), so equivalent syntax scores the same. ``limit`` is the number of results the
question asks for (null: none). ``today`` fixes what relative phrases ("the last 3 years") mean.
``split``: tune on ``dev`` only; ``heldout`` is for reporting.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eval.datasets import Document, read_jsonl
from selfrag.errors import DatasetError
from selfrag.schema import CollectionSchema, load_schema_file
from selfrag.store.catalogue import Catalogue

__all__ = ["PlanCase", "PlanSet", "PlanSplit", "SetRecord", "load_plan_set"]

PlanSplit = Literal["dev", "heldout"]


class PlanCase(BaseModel):
    """One labelled question."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str = Field(min_length=1)
    accept: list[dict[str, Any]] = Field(min_length=1)
    """Where clauses that count as right; ``{}`` means no filter."""
    limit: int | None = None
    split: PlanSplit = "dev"
    note: str = ""


SetRecord = Document
"""One document of a set's sample collection: the dataset ``Document`` record."""


class _SetInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    today: date
    description: str = ""
    sample: str | None = None


class PlanSet(BaseModel):
    """A loaded set: what the planner sees (schema, catalogue) and what it is scored on."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    today: date
    schema_: CollectionSchema
    records: list[SetRecord]
    cases: list[PlanCase]

    def catalogue(self) -> dict[str, list[str]]:
        """The known values a collection holding ``records`` would report (the store's own rules)."""
        cat = Catalogue()
        cat.merge((r.metadata for r in self.records), self.schema_)
        return {a.name: list(cat.values[a.name]) for a in self.schema_.attributes if a.name in cat.values}

    def split(self, which: PlanSplit | Literal["all"]) -> list[PlanCase]:
        return [c for c in self.cases if which == "all" or c.split == which]


def load_plan_set(folder: str | Path) -> PlanSet:
    """Read a set folder.

    Raises:
        DatasetError: a file is missing or malformed (one line naming the file and line).
    """
    root = Path(folder)
    if not (root / "set.json").is_file():
        raise DatasetError(f"{root} is not a self-query set (no set.json)")
    try:
        info = _SetInfo.model_validate_json((root / "set.json").read_text(encoding="utf-8"))
    except (OSError, ValidationError) as exc:
        raise DatasetError(f"{root / 'set.json'}: not a valid set description") from exc
    if info.sample is not None:
        from selfrag.samples import sample_dir

        source = sample_dir(info.sample)
        schema = load_schema_file(source / "schema.json")
        records_path = next(source.glob("*.jsonl"), None)
        if records_path is None:
            raise DatasetError(f"sample {info.sample!r} has no jsonl records to score against")
    else:
        schema = load_schema_file(root / "schema.json")
        records_path = root / "records.jsonl"
    records = read_jsonl(records_path, Document)
    cases = read_jsonl(root / "questions.jsonl", PlanCase)
    return PlanSet(name=info.name, today=info.today, schema_=schema, records=records, cases=cases)
