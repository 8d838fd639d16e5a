"""``run_eval`` end to end: scripted model, hash embeddings, a real (temporary) Chroma store.

Every document carries a single metadata key: Chroma returns metadata keys in varying order and
the prompts list metadata in that order, so with two keys a rerun's prompts (and cache keys)
could differ. One key keeps the cached rerun exact.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest
from langchain_core.messages import BaseMessage

from eval.cache import SQLiteLLMCache, with_cache
from eval.corpus import infer_schema
from eval.datasets import Document, E2ECase, dataset_hash
from eval.runner import RunSummary, default_engine, run_eval
from eval.stats import wilson
from selfrag.errors import ProviderError, UsageError
from selfrag.retry import RetryPolicy
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.settings import Settings
from selfrag.store import Chunk, Store, chroma_settings
from selfrag.testing import HashEmbeddings, ScriptedChatModel, verdict
from workflows import Components, Result, RunOptions, SelfRagEngine

# question keyword -> (text a relevant document contains, the scripted answer)
SCRIPT = {
    "France": ("France", "Paris [1]."),
    "Germany": ("Germany", "The capital is Berlin [1]."),
    "dinosaurs": ("dinosaurs", "Jurassic Park [1]."),
    "1995": ("Toys", "Toy Story [1]."),
}
CAPITALS = [
    {"id": "paris", "text": "Paris is the capital of France", "metadata": {"country": "France"}},
    {"id": "berlin", "text": "Berlin is the capital of Germany", "metadata": {"country": "Germany"}},
]
MOVIES = [
    Chunk("toys", "Toys come alive and have a blast doing so", {"year": 1995}),
    Chunk("dino", "Scientists bring back dinosaurs and mayhem breaks loose", {"year": 1993}),
    Chunk("zone", "Three men walk into the Zone, three men walk out", {"year": 1979}),
    Chunk("dream", "A detective gets lost in dreams within dreams", {"year": 2006}),
]


def _relevance(messages: list[BaseMessage]) -> str:
    question, _, document = str(messages[-1].content).partition("<document>")
    hit = any(key in question and needle in document for key, (needle, _) in SCRIPT.items())
    return verdict("relevant" if hit else "irrelevant")


def _generate(messages: list[BaseMessage]) -> str:
    prompt = str(messages[-1].content)
    return next(answer for key, (_, answer) in SCRIPT.items() if key in prompt)


class ExplodingEngine:
    """Raises for one question, delegates the rest."""

    def __init__(self, inner: SelfRagEngine) -> None:
        self.inner = inner
        self.components = inner.components

    def run(self, question: str, *, collection: str, thread_id: str | None = None, options: RunOptions | None = None) -> Result:
        if "explode" in question:
            raise RuntimeError("engine blew up")
        return self.inner.run(question, collection=collection, thread_id=thread_id, options=options)


class Factory:
    """An ``EngineFactory``: a fresh scripted model per run, recorded so tests can count its calls."""

    def __init__(self) -> None:
        self.models: list[ScriptedChatModel] = []

    def __call__(self, settings: Settings, store: Store, cache: SQLiteLLMCache | None) -> ExplodingEngine:
        model = ScriptedChatModel.from_rules({
            "RelevanceGrade": _relevance,
            "GroundednessGrade": verdict("grounded"),
            "UsefulnessGrade": verdict("useful"),
            "generate": _generate,
        })
        self.models.append(with_cache(model, cache))
        fast = RetryPolicy(attempts=2, initial_wait_s=0.0, max_wait_s=0.0)
        components = Components.from_model(model, store, retry=fast, self_query_mode="rules")
        return ExplodingEngine(SelfRagEngine(components, defaults=RunOptions(max_rewrites=0)))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(chromadb.PersistentClient(path=tmp_path / "chroma", settings=chroma_settings()), HashEmbeddings()) as s:
        schema = CollectionSchema(attributes=[AttributeInfo(name="year", type="integer")])
        s.create_collection("movies", schema).add(MOVIES)
        yield s


def cases() -> list[E2ECase]:
    return [
        E2ECase.model_validate(c)
        for c in [
            {"id": "c1", "question": "What is the capital of France?", "documents": CAPITALS,
             "reference_answer": "Paris", "gold_ids": ["paris"]},
            {"id": "c2", "question": "What is the capital of Germany?", "documents": CAPITALS,
             "reference_answer": "Berlin", "gold_ids": ["berlin"]},
            # the rules plan no filter here; the dataset expected one -> filter_ok 0
            {"id": "c3", "question": "Which movie has dinosaurs?", "collection": "movies",
             "reference_answer": "Jurassic Park", "gold_ids": ["dino"], "expected_filter": {"year": 1993}},
            # the rules plan {"year": 1995}: a different clause selecting the same movie -> filter_ok 1
            {"id": "c4", "question": "Which movie is from 1995?", "collection": "movies",
             "reference_answer": "Toy Story", "gold_ids": ["toys"], "expected_filter": {"$and": [{"year": {"$gt": 1994}}, {"year": {"$lt": 1996}}]}},
            {"id": "c5", "question": "Does this explode?", "collection": "movies", "reference_answer": "no"},
        ]
    ]


def run(tmp_path: Path, store: Store, factory: Factory, name: str = "run", **kwargs: Any) -> RunSummary:
    return run_eval(cases(), Settings(), tmp_path / name, store=store, engine_factory=factory, command=["test"], **kwargs)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_run_writes_every_file_with_hand_computed_numbers(tmp_path: Path, store: Store) -> None:
    progress: list[tuple[int, int]] = []
    out = run(tmp_path, store, Factory(), progress=lambda done, total: progress.append((done, total)))
    files = {p.name for p in out.out_dir.iterdir()}
    assert {"manifest.json", "cases.jsonl", "traces.jsonl", "summary.json", "report.md", "report.html"} <= files
    assert progress == [(n, 5) for n in range(1, 6)]

    rows = read_jsonl(out.out_dir / "cases.jsonl")
    assert [r["id"] for r in rows] == ["c1", "c2", "c3", "c4", "c5"]
    assert {"id", "question", "answer", "outcome", "answer_exact", "answer_f1", "answer_contains", "recall_at_4", "mrr",
            "filter_ok", "grounded", "latency_s", "llm_calls", "tokens", "cache_hits", "error"} <= set(rows[0])
    by_id = {r["id"]: r for r in rows}
    assert [by_id[i]["answer_exact"] for i in ("c1", "c2", "c3", "c4")] == [1.0, 0.0, 1.0, 1.0]
    assert by_id["c2"]["answer_f1"] == 0.5  # "capital is berlin" vs "berlin": P 1/3, R 1
    assert [by_id[i]["filter_ok"] for i in ("c1", "c2", "c3", "c4")] == [None, None, 0.0, 1.0]
    # the filtered cases retrieve one document (1 relevance call); c3 retrieves all four movies
    assert [by_id[i]["llm_calls"] for i in ("c1", "c2", "c3", "c4")] == [4, 4, 7, 4]
    assert by_id["c5"]["error"] == "RuntimeError: engine blew up" and by_id["c5"]["outcome"] is None

    summary = json.loads((out.out_dir / "summary.json").read_text())
    assert summary == out.summary
    assert (summary["cases"], summary["errors"]) == (5, 1)
    exact = wilson(3, 4)
    assert summary["answer_exact"] == {"value": 0.75, "ci_low": round(exact.ci_low, 4), "ci_high": round(exact.ci_high, 4), "n": 4}
    assert summary["answer_f1"]["value"] == 0.875  # (1 + 0.5 + 1 + 1) / 4
    assert summary["answer_contains"]["value"] == 1.0
    assert summary["recall_at_4"]["value"] == 1.0 and summary["mrr"]["value"] == 1.0
    assert summary["filter_accuracy"]["value"] == 0.5 and summary["filter_accuracy"]["n"] == 2
    assert summary["groundedness_rate"]["value"] == 1.0
    assert summary["outcomes"] == {"answered": 4, "unverified": 0, "abstained": 0, "ungrounded": 0, "budget_exhausted": 0,
                                   "no_progress": 0, "needs_clarification": 0}
    assert summary["outcome_rates"]["answered"]["value"] == 1.0
    assert summary["llm_calls_per_case"] == 4.75  # (4 + 4 + 7 + 4) / 4
    assert summary["latency_p50_s"] is not None and summary["latency_p95_s"] >= summary["latency_p50_s"]
    assert summary["tokens_per_case"] > 0


def test_traces_carry_path_verdicts_and_filters(tmp_path: Path, store: Store) -> None:
    out = run(tmp_path, store, Factory())
    traces = {t["id"]: t for t in read_jsonl(out.out_dir / "traces.jsonl")}
    c4 = traces["c4"]
    assert c4["path"] == ["condense", "self_query", "retrieve", "grade_documents", "generate", "check", "finalize"]
    assert {v["kind"] for v in c4["verdicts"]} == {"relevance", "groundedness", "usefulness"}
    assert all(v["prompt_version"] and v["model"] == "scripted" for v in c4["verdicts"])
    assert c4["filter"]["planned"] == c4["filter"]["final"] == {"year": {"$eq": 1995}}
    assert c4["filter"]["expected"] == {"$and": [{"year": {"$gt": 1994}}, {"year": {"$lt": 1996}}]}
    assert c4["llm"]["calls"] == 4 and c4["rewrites"] == [] and c4["relaxations"] == []
    assert traces["c5"]["error"] == "RuntimeError: engine blew up"


def test_inline_documents_build_one_collection_idempotently(tmp_path: Path, store: Store) -> None:
    run(tmp_path, store, Factory(), "first")
    built = [n for n in store.list_collections() if n.startswith("eval-")]
    assert len(built) == 1  # c1 and c2 share their documents
    coll = store.get_collection(built[0])
    assert coll.count() == 2 and coll.schema.names == ["country"]
    run(tmp_path, store, Factory(), "second")
    assert [n for n in store.list_collections() if n.startswith("eval-")] == built and coll.count() == 2


def test_a_rerun_with_the_cache_makes_no_model_calls(tmp_path: Path, store: Store) -> None:
    factory = Factory()
    first = run(tmp_path, store, factory, "first", cache=tmp_path / "llm.sqlite")
    second = run(tmp_path, store, factory, "second", cache=tmp_path / "llm.sqlite", concurrency=3)
    assert len(factory.models[0].calls) == 19
    assert factory.models[1].calls == []
    for row in second.records:
        if not row["error"]:
            assert row["cache_hits"] == row["llm_calls"] > 0
    assert second.summary["cache"] == {"hits": 19, "model_calls": 0}
    assert first.summary["cache"] == {"hits": 0, "model_calls": 19}
    strip = ("latency_s", "cache_hits")
    assert [{k: v for k, v in r.items() if k not in strip} for r in first.records] == [
        {k: v for k, v in r.items() if k not in strip} for r in second.records
    ]


def test_reports_and_manifest(tmp_path: Path, store: Store) -> None:
    out = run(tmp_path, store, Factory(), limit=4, concurrency=2)
    page = (out.out_dir / "report.html").read_text()
    assert page.count('<img src="data:image/png;base64,') == 4
    md = (out.out_dir / "report.md").read_text()
    assert "| exact match | 0.750 |" in md and "## Slowest cases" in md and "## Failures (cases that raised)\n\nNone." in md
    manifest = json.loads((out.out_dir / "manifest.json").read_text())
    assert manifest["limit"] == 4 and manifest["concurrency"] == 2 and manifest["command"] == ["test"]
    assert manifest["dataset"]["cases"] == 4 and len(manifest["dataset"]["cases_sha256"]) == 64
    assert manifest["dataset"]["path"] is None and manifest["dataset"]["sha256"] is None  # in-memory cases
    assert set(manifest["packages"]) >= {"selfrag", "langgraph", "langchain-core", "chromadb"}
    assert "api_key" in manifest["settings"]["llm"] and manifest["settings"]["llm"]["api_key"] is None
    assert {"commit", "dirty"} <= set(manifest["git"]) and "created" in manifest
    assert manifest["model"] == "scripted" and "scripted" in md


def test_a_dataset_file_with_a_documents_file(tmp_path: Path, store: Store) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "capitals.jsonl").write_text("".join(json.dumps(d) + "\n" for d in CAPITALS))
    line = {"id": "f1", "question": "What is the capital of Germany?", "collection": "capitals",
            "documents_file": "capitals.jsonl", "reference_answer": "Berlin", "gold_ids": ["berlin"], "expected_filter": None}
    (data / "set.jsonl").write_text(json.dumps(line) + "\n")
    out = run_eval(data / "set.jsonl", Settings(), tmp_path / "out", store=store, engine_factory=Factory())
    assert out.records[0]["error"] is None and out.records[0]["recall_at_4"] == 1.0
    assert store.get_collection("capitals").count() == 2
    assert out.manifest["dataset"]["path"] == str(data / "set.jsonl")
    assert out.manifest["dataset"]["sha256"] == dataset_hash(data / "set.jsonl")
    # the rules plan {"country": "Germany"} where no filter was expected: it selects 1 of 2 -> wrong
    assert out.records[0]["filter_ok"] == 0.0


def test_a_missing_collection_is_a_recorded_failure(tmp_path: Path, store: Store) -> None:
    case = E2ECase(id="x", question="Anything?", collection="no-such-collection", reference_answer="x")
    out = run_eval([case], Settings(), tmp_path / "out", store=store, engine_factory=Factory())
    assert out.records[0]["error"].startswith("collection_not_found: ")
    assert out.summary["errors"] == 1 and out.summary["answer_exact"] is None
    assert out.summary["outcome_rates"]["answered"] is None and out.summary["latency_p50_s"] is None
    assert (out.out_dir / "report.html").read_text().count("data:image/png;base64,") == 4


def test_schema_is_inferred_from_metadata_values() -> None:
    docs = [
        Document(id="a", text="x", metadata={"year": 1995, "score": 1, "tag": "t", "ok": True, "mixed": 1, "bad-key": "v"}),
        Document(id="b", text="y", metadata={"year": 2001, "score": 2.5, "mixed": "one"}),
    ]
    schema = infer_schema(docs)
    assert {a.name: a.type for a in schema.attributes} == {
        "mixed": "string", "ok": "boolean", "score": "float", "tag": "string", "year": "integer",
    }


def test_the_default_engine_puts_the_configured_model_behind_the_cache(tmp_path: Path, store: Store) -> None:
    with SQLiteLLMCache(tmp_path / "llm.sqlite") as cache:
        engine = default_engine(Settings(), store, cache)  # builds the local model lazily: nothing is loaded
        model = engine.components.relevance.model
        assert model is not None and isinstance(model.cache, SQLiteLLMCache) and model.cache.path == cache.path
        assert model is engine.components.generator.model  # one model, one cache, for every step
        uncached = default_engine(Settings(), store, None).components.relevance.model
        assert uncached is not None and uncached.cache is None


def test_bad_arguments_are_usage_errors(tmp_path: Path, store: Store) -> None:
    with pytest.raises(UsageError, match="concurrency"):
        run_eval(cases(), Settings(), tmp_path / "out", store=store, engine_factory=Factory(), concurrency=0)
    with pytest.raises(UsageError, match="limit"):
        run_eval(cases(), Settings(), tmp_path / "out", store=store, engine_factory=Factory(), limit=-1)


def test_a_run_that_cannot_start_leaves_an_earlier_run_in_its_folder_untouched(tmp_path: Path, store: Store) -> None:
    # Bug: the manifest was written before the engine was built, so a rerun into the same --out
    # that failed to start (a tampered judge, a dead model server) replaced the earlier run's
    # manifest and left its cases beside it: a folder describing one run with another's results.
    earlier = run(tmp_path, store, Factory(), "out")
    before = {name: (earlier.out_dir / name).read_bytes() for name in ("manifest.json", "cases.jsonl", "traces.jsonl", "summary.json")}

    def broken(settings: Settings, run_store: Store, cache: SQLiteLLMCache | None) -> SelfRagEngine:
        raise ProviderError("the model server is down")

    with pytest.raises(ProviderError):
        run_eval(cases(), Settings(), tmp_path / "out", store=store, engine_factory=broken, command=["again"])
    assert {name: (earlier.out_dir / name).read_bytes() for name in before} == before
