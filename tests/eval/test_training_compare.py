"""``python -m eval.training.compare``: a rebuild reproduces an artifact when its weights are the
same bytes, or every dev rate is within noise (the floor, or two standard errors of the rate on
its own sample) and the data counts are equal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.training.compare import compare, main


def _artifact(folder: Path, sha: str, auc: float, examples: int = 100, threshold: float = 0.8) -> Path:
    folder.mkdir(parents=True)
    (folder / "judge.json").write_text(json.dumps({"sha256": sha, "thresholds": {"reader": threshold}}))
    (folder / "metrics.json").write_text(json.dumps({"support": {"auc": auc, "examples": examples,
                                                                 "risk_coverage": [{"coverage": 0.5}]}}))
    return folder


def test_the_same_weights_are_reproduced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _artifact(tmp_path / "a", "abc", 0.9), _artifact(tmp_path / "b", "abc", 0.9)
    identical, rows = compare(a, b)
    assert identical and {r.name for r in rows} == {"thresholds.reader", "support.auc", "support.examples"}
    assert main([str(a), str(b)]) == 0
    assert "identical" in capsys.readouterr().out


def test_other_weights_within_noise_reproduce_beyond_it_do_not(tmp_path: Path) -> None:
    # 2,000 examples: two standard errors of a rate near 0.9 are about 0.013, under the 0.02 floor.
    a = _artifact(tmp_path / "a", "abc", 0.90, examples=2000)
    assert main([str(a), str(_artifact(tmp_path / "b", "def", 0.91, examples=2000))]) == 0
    assert main([str(a), str(_artifact(tmp_path / "c", "def", 0.85, examples=2000))]) == 1
    assert main([str(a), str(_artifact(tmp_path / "d", "def", 0.85, examples=2000)), "--tolerance", "0.06"]) == 0


def test_a_rate_on_few_examples_is_allowed_its_own_sampling_noise(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def artifact(folder: Path, accuracy: float) -> Path:
        folder.mkdir()
        (folder / "judge.json").write_text(json.dumps({"sha256": folder.name, "thresholds": {}}))
        (folder / "metrics.json").write_text(json.dumps({"reader": {"yes_no_accuracy": accuracy, "yes_no_examples": 20,
                                                                    "span_em": 0.57, "span_examples": 2000}}))
        return folder

    # 20 yes/no answers: one standard error of a rate near 0.6 is 0.11, so 0.65 -> 0.55 is noise;
    assert main([str(artifact(tmp_path / "a", 0.65)), str(artifact(tmp_path / "b", 0.55))]) == 0
    assert "(n=20)" in capsys.readouterr().out
    # 0.65 -> 0.20 is not.
    assert main([str(tmp_path / "a"), str(artifact(tmp_path / "c", 0.20))]) == 1


def test_a_threshold_is_shown_and_the_rates_it_holds_are_judged(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def artifact(folder: Path, threshold: float, kept: float, risk: float) -> Path:
        folder.mkdir()
        (folder / "judge.json").write_text(json.dumps({
            "sha256": folder.name, "thresholds": {"reader": threshold},
            "training": {"reader_threshold": {"answered": 400, "coverage": 0.25, "risk": risk}}}))
        (folder / "metrics.json").write_text(json.dumps({"support": {
            "threshold": threshold, "positives_kept": kept, "examples": 4000, "positives": 2000}}))
        return folder

    a = artifact(tmp_path / "a", 0.80, 0.72, 0.045)
    # Another threshold holding the same rates: reproduced.
    assert main([str(a), str(artifact(tmp_path / "b", 0.86, 0.725, 0.05))]) == 0
    out = capsys.readouterr().out
    assert "shown" in out and "(n=400)" in out and "(n=1600)" in out
    # The same threshold, other rates: not (positives kept, or the end-to-end risk over 400 answers).
    assert main([str(a), str(artifact(tmp_path / "c", 0.80, 0.78, 0.045))]) == 1
    assert main([str(a), str(artifact(tmp_path / "d", 0.80, 0.72, 0.09))]) == 1


def test_different_data_never_count_as_reproduced(tmp_path: Path) -> None:
    a = _artifact(tmp_path / "a", "abc", 0.90)
    assert main([str(a), str(_artifact(tmp_path / "b", "def", 0.90, examples=101))]) == 1


def test_a_folder_without_an_artifact_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _artifact(tmp_path / "a", "abc", 0.90)
    assert main([str(a), str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and err.startswith("error:")


def test_a_count_that_only_newer_code_reports_is_not_a_failure(tmp_path: Path) -> None:
    # An artifact built before a count was added (v7 has no reader.yes_no_examples) against its
    # rebuild with newer code: the count is shown as missing, the rates still decide.
    a = _artifact(tmp_path / "a", "abc", 0.90, examples=2000)
    b = _artifact(tmp_path / "b", "def", 0.90, examples=2000)
    metrics = json.loads((b / "metrics.json").read_text())
    metrics["support"]["yes_no_examples"] = 20
    (b / "metrics.json").write_text(json.dumps(metrics))
    assert main([str(a), str(b)]) == 0
    metrics["support"]["recall"] = 0.5  # a rate only one side has is still off
    (b / "metrics.json").write_text(json.dumps(metrics))
    assert main([str(a), str(b)]) == 1


@pytest.mark.parametrize(
    ("judge", "metrics"),
    [
        ("[]", "{}"),  # a judge.json that is not a record
        ('{"thresholds": {}}', "{}"),  # no sha256
        ('{"sha256": "abc", "training": []}', "{}"),
        ('{"sha256": "abc", "training": {"reader_threshold": [1]}}', "{}"),
        ('{"sha256": "abc"}', "[]"),  # metrics that are not a record
    ],
)
def test_a_malformed_artifact_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  judge: str, metrics: str) -> None:
    a = _artifact(tmp_path / "a", "abc", 0.90)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "judge.json").write_text(judge)
    (bad / "metrics.json").write_text(metrics)
    assert main([str(a), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and err.startswith("error:")
