"""Comparing two runs: paired deltas, bootstrap intervals, McNemar's exact test, gates — worked by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.compare import (
    check_regressions,
    compare_runs,
    mcnemar_exact,
    paired_bootstrap,
    render_comparison,
)
from eval.datasets import DatasetError
from selfrag.errors import UsageError

# Six shared cases c1..c6; c7 only in A, c8 only in B.
A_CONTAINS = [1, 1, 1, 1, 0, 1]
B_CONTAINS = [0, 0, 0, 0, 0, 1]  # c1..c4 broke, none fixed: b = 4, c = 0
A_F1 = [1.0, 0.8, 0.6, 1.0, 0.0, 0.5]  # mean 0.65
B_F1 = [0.5, 0.4, 0.6, 0.9, 0.0, 0.5]  # mean 0.48333; delta -1/6
A_RECALL = [1.0, None, 0.5, None, 0.0, 1.0]
B_RECALL = [1.0, 0.5, None, None, 1.0, 1.0]  # paired on c1, c5, c6 only: delta +1/3


def _run(
    path: Path, contains: list[int], f1: list[float], recall: list[float | None], latency: float, extra: str
) -> Path:
    path.mkdir()
    rows: list[dict[str, Any]] = [
        {"id": f"c{i + 1}", "answer_contains": contains[i], "answer_exact": 0, "answer_f1": f1[i],
         "recall_at_4": recall[i], "mrr": None, "filter_ok": None, "grounded": None, "outcome": "answered",
         "latency_s": latency, "llm_calls": 3}
        for i in range(6)
    ]  # fmt: skip
    rows.append({"id": extra, "answer_contains": 1, "answer_f1": 1.0, "latency_s": 9.0, "llm_calls": 9, "outcome": "x"})
    (path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (path / "summary.json").write_text(json.dumps({"cases": 7}), encoding="utf-8")
    return path


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    a = _run(tmp_path / "baseline", A_CONTAINS, A_F1, A_RECALL, 1.0, "c7")
    b = _run(tmp_path / "candidate", B_CONTAINS, B_F1, B_RECALL, 2.0, "c8")
    return a, b


def test_mcnemar_exact_by_hand() -> None:
    assert mcnemar_exact(4, 0) == pytest.approx(0.125)  # 2 * (1/2)^4
    assert mcnemar_exact(0, 4) == pytest.approx(0.125)
    assert mcnemar_exact(5, 1) == pytest.approx(2 * (1 + 6) / 64)
    assert mcnemar_exact(10, 2) == pytest.approx(2 * (1 + 12 + 66) / 4096)
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0


def test_paired_bootstrap_by_hand() -> None:
    assert paired_bootstrap([1.0, 1.0, 1.0]) == (1.0, 1.0)  # no spread, no interval
    # Two cases: resampled means are 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4.
    assert paired_bootstrap([0.0, 1.0], n_boot=4000) == (0.0, 1.0)
    assert paired_bootstrap([0.1, -0.3, 0.2], seed=3) == paired_bootstrap([0.1, -0.3, 0.2], seed=3)


def test_compare_pairs_cases_by_id(runs: tuple[Path, Path]) -> None:
    c = compare_runs(*runs)
    assert (c.paired, c.only_a, c.only_b) == (6, ("c7",), ("c8",))
    # mrr, filter_ok and grounded are null everywhere, so they are not compared by default.
    assert [m.metric for m in c.metrics] == [
        "answer_exact",
        "answer_f1",
        "answer_contains",
        "recall_at_4",
        "latency_s",
        "llm_calls",
    ]

    f1 = c.metric("answer_f1")
    assert f1.n == 6 and f1.mean_a == pytest.approx(0.65) and f1.mean_b == pytest.approx(2.9 / 6)
    assert f1.delta == pytest.approx(-1 / 6) and not f1.lower_is_better
    assert f1.ci_low is not None and f1.ci_high is not None
    assert f1.ci_low <= f1.delta <= f1.ci_high and f1.ci_high <= 0.0  # every case got worse or stayed

    recall = c.metric("recall_at_4")
    assert recall.n == 3 and recall.delta == pytest.approx(1 / 3)  # nulls drop the case from this metric only

    latency = c.metric("latency_s")
    assert latency.lower_is_better and latency.delta == pytest.approx(1.0)
    assert (latency.ci_low, latency.ci_high) == (pytest.approx(1.0), pytest.approx(1.0))
    with pytest.raises(UsageError, match="not compared"):
        c.metric("mrr")


def test_mcnemar_and_flips_on_correctness(runs: tuple[Path, Path]) -> None:
    c = compare_runs(*runs)
    assert c.correctness == "answer_contains"
    assert (c.mcnemar.b, c.mcnemar.c) == (4, 0) and c.mcnemar.p_value == pytest.approx(0.125)
    assert c.broke == ("c1", "c2", "c3", "c4") and c.fixed == ()
    reverse = compare_runs(runs[1], runs[0])
    assert reverse.broke == () and reverse.fixed == ("c1", "c2", "c3", "c4")
    # Correctness is configurable: answer_exact is 0 everywhere, so nothing flips.
    exact = compare_runs(*runs, correctness="answer_exact")
    assert (exact.mcnemar.b, exact.mcnemar.c, exact.mcnemar.p_value) == (0, 0, 1.0)


def test_regression_gates(runs: tuple[Path, Path]) -> None:
    c = compare_runs(*runs)
    tripped = check_regressions(c, ["answer_f1:0.02", "latency_s:0.5"])
    assert len(tripped) == 2
    assert tripped[0] == "answer_f1 fell by 0.1667 (0.65 → 0.4833 on 6 cases), more than the 0.02 allowed"
    assert tripped[1].startswith("latency_s rose by 1 (1 → 2 on 6 cases)")
    assert check_regressions(c, ["answer_f1:0.2", "latency_s:1.5", "recall_at_4:0", "llm_calls"]) == []
    assert check_regressions(c, ["answer_f1"]) != []  # no tolerance: any drop trips
    # A known metric without paired values cannot be checked, so its gate fails rather than passes.
    assert check_regressions(c, ["grounded:0.1"]) == [
        "grounded: no case has a value in both runs, so the gate cannot be checked"
    ]


@pytest.mark.parametrize(
    ("gate", "message"),
    [("answer_f2:0.1", "unknown metric 'answer_f2'"), ("answer_f1:abc", "bad regression gate"),
     ("answer_f1:-0.1", "bad regression gate"), (":0.1", "bad regression gate"), ("answer_f1:nan", "bad regression gate")],
)  # fmt: skip
def test_bad_gates_are_usage_errors(runs: tuple[Path, Path], gate: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        check_regressions(compare_runs(*runs), [gate])


def test_explicit_metrics_and_unknown_ones(runs: tuple[Path, Path]) -> None:
    c = compare_runs(*runs, metrics=["answer_f1", "mrr"])
    assert [m.metric for m in c.metrics] == ["answer_f1", "mrr"]
    assert c.metric("mrr").n == 0 and c.metric("mrr").delta is None
    with pytest.raises(UsageError, match="unknown metric 'bleu'"):
        compare_runs(*runs, metrics=["bleu"])
    with pytest.raises(UsageError, match="n_boot"):
        compare_runs(*runs, n_boot=0)


def test_render_is_a_markdown_table_with_the_test_and_the_flips(runs: tuple[Path, Path]) -> None:
    text = render_comparison(compare_runs(*runs))
    assert "## candidate (B) vs baseline (A)" in text
    assert "6 paired cases (1 only in A, 1 only in B)." in text
    assert "| metric | A | B | Δ (B−A) | 95% CI | n |" in text
    assert "| answer_f1 ↑ | 0.650 | 0.483 | -0.167 |" in text
    assert "| latency_s ↓ | 1.000 | 2.000 | +1.000 | [+1.000, +1.000] | 6 |" in text
    assert "McNemar exact p = 0.125" in text
    assert "- A right → B wrong: c1, c2, c3, c4" in text and "A wrong → B right" not in text


def test_bad_run_directories_are_dataset_errors(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist"):
        compare_runs(tmp_path / "nope", tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="cannot read .*cases.jsonl"):
        compare_runs(tmp_path / "empty", tmp_path / "empty")
    dup = tmp_path / "dup"
    dup.mkdir()
    (dup / "cases.jsonl").write_text('{"id": "a"}\n{"id": "a"}\n')
    with pytest.raises(DatasetError, match="cases.jsonl:2: case id 'a' appears twice"):
        compare_runs(dup, dup)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "cases.jsonl").write_text('{"id": "a"}\nnot json\n')
    with pytest.raises(DatasetError, match="cases.jsonl:2: not valid JSON"):
        compare_runs(bad, bad)
