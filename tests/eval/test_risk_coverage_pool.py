"""``bench/risk_coverage.py --pool``: a threshold chosen on the cases of several dev runs at once."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script() -> object:
    spec = importlib.util.spec_from_file_location("risk_coverage", ROOT / "bench" / "risk_coverage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(folder: Path, rows: list[tuple[float, int]], name: str) -> Path:
    folder.mkdir(parents=True)
    cases = [{"outcome": "unverified", "confidence": c, "answer_correct": ok, "error": None} for c, ok in rows]
    (folder / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (folder / "manifest.json").write_text(json.dumps({"dataset": {"path": name, "cases_sha256": name * 2}}))
    return folder


def test_pooled_runs_choose_one_threshold_and_record_every_run(tmp_path: Path, monkeypatch: object) -> None:
    rc = _script()
    # alone, the first run would allow 0.7 (its one wrong answer sits lower); the second run's
    # wrong answer at 0.85 shows that 0.7 lets through more than 5 % once both are counted
    a = _run(tmp_path / "a", [(0.9, 1), (0.8, 1), (0.7, 1), (0.6, 0)] * 10, "rows-1-40")
    b = _run(tmp_path / "b", [(0.95, 1), (0.85, 0), (0.75, 1), (0.72, 1)] * 10, "rows-41-80")
    assert rc.choose(rc.curve(rc.load(a)), 0.05)["threshold"] == 0.7  # type: ignore[attr-defined]
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / "judge.json").write_text(json.dumps({"thresholds": {"reader": 0.5}}))
    argv = ["risk_coverage.py", str(a), str(b), "--pool", "--choose", "--max-risk", "0.05", "--write-threshold", str(artifact)]
    monkeypatch.setattr(sys, "argv", argv)  # type: ignore[attr-defined]
    assert rc.main() == 0  # type: ignore[attr-defined]
    info = json.loads((artifact / "judge.json").read_text())
    assert info["thresholds"]["reader"] == 0.9  # below it, the second run's wrong answers at 0.85 count
    assert info["training"]["reader_threshold"]["chosen_on"] == ["rows-1-40", "rows-41-80"]
    assert info["training"]["reader_threshold"]["answered"] == 20
