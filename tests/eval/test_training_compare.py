"""``python -m eval.training.compare``: a rebuild reproduces an artifact when its weights are the
same bytes, or every dev rate is within the tolerance and the data counts are equal."""

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
    a = _artifact(tmp_path / "a", "abc", 0.90)
    assert main([str(a), str(_artifact(tmp_path / "b", "def", 0.91))]) == 0
    assert main([str(a), str(_artifact(tmp_path / "c", "def", 0.85))]) == 1
    assert main([str(a), str(_artifact(tmp_path / "d", "def", 0.85)), "--tolerance", "0.06"]) == 0
    assert main([str(a), str(_artifact(tmp_path / "e", "def", 0.90, threshold=0.9))]) == 1


def test_different_data_never_count_as_reproduced(tmp_path: Path) -> None:
    a = _artifact(tmp_path / "a", "abc", 0.90)
    assert main([str(a), str(_artifact(tmp_path / "b", "def", 0.90, examples=101))]) == 1


def test_a_folder_without_an_artifact_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _artifact(tmp_path / "a", "abc", 0.90)
    assert main([str(a), str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and err.startswith("error:")
