"""Answers made elsewhere scored into a run directory; the report's table of cases that went
wrong; the settings diff of ``eval compare``; the scratch store; the models a manifest names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chromadb
import pytest

from eval.compare import compare_runs, parse_gates, render_comparison
from eval.config_diff import manifest_diff
from eval.manifest import build_manifest
from eval.predictions import Prediction
from eval.report import render_html, render_markdown, went_wrong
from eval.runner import run_eval
from eval.scoring import score_predictions
from selfrag.errors import DatasetError, UsageError
from selfrag.settings import Settings
from selfrag.store import Store, chroma_settings
from selfrag.testing import HashEmbeddings, ScriptedJudge
from tests.eval.test_eval_runner import Factory, cases

Q = "Which city is the capital of Peru?"


def _judge() -> ScriptedJudge:
    # support: the claim names Lima; relevance and usefulness: the passage or answer does
    return ScriptedJudge(lambda task, first, second: 0.9 if "Lima" in (first if task == "support" else second) else 0.1,
                         thresholds={"support": 0.5, "relevance": 0.5})


PREDICTIONS = [
    Prediction(id="p1", question=Q, answer="Lima", contexts=["Lima is the capital of Peru."], reference="Lima"),
    Prediction(id="p2", question=Q, answer="Cusco is the capital", contexts=["Cusco was the Inca capital."], reference="Lima"),
    Prediction(id="p3", question=Q, answer="", reference="Lima"),
    Prediction(id="p4", question=Q, answer="Lima", outcome="ungrounded", reference="Lima", verdict="groundedness: ungrounded"),
]


def test_a_predictions_file_is_scored_like_an_engine_run(tmp_path: Path) -> None:
    summary, records, manifest = score_predictions(
        PREDICTIONS, tmp_path / "theirs", settings=Settings(), judge=_judge(),
        judge_info={"kind": "local", "model": "scripted-judge", "prompt_version": "judged-v1", "cache": None},
        source={"kind": "predictions", "path": "p.jsonl"}, command=["test"],
    )
    by_id = {r["id"]: r for r in records}
    assert [by_id[i]["outcome"] for i in ("p1", "p2", "p3", "p4")] == ["answered", "answered", "abstained", "ungrounded"]
    assert by_id["p1"]["answer_exact"] == 1.0 and by_id["p2"]["answer_correct"] == 0.0
    assert by_id["p1"]["judged_correct"] == 1.0 and by_id["p2"]["judged_correct"] == 0.0
    assert by_id["p1"]["faithfulness"] == 1.0 and by_id["p3"]["faithfulness"] is None
    assert by_id["p3"]["abstained"] == 1.0 and by_id["p3"]["abstention_ok"] == 0.0
    assert by_id["p1"]["recall_at_4"] is None  # retrieval needs the engine's trace
    assert summary["judged_correct"]["n"] == 3 and summary["abstain_rate"]["value"] == 0.25
    assert summary["risk_coverage"]["correct"] == "judged_correct"
    assert manifest["answers_from"] == {"kind": "predictions", "path": "p.jsonl"}
    assert manifest["judged_by"]["model"] == "scripted-judge"
    for name in ("cases.jsonl", "summary.json", "manifest.json", "report.md", "report.html"):
        assert (tmp_path / "theirs" / name).is_file()
    md = (tmp_path / "theirs" / "report.md").read_text()
    assert "## Cases that went wrong (3)" in md and "judged by: scripted-judge (prompts judged-v1)" in md


def test_the_failures_table_lists_wrong_flagged_and_abstained_cases_with_the_verdict() -> None:
    records = [
        {"id": "ok", "question": Q, "reference_answer": "Lima", "answer": "Lima", "outcome": "answered",
         "answer_correct": 1.0, "verdict": None, "error": None},
        {"id": "flag", "question": Q, "reference_answer": "Lima", "answer": "Lima", "outcome": "ungrounded",
         "answer_correct": 1.0, "verdict": "groundedness: ungrounded (claim not supported)", "error": None},
        {"id": "wrong", "question": Q, "reference_answer": "Lima", "answer": "Cusco", "outcome": "answered",
         "answer_correct": 1.0, "judged_correct": 0.0, "verdict": None, "error": None},
        {"id": "none", "question": Q, "reference_answer": "Lima", "answer": "I found nothing", "outcome": "abstained",
         "answer_correct": 0.0, "verdict": "relevance: 0 of 4 retrieved documents judged relevant", "error": None},
        {"id": "boom", "question": Q, "reference_answer": "Lima", "answer": None, "outcome": None, "error": "x: y"},
    ]
    rows = went_wrong(records)
    # judged correctness decides over the lexical one; wrong first, then flagged, then abstained
    assert [(r[0], r[1]) for r in rows] == [("wrong", "wrong"), ("flag", "flagged"), ("none", "abstained")]
    assert rows[1][4:] == ["Lima", "ungrounded", "groundedness: ungrounded (claim not supported)"]
    summary = {"cases": 5, "errors": 1, "outcomes": {"answered": 2, "ungrounded": 1, "abstained": 1}}
    md = render_markdown(summary, records, {})
    assert "## Cases that went wrong (3)" in md
    assert "| wrong | wrong | Which city is the capital of Peru? | Lima | Cusco | answered |" in md
    assert "## Failures (cases that raised)\n\n| case | error |" in md
    page = render_html(summary, records, {})
    assert "<h2>Cases that went wrong (3)</h2>" in page and "<th>deciding verdict</th>" in page
    assert "<td>relevance: 0 of 4 retrieved documents judged relevant</td>" in page


def _write_run(path: Path, manifest: dict[str, Any], rows: list[dict[str, Any]]) -> Path:
    path.mkdir()
    (path / "manifest.json").write_text(json.dumps(manifest))
    (path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_compare_shows_the_settings_that_differ(tmp_path: Path) -> None:
    base = build_manifest(Settings(), dataset_path=None, dataset_sha256=None, cases=1, limit=None, concurrency=1, command=[])
    other = build_manifest(Settings(workflow={"max_rewrites": 0}), dataset_path=None, dataset_sha256=None, cases=1,
                           limit=None, concurrency=4, command=[])
    row = {"id": "a", "answer_contains": 1.0}
    a = _write_run(tmp_path / "a", base, [row])
    b = _write_run(tmp_path / "b", other, [row])
    diff = {d.key: (d.a, d.b) for d in manifest_diff(base, other)}
    assert diff["concurrency"] == (1, 4)
    assert diff["settings.workflow.max_rewrites"][1] == 0
    assert not any(k.startswith(("packages", "created", "command")) for k in diff)
    text = render_comparison(compare_runs(a, b))
    assert "### Settings that differ" in text and "| concurrency | 1 | 4 |" in text
    same = render_comparison(compare_runs(a, a))
    assert "None: both manifests hold the same settings." in same


def test_regression_gates_are_checked_before_any_run_is_read() -> None:
    with pytest.raises(UsageError, match="bad regression gate"):
        parse_gates(["answer_f1:lots"])
    with pytest.raises(UsageError, match="unknown metric 'answer_f2'"):
        parse_gates(["answer_f2:0.1"])
    assert parse_gates(["judged_correct:0.02", "latency_s"]) == [("judged_correct", 0.02), ("latency_s", 0.0)]


def _hash_store(monkeypatch: pytest.MonkeyPatch, opened: list[Path]) -> None:
    def open_store(settings: Settings, use: object = None) -> Store:
        opened.append(settings.chroma_path)
        return Store(chromadb.PersistentClient(path=settings.chroma_path, settings=chroma_settings()), HashEmbeddings())

    monkeypatch.setattr("eval.runner.open_store", open_store)


def test_a_run_leaves_no_collection_and_no_scratch_store_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Path] = []
    _hash_store(monkeypatch, opened)
    settings = Settings(home=tmp_path / "home")
    inline = cases()[:2]  # both bring their documents
    out = run_eval(inline, settings, tmp_path / "run", engine_factory=Factory(), command=["test"])
    assert out.records[0]["error"] is None and out.records[0]["contexts"] == ["Paris is the capital of France"]
    assert opened == [tmp_path / "run" / "store" / "chroma"]
    assert not (tmp_path / "run" / "store").exists()
    assert not (tmp_path / "home" / "chroma").exists()  # the user's store was never opened
    assert out.manifest["store"] == {"scratch": True, "kept": None}

    kept = run_eval(inline, settings, tmp_path / "kept", engine_factory=Factory(), command=["test"], keep_store=True)
    assert kept.manifest["store"]["kept"] == str(tmp_path / "kept" / "store")
    client = chromadb.PersistentClient(path=tmp_path / "kept" / "store" / "chroma", settings=chroma_settings())
    assert [c.name for c in client.list_collections()][0].startswith("eval-")


def test_the_manifest_names_the_models_actually_used() -> None:
    local = build_manifest(Settings(), dataset_path=None, dataset_sha256=None, cases=0, limit=None, concurrency=1, command=[])
    text = json.dumps(local)
    assert "gpt-4o-mini" not in text and "text-embedding-3-small" not in text
    assert local["models"] == {"chat": "local:SmolLM2-135M-Instruct.Q4_1.gguf", "embeddings": "local:all-MiniLM-L6-v2"}
    api = build_manifest(Settings(llm={"provider": "openai", "model": "gpt-4.1"}, embeddings={"provider": "openai"}),
                         dataset_path=None, dataset_sha256=None, cases=0, limit=None, concurrency=1, command=[])
    assert api["models"] == {"chat": "openai:gpt-4.1", "embeddings": "openai:text-embedding-3-small"}
    assert api["settings"]["llm"]["model"] == "gpt-4.1"


def test_a_store_an_earlier_run_kept_is_never_reused_or_removed_by_a_later_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Bug: a rerun into the folder of a run made with keep_store opened that run's store as its
    # own scratch store, built its collections beside the old ones and then removed the whole
    # store, even when the rerun failed to start.
    _hash_store(monkeypatch, [])
    settings = Settings(home=tmp_path / "home")
    inline = cases()[:2]
    run_eval(inline, settings, tmp_path / "kept", engine_factory=Factory(), command=["test"], keep_store=True)
    kept = sorted(p.relative_to(tmp_path) for p in (tmp_path / "kept" / "store").rglob("*"))
    with pytest.raises(DatasetError, match="kept"):
        run_eval(inline, settings, tmp_path / "kept", engine_factory=Factory(), command=["again"])
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "kept" / "store").rglob("*")) == kept
