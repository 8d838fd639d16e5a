"""``selfrag eval score | endpoint | judge``: answers made elsewhere, scored like the engine's.

Registered on the ``eval`` group (``selfrag.cli.eval``); thin like it: parse, call ``eval``, format.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from selfrag.cli._common import err_console, fail, handle_errors
from selfrag.cli._eval_common import load_config, print_summary
from selfrag.cli.eval import eval_app

if TYPE_CHECKING:
    from eval.predictions import Prediction

__all__ = ["endpoint_cmd", "judge_cmd", "score_cmd"]

_JUDGE_HELP = "Judge of the judged metrics: local (the trained critic, offline), api (the configured chat model), or none."
_MAP_HELP = "FIELD=COLUMN, e.g. question=user_input (repeatable); fields: id question answer contexts reference collection outcome confidence answerable."


@eval_app.command("score")
@handle_errors
def score_cmd(
    predictions: Path = typer.Option(..., "--predictions", help="Answers from any system: JSONL, CSV, a HF dataset folder, a LangSmith export."),
    out: Path = typer.Option(..., "--out", help="Run directory to write."),
    dataset: Path | None = typer.Option(None, "--dataset", help="References (and answerability) by id, when the predictions lack them."),
    fmt: str | None = typer.Option(None, "--format", help="Format of --predictions: jsonl, ragas, csv, hf, langsmith (default: guessed)."),
    mapping: list[str] = typer.Option([], "--map", help=_MAP_HELP),
    judge: str = typer.Option("local", "--judge", help=_JUDGE_HELP),
    config: Path | None = typer.Option(None, "--config", help="Settings overrides (TOML or JSON), e.g. the API judge's model."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the judge cache."),
) -> None:
    """Score a file of predictions (question, answer, contexts) without running the engine.

    Example: selfrag eval score --predictions ragas.jsonl --map question=user_input --out runs/theirs
    """
    from eval.datasets import dataset_hash
    from eval.judges import make_judge
    from eval.loaders import load_rows, parse_mapping
    from eval.scoring import score_predictions
    from selfrag.ingest import stage_progress
    from selfrag.settings import load_settings

    settings = load_settings(**load_config(config))
    rows = load_rows(predictions, fmt=fmt, mapping=parse_mapping(mapping))
    if dataset is not None:
        rows = _with_references(rows, dataset)
    evaluator, info = make_judge(judge, settings, None if no_cache else settings.home / "cache")
    with stage_progress(f"judging {predictions.name}", err_console) as bar:
        summary, _, _ = score_predictions(
            rows, out, settings=settings, judge=evaluator, judge_info=info,
            source={"kind": "predictions", "path": str(predictions)}, dataset=dataset or predictions,
            dataset_sha256=dataset_hash(dataset or predictions) if (dataset or predictions).is_file() else None,
            command=sys.argv, progress=lambda d, t: bar("cases", d, t),
        )
    print_summary(summary, out)


@eval_app.command("endpoint")
@handle_errors
def endpoint_cmd(
    url: str = typer.Option(..., "--url", help="Server base URL, or the full /v1/answers or /v1/chat/completions URL."),
    dataset: Path = typer.Option(..., "--dataset", help="Questions with references: any format `eval run` reads."),
    out: Path = typer.Option(..., "--out", help="Run directory to write."),
    kind: str = typer.Option("answers", "--kind", help="answers (selfrag's /v1/answers) or chat (any OpenAI-compatible server)."),
    collection: str | None = typer.Option(None, "--collection", help="answers: the collection for rows that name none."),
    model: str | None = typer.Option(None, "--model", help="chat: the model field (selfrag's chat face: a collection)."),
    key_env: str | None = typer.Option(None, "--key-env", help="Name of the environment variable holding the API key."),
    concurrency: int = typer.Option(4, "--concurrency", min=1, max=64, help="Requests in flight at once."),
    timeout: float = typer.Option(300.0, "--timeout", min=1.0, help="Seconds to wait for one answer."),
    limit: int | None = typer.Option(None, "--limit", min=0, help="Only the first N questions."),
    fmt: str | None = typer.Option(None, "--format", help="Dataset format (default: guessed)."),
    mapping: list[str] = typer.Option([], "--map", help=_MAP_HELP),
    judge: str = typer.Option("local", "--judge", help=_JUDGE_HELP),
    config: Path | None = typer.Option(None, "--config", help="Settings overrides (TOML or JSON)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the judge cache."),
) -> None:
    """Ask a deployed endpoint every question and score its answers like an engine run's.

    The key is read from an environment variable (never a flag: shell history and CI logs keep flags).

    Example: selfrag eval endpoint --url http://127.0.0.1:8000 --dataset data/halueval-test/e2e.jsonl --out runs/served
    """
    from eval.datasets import dataset_hash
    from eval.endpoints import Endpoint, ask_endpoint
    from eval.judges import make_judge
    from eval.loaders import load_rows, parse_mapping
    from eval.scoring import score_predictions
    from selfrag.ingest import stage_progress
    from selfrag.settings import load_settings

    if kind not in ("answers", "chat"):
        fail(f"--kind must be answers or chat, not {kind!r}")
    key = None
    if key_env is not None:
        key = os.environ.get(key_env)
        if not key:
            fail(f"--key-env names {key_env}, which is not set")
    settings = load_settings(**load_config(config))
    rows = load_rows(dataset, fmt=fmt, mapping=parse_mapping(mapping))
    rows = rows[:limit] if limit is not None else rows
    endpoint = Endpoint(url, kind, key, collection, model, concurrency, timeout)  # type: ignore[arg-type]
    evaluator, info = make_judge(judge, settings, None if no_cache else settings.home / "cache")
    with stage_progress(f"asking {endpoint.route()}", err_console) as bar:
        answers = ask_endpoint(endpoint, rows, progress=lambda d, t: bar("questions", d, t))
        summary, records, _ = score_predictions(
            answers, out, settings=settings, judge=evaluator, judge_info=info, source=endpoint.describe(),
            dataset=dataset, dataset_sha256=dataset_hash(dataset) if dataset.is_file() else None, command=sys.argv,
            progress=lambda d, t: bar("judging", d, t),
        )
    print_summary(summary, out)
    failed = [r for r in records if r["error"]]
    if failed:
        err_console.print(f"{len(failed)} question(s) got no answer (first: {failed[0]['error']}); "
                          f"see {out / 'cases.jsonl'}", markup=False, soft_wrap=True)


@eval_app.command("judge")
@handle_errors
def judge_cmd(
    run: Path = typer.Argument(..., help="A run directory (eval run, score or endpoint)."),
    judge: str = typer.Option("local", "--judge", help=_JUDGE_HELP),
    config: Path | None = typer.Option(None, "--config", help="Settings overrides (TOML or JSON)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the judge cache."),
) -> None:
    """Judge a finished run's answers again (another judge, or a run made before judging); rewrites its summary and reports.

    Example: selfrag eval judge runs/movies-base --judge api
    """
    from eval.judges import make_judge
    from eval.scoring import rejudge_run
    from selfrag.ingest import stage_progress
    from selfrag.settings import load_settings

    settings = load_settings(**load_config(config))
    evaluator, info = make_judge(judge, settings, None if no_cache else settings.home / "cache")
    if evaluator is None:
        fail("--judge none judges nothing; give local or api")
    with stage_progress(f"judging {run}", err_console) as bar:
        summary = rejudge_run(run, evaluator, info, progress=lambda d, t: bar("cases", d, t))
    print_summary(summary, run)


def _with_references(rows: list[Prediction], dataset: Path) -> list[Prediction]:
    """Each prediction with its dataset row's reference and answerability, matched by id."""
    from eval.loaders import load_rows
    from selfrag.errors import DatasetError

    refs = {r.id: r for r in load_rows(dataset)}
    missing = [r.id for r in rows if r.id not in refs]
    if missing:
        raise DatasetError(f"{len(missing)} prediction id(s) are not in {dataset} (first: {missing[0]})")
    return [r.model_copy(update={"reference": r.reference or refs[r.id].reference,
                                 "answerable": r.answerable if r.answerable is not None else refs[r.id].answerable,
                                 "collection": r.collection or refs[r.id].collection}) for r in rows]
