"""``python -m eval.training.recalibrate --artifact DIR``: a folder that holds no usable artifact is
a one-line error and a non-zero exit, before any data is fetched and with nothing rewritten."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from eval.training import recalibrate


@pytest.fixture(autouse=True)
def _no_data(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("training data was fetched")

    monkeypatch.setattr(recalibrate, "halueval_rows", never)
    monkeypatch.setattr(recalibrate, "fitz_cases", never)


def _one_line_error(capsys: pytest.CaptureFixture[str], code: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error[{code}]: "), err
    return err


def test_a_missing_artifact_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert recalibrate.main(["--artifact", str(tmp_path / "missing")]) != 0
    err = _one_line_error(capsys, "provider_unavailable")
    assert "judge.json is missing" in err and str(tmp_path) not in err


def test_a_malformed_record_is_a_one_line_error_and_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "judge.json").write_text("{not json")
    assert recalibrate.main(["--artifact", str(tmp_path)]) != 0
    assert "is not valid" in _one_line_error(capsys, "provider_unavailable")
    assert (tmp_path / "judge.json").read_text() == "{not json"


@pytest.mark.parametrize("manifest", [None, "{bad", json.dumps({"halueval": {}}), json.dumps({"halueval": {"dev_rows": 7}})])
def test_an_artifact_without_its_dev_rows_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, manifest: str | None
) -> None:
    judge = SimpleNamespace(info=SimpleNamespace(training={"seed": 3}))
    monkeypatch.setattr(recalibrate, "load_judge", lambda folder: judge)
    if manifest is not None:
        (tmp_path / "manifest.json").write_text(manifest)
    assert recalibrate.main(["--artifact", str(tmp_path)]) == 2
    assert "manifest.json" in _one_line_error(capsys, "dataset_invalid")
