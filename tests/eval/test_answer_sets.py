"""The answer sets (eval/sets/heldout-*, eval/sets/dev-*) load, and every reference is stated by a gold document.

The dev sets mirror the held-out sets' format on other domains and are the ones to diagnose and
tune on; the held-out sets are reported once per candidate. No models: the sets are read with the
project's loader and checked as text, like ``test_eval_sets.py`` does for the sample sets.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from eval.datasets import E2ECase, load_documents, load_e2e

SETS = Path(__file__).resolve().parents[2] / "eval" / "sets"
HELD_OUT = ("heldout-leaflets", "heldout-statistics")
DEV = {"dev-handbooks": "handbooks", "dev-almanac": "almanac"}  # folder -> case id prefix
KINDS = {"factoid", "why", "how", "yesno", "comparison", "two_doc", "unanswerable"}
DEV_KIND_COUNTS = {"factoid": 11, "why": 6, "how": 6, "yesno": 7, "comparison": 5, "two_doc": 4, "unanswerable": 5}


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _load(name: str) -> tuple[list[E2ECase], dict[str, str]]:
    path = SETS / name / "questions.jsonl"
    cases = load_e2e(path)
    docs_path = cases[0].documents_path(path)
    assert docs_path is not None
    return cases, {d.id: d.text for d in load_documents(docs_path)}


@pytest.mark.parametrize("name", HELD_OUT)
def test_set_loads_as_one_held_out_corpus(name: str) -> None:
    cases, docs = _load(name)
    assert 40 <= len(cases) <= 50
    assert 12 <= len(docs) <= 16
    assert all(80 <= len(text.split()) <= 300 for text in docs.values())
    assert {c.split for c in cases} == {"test"}
    assert {(c.collection, c.documents_file) for c in cases} == {(name, "documents.jsonl")}
    assert (SETS / name / "README.md").is_file()
    kinds = Counter(c.meta["kind"] for c in cases)
    assert set(kinds) == KINDS, kinds
    assert kinds["unanswerable"] >= 4 and kinds["yesno"] >= 5


@pytest.mark.parametrize("name", DEV)
def test_set_loads_as_one_dev_corpus(name: str) -> None:
    cases, docs = _load(name)
    assert [c.id for c in cases] == [f"{DEV[name]}-{i:03d}" for i in range(1, len(cases) + 1)]
    assert 12 <= len(docs) <= 14
    assert all(180 <= len(text.split()) <= 250 for text in docs.values())
    assert {c.split for c in cases} == {"dev"}
    assert {(c.collection, c.documents_file) for c in cases} == {(name, "documents.jsonl")}
    assert (SETS / name / "README.md").is_file()
    assert Counter(c.meta["kind"] for c in cases) == DEV_KIND_COUNTS
    assert {c.reference_answer for c in cases if c.meta["kind"] == "yesno"} == {"yes", "no"}


@pytest.mark.parametrize("name", DEV)
def test_documents_carry_only_a_kind(name: str) -> None:
    path = SETS / name / "documents.jsonl"
    for doc in load_documents(path):
        assert set(doc.metadata) == {"kind"}, doc.id
        assert isinstance(doc.metadata["kind"], str) and doc.metadata["kind"], doc.id


@pytest.mark.parametrize("name", [*HELD_OUT, *DEV])
def test_every_reference_is_stated_by_a_gold_document(name: str) -> None:
    cases, docs = _load(name)
    for case in cases:
        meta = case.meta
        answerable = meta["answerable"]
        assert isinstance(meta.get("accept"), list), case.id
        assert answerable == (case.reference_answer is not None) == (meta["kind"] != "unanswerable"), case.id
        if not answerable:
            assert not case.gold_ids and not meta["accept"], case.id
            near = meta.get("near_miss") or []
            assert near and set(near) <= set(docs), f"{case.id}: near-miss ids {near}"
            continue
        assert case.gold_ids and set(case.gold_ids) <= set(docs), f"{case.id}: gold ids {case.gold_ids}"
        if meta["kind"] == "two_doc":
            assert len(set(case.gold_ids)) >= 2, case.id
        stated = " | ".join(_norm(docs[g]) for g in case.gold_ids)
        strings = list(meta["accept"]) + list(meta.get("figures", []))
        if meta["kind"] == "yesno":
            assert case.reference_answer in ("yes", "no"), case.id
            strings.append(meta["evidence"])
        else:
            assert case.reference_answer
            strings.append(case.reference_answer)
        if meta["kind"] == "comparison":
            assert len(meta["figures"]) == 2, case.id
        for s in strings:
            assert _norm(s) in stated, f"{case.id}: {s!r} is not in {case.gold_ids}"
