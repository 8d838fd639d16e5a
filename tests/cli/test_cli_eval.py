"""``selfrag eval``: run, compare and graders through the CLI, with the scripted providers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Cli = Callable[..., Result]
SETS = Path(__file__).resolve().parents[2] / "eval" / "sets"


@pytest.fixture(autouse=True)
def _eval_uses_fakes(monkeypatch: pytest.MonkeyPatch, fake: Any) -> None:
    # eval imports the factory by name; point those names at the same fakes as the CLI's.
    monkeypatch.setattr("eval.runner.make_chat_model", fake.chat_model)
    monkeypatch.setattr("eval.experiments.make_chat_model", fake.chat_model)


def _dataset(tmp_path: Path) -> Path:
    rows = [
        {"id": "c1", "question": "Which movie has toys that come alive?", "collection": "movies",
         "reference_answer": "Toys come alive", "gold_ids": ["toy-story"], "expected_filter": None},
        {"id": "c2", "question": "Which movie has toys that come alive in 1995?", "collection": "movies",
         "reference_answer": "Toys come alive", "gold_ids": ["toy-story"], "expected_filter": {"year": {"$eq": 1995}}},
    ]  # fmt: skip
    path = tmp_path / "e2e.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_run_then_compare_with_a_regression_gate(cli: Cli, fake: Any, tmp_path: Path) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    fake.script(relevant=["Toys come alive"], generate="Toys come alive [1].")
    dataset = _dataset(tmp_path)
    base = cli("eval", "run", "--dataset", dataset, "--out", tmp_path / "a", "--no-cache")
    assert base.exit_code == 0, base.output
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["cases"] == 2
    assert summary["answer_contains"]["value"] == 1.0
    assert summary["filter_accuracy"]["value"] == 1.0
    assert summary["outcomes"]["answered"] == 2
    for name in ("cases.jsonl", "traces.jsonl", "report.md", "report.html", "manifest.json"):
        assert (tmp_path / "a" / name).is_file(), name

    fake.script(relevant=["Toys come alive"], generate="Something else entirely [1].")
    worse = cli("eval", "run", "--dataset", dataset, "--out", tmp_path / "b", "--no-cache")
    assert worse.exit_code == 0, worse.output
    gate = cli("eval", "compare", tmp_path / "a", tmp_path / "b", "--fail-on-regression", "answer_contains:0.1")
    assert gate.exit_code == 1, gate.output
    assert "answer_contains" in gate.stdout and "regression" in gate.stderr
    ok = cli("eval", "compare", tmp_path / "a", tmp_path / "a", "--fail-on-regression", "answer_contains:0.1")
    assert ok.exit_code == 0, ok.output


def test_graders_json_line_is_last_on_stdout(cli: Cli, fake: Any, tmp_path: Path) -> None:
    fake.script(grounded=True)
    rows = [
        {"id": f"g{i}", "kind": "groundedness", "question": "q", "answer": ans,
         "documents": [{"id": "d", "text": "Toys come alive and have a blast"}], "label": label, "split": "dev"}
        for i, (ans, label) in enumerate([("Toys come alive", True), ("Dinosaurs roam Mars in 2041", False)])
    ]  # fmt: skip
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = cli("eval", "graders", "--dataset", path, "--grader", "groundedness", "--json", "--out", tmp_path / "exp")
    assert result.exit_code == 0, result.output
    line = json.loads(result.stdout.strip().splitlines()[-1])
    names = [v["name"] for v in line["variants"]]
    assert {"llm", "signal"} <= set(names)
    llm = next(v for v in line["variants"] if v["name"] == "llm")
    assert llm["n"] == 2 and llm["accuracy"] == 0.5  # the scripted LLM says grounded to both
    signal = next(v for v in line["variants"] if v["name"] == "signal")
    assert signal["accuracy"] == 1.0  # lexical support separates them
    assert (tmp_path / "exp" / "report.md").is_file()


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["eval", "run", "--dataset", "/nonexistent.jsonl"], "dataset_invalid"),
        (["eval", "graders", "--dataset", "/nonexistent.jsonl", "--grader", "groundedness"], "dataset_invalid"),
        (["eval", "graders", "--dataset", "x.jsonl", "--grader", "vibes"], "usage_error"),
        (["eval", "import", "halueval", "--rows", "5-2", "--out", "/tmp/x"], "dataset_invalid"),
    ],
)
def test_eval_mistakes_are_one_line_errors(cli: Cli, args: list[str], code: str, assert_one_line_error: Any) -> None:
    assert_one_line_error(cli(*args), code)


def test_an_out_that_is_a_file_is_a_one_line_error_and_the_file_is_kept(
    cli: Cli, tmp_path: Path, assert_one_line_error: Any
) -> None:
    taken = tmp_path / "notes.txt"
    taken.write_text("my notes\n")
    result = cli("eval", "run", "--dataset", _dataset(tmp_path), "--out", taken, "--no-cache", "--judge", "none")
    line = assert_one_line_error(result, "dataset_invalid")
    assert "notes.txt" in line and "FileExistsError" not in line
    assert taken.read_text() == "my notes\n"


def test_halueval_rows_above_6000_are_refused_without_reading_the_source(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, assert_one_line_error: Any
) -> None:
    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the HaluEval source was read")

    monkeypatch.setattr("eval.halueval.read_halueval", never)
    line = assert_one_line_error(cli("eval", "import", "halueval", "--rows", "6001-6100", "--out", tmp_path / "h"),
                                 "dataset_invalid")
    assert "only rows 1-6000" in line and not (tmp_path / "h").exists()


def test_graders_choose_tunes_on_dev_and_reports_once_on_test(cli: Cli, fake: Any, tmp_path: Path) -> None:
    fake.script(grounded=True)  # the LLM says grounded to everything: the signal must win on dev
    pairs = [("Toys come alive", True), ("Dinosaurs roam Mars in 2041", False)]
    rows = [
        {"id": f"{split}{i}", "kind": "groundedness", "question": "q", "answer": ans, "split": split,
         "documents": [{"id": "d", "text": "Toys come alive and have a blast"}], "label": label}
        for split in ("dev", "test") for i, (ans, label) in enumerate(pairs)
    ]  # fmt: skip
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = cli("eval", "graders", "--dataset", path, "--grader", "groundedness", "--choose", "--json")
    assert result.exit_code == 0, result.output
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert line["split"] == "test" and line["chosen"] != "llm"
    assert line["variants"][0]["n"] == 2 and line["variants"][0]["accuracy"] == 1.0
    assert "chosen on dev" in result.stderr


def test_plan_scores_a_self_query_set_with_a_diff_per_miss(cli: Cli, fake: Any, tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    result = cli("eval", "plan", "--set", SETS / "movies-guide", "--split", "dev", "--mode", "rules", "--out", out)
    assert result.exit_code == 0, result.output
    assert "movies-g" in result.stdout and "filters" in result.stdout  # the summary table
    report = json.loads(out.read_text())
    (one,) = report["sets"]
    summary = one["summary"]
    assert report["mode"] == "rules" and summary["split"] == "dev" and summary["questions"] == 32
    assert 0.0 <= summary["filter_accuracy"] <= 1.0 and summary["sources"] == {"rules": 32}
    misses = [c for c in one["cases"] if not c["filter_ok"]]
    for case in misses:  # every miss is printed with what was expected and what was produced
        assert case["id"] in result.stdout and case["diff"].startswith("expected")
    assert fake.calls == []  # rules mode never asks the model


@pytest.mark.parametrize(("args", "message"), [
    (["--split", "test"], "--split must be dev, heldout or all"),
    (["--mode", "magic"], "--mode must be rules, auto or llm"),
])  # fmt: skip
def test_plan_refuses_bad_options_in_one_line(cli: Cli, assert_one_line_error: Any, args: list[str], message: str) -> None:
    result = cli("eval", "plan", "--set", SETS / "recipes", *args)
    assert message in assert_one_line_error(result, "usage_error")


def test_plan_on_a_folder_that_is_not_a_set_is_a_one_line_error(cli: Cli, assert_one_line_error: Any, tmp_path: Path) -> None:
    result = cli("eval", "plan", "--set", tmp_path)
    assert "not a self-query set" in assert_one_line_error(result, "dataset_invalid")


def test_score_a_ragas_predictions_file_with_the_local_judge(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from selfrag.testing import ScriptedJudge

    monkeypatch.setattr("selfrag.reading.default_judge", lambda folder=None: ScriptedJudge(name="critic-under-test"))
    rows = [{"user_input": "Which movie has toys?", "retrieved_contexts": ["Toys come alive."], "response": "Toy Story",
             "reference": "Toy Story"}]
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = cli("eval", "score", "--predictions", path, "--out", tmp_path / "theirs")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "theirs" / "summary.json").read_text())
    assert summary["answer_exact"]["value"] == 1.0 and summary["faithfulness"]["value"] == 1.0
    manifest = json.loads((tmp_path / "theirs" / "manifest.json").read_text())
    assert manifest["judged_by"]["model"] == "critic-under-test" and manifest["judged_by"]["cache"].endswith("judge.sqlite")
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text(json.dumps({"prompt": "q", "gold": "a"}) + "\n")
    bad = cli("eval", "score", "--predictions", foreign, "--out", tmp_path / "x", "--judge", "none")
    assert bad.exit_code == 2 and "found columns prompt, gold" in bad.stderr and "Traceback" not in bad.output


def test_a_bad_gate_fails_before_the_runs_are_read(cli: Cli, tmp_path: Path, assert_one_line_error: Any) -> None:
    result = cli("eval", "compare", tmp_path / "missing-a", tmp_path / "missing-b", "--fail-on-regression", "answer_f2:0.1")
    assert_one_line_error(result, "usage_error")
    assert "unknown metric 'answer_f2'" in result.stderr


def test_a_cached_rerun_reports_the_same_calls_and_counts_the_hits_as_saved(cli: Cli, fake: Any, tmp_path: Path) -> None:
    assert cli("ingest", "--sample", "movies").exit_code == 0
    fake.script(relevant=["Toys come alive"], generate="Toys come alive [1].")
    dataset = _dataset(tmp_path)
    first = cli("eval", "run", "--dataset", dataset, "--out", tmp_path / "a", "--judge", "none")
    second = cli("eval", "run", "--dataset", dataset, "--out", tmp_path / "b", "--judge", "none")
    assert first.exit_code == 0 and second.exit_code == 0, second.output
    a, b = (json.loads((tmp_path / d / "summary.json").read_text()) for d in ("a", "b"))
    assert a["llm_calls_per_case"] == b["llm_calls_per_case"] > 0
    # a hit is a call saved, not a call fewer: every call of the rerun is served by the cache
    # (the first run already served one: both cases grade the same document for the same words)
    assert b["cache"] == {"hits": a["cache"]["hits"] + a["cache"]["model_calls"], "model_calls": 0}


def test_a_ragas_dataset_runs_in_a_scratch_store_beside_a_serving_writer(cli: Cli, fake: Any, tmp_path: Path,
                                                                        open_store: Any) -> None:
    from selfrag.settings import load_settings
    from selfrag.store import Store, StoreUse
    from selfrag.testing import HashEmbeddings

    assert cli("ingest", "--sample", "movies").exit_code == 0
    fake.script(relevant=["Toys come alive"], generate="Toys come alive [1].")
    rows = [{"user_input": "Which movie has toys that come alive?", "retrieved_contexts": ["Toys come alive in a bedroom."],
             "reference": "Toys come alive"}]
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # `serve` holds the user's store as its writer the whole time
    with Store.from_settings(load_settings(), HashEmbeddings(), use=StoreUse("selfrag serve")):
        result = cli("eval", "run", "--dataset", path, "--out", tmp_path / "run", "--judge", "none")
    assert result.exit_code == 0, result.output
    row = json.loads((tmp_path / "run" / "cases.jsonl").read_text().splitlines()[0])
    assert row["id"] == "row-1" and row["error"] is None and row["answer_contains"] == 1.0
    assert not (tmp_path / "run" / "store").exists()
    assert open_store().list_collections() == ["movies"]  # nothing left in the user's store
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["store"] == {"scratch": True, "kept": None}
