"""The hand-written sets in eval/sets/ load, and agree with the sample collections they ask about."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.datasets import E2ECase, load_e2e
from selfrag.ingest import collect_files, read_inputs
from selfrag.query import parse_where
from selfrag.samples import load_sample, sample_dir
from selfrag.testing import matches_where

SETS = Path(__file__).resolve().parents[2] / "eval" / "sets"


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


@pytest.fixture(scope="module")
def movies() -> dict[str, dict[str, Any]]:
    lines = (sample_dir("movies") / "movies.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["id"]: row for row in map(json.loads, lines) if row}


@pytest.fixture(scope="module")
def filing_chunks() -> list[Any]:
    schema, paths = load_sample("filings")
    batch = read_inputs(schema, collect_files(paths))  # the metadata ingest would store, extractors included
    return [c for d in batch.documents for c in d.chunks]


def _check_filter(case: E2ECase, sample: str) -> None:
    assert case.collection == sample
    assert case.expected_filter is not None, f"{case.id}: every hand-written case states its filter ({{}} for none)"
    if case.expected_filter:
        parse_where(case.expected_filter, load_sample(sample)[0])  # valid for the schema: names, types, values


def test_both_sets_load_with_unique_ids_and_both_splits() -> None:
    for name, size in (("movies.jsonl", 14), ("filings.jsonl", 9)):
        cases = load_e2e(SETS / name)
        assert len(cases) == size
        assert {c.split for c in cases} == {"dev", "test"}
        assert all(c.reference_answer and c.meta.get("checks") for c in cases)
    assert (SETS / "README.md").is_file()


def test_movie_filters_select_their_gold_movies(movies: dict[str, dict[str, Any]]) -> None:
    for case in load_e2e(SETS / "movies.jsonl"):
        _check_filter(case, "movies")
        selected = {mid for mid, row in movies.items() if matches_where(row["metadata"], case.expected_filter)}
        assert selected, f"{case.id}: the filter selects no movie"
        assert case.gold_ids and set(case.gold_ids) <= selected, f"{case.id}: gold {case.gold_ids} vs {selected}"
        # The reference answer is stated by a gold movie, in its text or its metadata.
        stated = " | ".join(
            [movies[g]["text"] for g in case.gold_ids]
            + [str(v) for g in case.gold_ids for v in movies[g]["metadata"].values()]
        )
        assert case.reference_answer and _norm(case.reference_answer) in _norm(stated), case.id


def test_filing_filters_select_exactly_the_source_files(filing_chunks: list[Any]) -> None:
    for case in load_e2e(SETS / "filings.jsonl"):
        _check_filter(case, "filings")
        assert case.gold_ids is None  # chunk ids hash the install path; see eval/sets/README.md
        selected = {c.metadata["filename"] for c in filing_chunks if matches_where(c.metadata, case.expected_filter)}
        assert selected, f"{case.id}: the filter selects no chunk"
        assert selected == set(case.meta["source_files"]), case.id
        texts = " | ".join(c.text for c in filing_chunks if c.metadata["filename"] in selected)
        assert case.reference_answer and _norm(case.reference_answer) in _norm(texts), case.id
