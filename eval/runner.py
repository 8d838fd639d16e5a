"""``run_eval``: every case through the engine, scored, written to a run directory.

A run directory holds::

    manifest.json   code, configuration, packages, dataset and command behind the run
    cases.jsonl     one row per case: answer, outcome, metric values, cost, error (``eval.compare`` reads it)
    traces.jsonl    one row per case: graph path, every grader verdict, rewrites, filters, timings
    summary.json    the aggregates with 95% intervals (see ``eval.summary``)
    report.md, report.html

A case that raises is recorded with its error and the run goes on: one bad case (or a provider
hiccup) must not cost the hundred that worked. Rows are appended as cases finish, so an
interrupted run keeps what it did; at the end the files are rewritten in dataset order.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from eval.cache import SQLiteLLMCache, with_cache
from eval.corpus import CorpusSpec, MetadataCache, build_corpus, corpus_for
from eval.datasets import Document, E2ECase, dataset_hash, load_e2e
from eval.manifest import build_manifest
from eval.metrics import (
    ContainsReference,
    Correct,
    ExactMatch,
    FilterAccuracy,
    Groundedness,
    Metric,
    RecallAtK,
    ReciprocalRank,
    TokenF1,
)
from eval.records import error_text, run_case
from eval.scoring import write_run
from eval.scratch import drop_scratch, scratch_settings
from selfrag.errors import DatasetError, UsageError
from selfrag.providers import make_chat_model
from selfrag.reading import Critic
from selfrag.settings import Settings
from selfrag.store import Store
from workflows.engine import SelfRagEngine
from workflows.factory import build_components, open_store
from workflows.options import RunOptions
from workflows.outcomes import Result

__all__ = ["EngineFactory", "EngineLike", "RunSummary", "default_engine", "run_eval"]


class EngineLike(Protocol):
    """What the runner needs of an engine (``SelfRagEngine`` is one)."""

    def run(
        self, question: str, *, collection: str, thread_id: str | None = None, options: RunOptions | None = None
    ) -> Result: ...


class EngineFactory(Protocol):
    """Builds the engine under test; gets the run's store and cache so it can wire them in."""

    def __call__(self, settings: Settings, store: Store, cache: SQLiteLLMCache | None) -> EngineLike: ...


def default_engine(settings: Settings, store: Store, cache: SQLiteLLMCache | None) -> SelfRagEngine:
    """The configured providers, the chat model behind ``cache``, no thread memory."""
    model = with_cache(make_chat_model(settings.llm), cache)
    components = build_components(settings, store=store, model=model)
    return SelfRagEngine(components, defaults=RunOptions.from_settings(settings.workflow, provider=settings.llm.provider))


@dataclass(frozen=True)
class RunSummary:
    """What a run wrote, also kept in memory for a caller (the CLI prints from it)."""

    out_dir: Path
    summary: dict[str, Any]
    records: list[dict[str, Any]]
    manifest: dict[str, Any]

    @property
    def failures(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("error")]


def _load(cases: Sequence[E2ECase] | str | Path, dataset: str | Path | None) -> tuple[list[E2ECase], Path | None]:
    if isinstance(cases, (str, Path)):
        return load_e2e(cases), Path(cases)
    return list(cases), (Path(dataset) if dataset is not None else None)


def _cases_sha256(cases: Sequence[E2ECase]) -> str:
    """Identifies exactly the cases run (a dataset file's hash cannot, once a split or limit applies)."""
    lines = "".join(json.dumps(c.model_dump(mode="json", exclude_none=True), ensure_ascii=False) + "\n" for c in cases)
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def _prepare_corpora(
    cases: Sequence[E2ECase], settings: Settings, store: Store, dataset: Path | None
) -> tuple[dict[str, CorpusSpec | str], dict[str, dict[str, dict[str, Any]]]]:
    """Each case's corpus (or the error that prevents it), building each collection once."""
    files: dict[Path, list[Document]] = {}
    built: dict[tuple[str, str], str | None] = {}
    metadata: dict[str, dict[str, dict[str, Any]]] = {}
    out: dict[str, CorpusSpec | str] = {}
    for case in cases:
        try:
            spec = corpus_for(case, settings, dataset, files)
        except UsageError as exc:
            out[case.id] = error_text(exc)
            continue
        key = (spec.collection, spec.source)
        if key not in built:
            try:
                stored = build_corpus(store, spec, settings)
                built[key] = None
                if stored is not None and spec.source == "inline":
                    # exactly these documents (the name hashes them); a named collection may hold more
                    metadata[spec.collection] = stored
            except Exception as exc:  # recorded on every case that needs this corpus
                built[key] = error_text(exc)
        failure = built[key]
        out[case.id] = spec if failure is None else failure
    return out, metadata


class _Appender:
    """Appends rows to the run's jsonl files as cases finish (thread-safe)."""

    def __init__(self, out_dir: Path) -> None:
        self._lock = threading.Lock()
        self._files = {name: out_dir / name for name in ("cases.jsonl", "traces.jsonl")}
        for path in self._files.values():
            path.write_text("", encoding="utf-8")

    def add(self, name: str, row: dict[str, Any]) -> None:
        with self._lock, self._files[name].open("a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")

    def rewrite(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        text = "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in rows)
        self._files[name].write_text(text, encoding="utf-8")


def run_eval(
    cases: Sequence[E2ECase] | str | Path,
    settings: Settings,
    out_dir: str | Path,
    *,
    limit: int | None = None,
    concurrency: int = 1,
    cache: SQLiteLLMCache | str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    engine_factory: EngineFactory | None = None,
    store: Store | None = None,
    dataset: str | Path | None = None,
    command: Sequence[str] | None = None,
    seed: int = 0,
    keep_store: bool = False,
    judge: Critic | None = None,
    judge_info: dict[str, Any] | None = None,
) -> RunSummary:
    """Run ``cases`` (a list, or the path of an end-to-end dataset) and write the run directory.

    Args:
        limit: run only the first ``limit`` cases.
        concurrency: cases in flight at once (threads); the local model serialises its own calls.
        cache: an LLM cache, or the path of one to open (and close) for this run.
        progress: called as ``progress(done, total)`` after each case.
        engine_factory: builds the engine (default: ``default_engine``, the configured providers).
        store: the store to build and search collections in. Default: a scratch store in
            ``out_dir/store`` when every case brings its corpus (documents or a documents file),
            removed after the run unless ``keep_store``; the configured store only when a case
            names an existing collection (it is read, and the corpora that cases bring are built there).
        keep_store: keep the scratch store (``out_dir/store``) to inspect its collections.
        judge: the judge of the judged metrics (``eval.judged``); None leaves them out.
        judge_info: the judge's manifest entry (``eval.judges.describe_judge``).
        dataset: the dataset file ``cases`` came from, when passing a list: for the manifest and
            to find ``documents_file`` paths (default: relative to the working directory).
        command: the command line for the manifest (default: ``sys.argv``).
        seed: seed of the bootstrap intervals.

    Raises:
        UsageError: bad ``limit`` / ``concurrency``, an unreadable dataset file, an ``out_dir``
            that cannot be a directory (a file has its name), or one holding the store an earlier
            run kept (``keep_store``).
        SelfRagError: the store, cache or engine cannot be set up (per-case failures never raise).
    """
    if limit is not None and limit < 0:
        raise UsageError(f"limit must be 0 or more, got {limit}")
    if concurrency < 1:
        raise UsageError(f"concurrency must be at least 1, got {concurrency}")
    all_cases, path = _load(cases, dataset)
    todo = all_cases[:limit] if limit is not None else all_cases
    cases_sha = _cases_sha256(todo)
    file_sha = dataset_hash(path) if path is not None and path.is_file() else None
    out = _run_dir(Path(out_dir))
    cache_file = str(cache) if isinstance(cache, (str, Path)) else (str(cache.path) if cache is not None else None)
    manifest = build_manifest(
        settings, dataset_path=path, dataset_sha256=file_sha, cases=len(todo), cases_sha256=cases_sha, limit=limit,
        concurrency=concurrency,
        command=command, extra={"cache": cache_file, "seed": seed},
    )
    started = time.perf_counter()
    scratch = store is None and all(c.collection is None or c.documents or c.documents_file for c in todo)
    if scratch:
        if (out / "store").exists():  # kept by an earlier run (keep_store): neither reused nor removed
            raise DatasetError(f"run directory {out} holds the store an earlier run kept ({out / 'store'}): "
                               "remove it or choose another --out")
        settings = scratch_settings(settings, out / "store")
    manifest["store"] = {"scratch": scratch, "kept": str(out / "store") if scratch and keep_store else None}
    try:
        with _resources(settings, store, cache) as (run_store, run_cache):
            rows = _run_in(run_store, run_cache, todo, settings, path, engine_factory, manifest, out, concurrency, progress)
    finally:
        if scratch and not keep_store:
            drop_scratch(out / "store")
    records = [r for r, _ in rows]
    manifest["duration_s"] = round(time.perf_counter() - started, 3)
    manifest["judged_by"] = judge_info if judge is not None else None
    summary = write_run(out, records, manifest, judge=judge, seed=seed)
    return RunSummary(out, summary, records, manifest)


def _run_dir(out: Path) -> Path:
    """``out``, created if missing; a name a file already holds is refused, the file left alone."""
    if out.exists() and not out.is_dir():
        raise DatasetError(f"run directory {out} is an existing file: choose another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a parent that is a file, no permission
        raise DatasetError(f"cannot create run directory {out}: {exc.strerror or type(exc).__name__}") from exc
    return out


def _run_in(
    run_store: Store,
    run_cache: SQLiteLLMCache | None,
    todo: Sequence[E2ECase],
    settings: Settings,
    path: Path | None,
    engine_factory: EngineFactory | None,
    manifest: dict[str, Any],
    out: Path,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Build the corpora, the engine and the metrics in the run's store; run every case."""
    corpora, known = _prepare_corpora(todo, settings, run_store, path)
    engine = (engine_factory or default_engine)(settings, run_store, run_cache)
    metrics: list[Metric] = [
        ExactMatch(), TokenF1(), ContainsReference(), Correct(), RecallAtK(4), ReciprocalRank(),
        FilterAccuracy(MetadataCache(run_store, known)), Groundedness(),
    ]
    label = str(getattr(getattr(engine, "components", None), "model_label", "") or "")
    manifest["model"] = label or None
    manifest["judge"] = getattr(engine, "judge_label", None)
    if label:  # the engine's own account of the model it loaded beats what the settings imply
        manifest["models"]["chat"] = label
    manifest["models"]["reader_critic"] = manifest["judge"]
    # Written once the engine stands, not before: a run that cannot start (a dead model server, a
    # refused judge) leaves an earlier run in the same folder as it was, manifest and cases together.
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    try:
        rows = _run_all(engine, todo, corpora, metrics, out, concurrency, progress)
    finally:
        close = getattr(engine, "close", None)  # a SelfRagEngine holds a graph store and rerank clients
        if callable(close):
            close()
    return rows


def _run_all(
    engine: EngineLike,
    cases: Sequence[E2ECase],
    corpora: dict[str, CorpusSpec | str],
    metrics: Sequence[Metric],
    out: Path,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    appender = _Appender(out)
    rows: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

    def one(case: E2ECase) -> tuple[dict[str, Any], dict[str, Any]]:
        return run_case(engine, case, corpora[case.id], metrics)

    def finished(case: E2ECase, row: tuple[dict[str, Any], dict[str, Any]]) -> None:
        rows[case.id] = row
        appender.add("cases.jsonl", row[0])
        appender.add("traces.jsonl", row[1])
        if progress is not None:
            progress(len(rows), len(cases))

    if concurrency == 1:
        for case in cases:
            finished(case, one(case))
    else:
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="selfrag-eval") as pool:
            futures = {pool.submit(one, case): case for case in cases}
            for future in as_completed(futures):
                finished(futures[future], future.result())
    ordered = [rows[c.id] for c in cases]
    appender.rewrite("cases.jsonl", [r for r, _ in ordered])
    appender.rewrite("traces.jsonl", [t for _, t in ordered])
    return ordered


@contextmanager
def _resources(
    settings: Settings, store: Store | None, cache: SQLiteLLMCache | str | Path | None
) -> Iterator[tuple[Store, SQLiteLLMCache | None]]:
    """The run's store and cache; closes only what it opened."""
    own_store = open_store(settings) if store is None else None
    own_cache = SQLiteLLMCache(cache) if isinstance(cache, (str, Path)) else None
    run_store = store if store is not None else own_store
    assert run_store is not None
    try:
        yield run_store, (own_cache if own_cache is not None else cache if isinstance(cache, SQLiteLLMCache) else None)
    finally:
        if own_cache is not None:
            own_cache.close()
        if own_store is not None:
            own_store.close()
