"""The real thing, offline: SmolLM2 through llama.cpp, MiniLM embeddings, an embedded Chroma.

What the 135M model says varies; what is asserted does not depend on it. The self-query filters
are exact because the rules referee the model's proposal; the engine runs are checked for
structural truths: a known outcome, citations drawn from documents graded relevant, a final
filter that every retrieved document satisfies, counted LLM calls and a timed path.

Everything loads once per module: the models (in their process-wide registries), one data
directory with both samples ingested, one engine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from selfrag.cli import app
from selfrag.reading import DEFAULT_JUDGE_DIR, JUDGE_SHA256
from selfrag.reading.judge import resolve_precision
from selfrag.samples import ingest_sample
from selfrag.settings import Settings
from selfrag.store import Store
from selfrag.testing import matches_where
from tests.integration.conftest import default_environment
from workflows import Outcome, Result, SelfRagEngine
from workflows.factory import build_engine, open_store
from workflows.nodes import NODE_NAMES
from workflows.set_answers import SET_STRATEGIES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("selfrag-home")


@pytest.fixture(scope="module")
def local(home: Path) -> Iterator[tuple[SelfRagEngine, Store]]:
    with default_environment(home):
        settings = Settings(home=home)
        assert (settings.llm.provider, settings.embeddings.provider) == ("local", "local")
        store = open_store(settings)
        for sample in ("movies", "filings"):
            ingest_sample(store, sample)
        engine = build_engine(settings, store=store, memory=False)
    yield engine, store
    store.close()


# -- self-query through the CLI ------------------------------------------------------------------
QUESTIONS = [
    "I want to watch a movie rated higher than 8.5",
    "Has Greta Gerwig directed any movies about women",
    "What's a highly rated (above 8.5) science fiction film?",
    "What's a movie after 1990 but before 2005 that's all about toys, and preferably is animated",
]


def conjuncts(where: dict[str, Any]) -> list[dict[str, Any]]:
    return list(where["$and"]) if set(where) == {"$and"} else [where]


def test_plan_produces_the_expected_filters(local: object, home: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text("\n".join(QUESTIONS) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["plan", "--collection", "movies", "--file", str(questions), "--json"], env={"SELFRAG_HOME": str(home)}
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 4 and all(set(r) == {"query", "filter", "limit"} for r in rows)
    assert all(isinstance(r["query"], str) and r["query"].strip() for r in rows)
    rating, gerwig, scifi, toys = (r["filter"] for r in rows)

    assert rating == {"rating": {"$gt": 8.5}}
    assert gerwig == {"director": {"$eq": "Greta Gerwig"}}
    assert set(scifi) == {"$and"}
    assert sorted(map(json.dumps, scifi["$and"])) == sorted(
        map(json.dumps, [{"rating": {"$gt": 8.5}}, {"genre": {"$eq": "science fiction"}}])
    )
    required = [{"year": {"$gt": 1990}}, {"year": {"$lt": 2005}}]
    parts = conjuncts(toys)
    assert all(p in parts for p in required), toys
    assert all(p in required or p == {"genre": {"$eq": "animated"}} for p in parts), toys


# -- whole questions through the engine ----------------------------------------------------------
RUNS = {
    "movies": ("movies", "What's a highly rated (above 8.5) science fiction film?"),
    "filings": ("filings", "What was Walmart's revenue in fiscal year 2023?"),
}


@pytest.fixture(scope="module")
def results(local: tuple[SelfRagEngine, Store]) -> dict[str, Result]:
    engine, _ = local
    # One rewrite at most keeps the worst case short; two generations leave room for the
    # extractive fallback after an ungrounded first answer.
    options = engine.with_options(max_rewrites=1, max_generations=2)
    return {key: engine.run(q, collection=c, options=options) for key, (c, q) in RUNS.items()}


@pytest.mark.parametrize("key", list(RUNS))
def test_engine_results_hold_their_structural_truths(
    key: str, results: dict[str, Result], local: tuple[SelfRagEngine, Store]
) -> None:
    result = results[key]
    collection, question = RUNS[key]
    _, store = local
    trace = result.trace
    assert result.outcome in set(Outcome)
    assert (result.question, result.collection) == (question, collection)

    # citations come only from documents graded relevant
    relevant = {d["id"] for d in trace.documents if d["relevant"]}
    assert {c.id for c in result.citations} <= relevant
    assert sorted(c.number for c in result.citations) == sorted({c.number for c in result.citations})

    # these questions carry conditions: the final filter is the planned one, or a recorded relaxation of it
    planned = trace.plan["where"]
    assert planned is not None
    assert result.filter == (trace.relaxations[-1]["where"] if trace.relaxations else planned)
    # every document the run saw satisfies the final filter (relaxing only ever drops conditions) …
    assert trace.documents, "the filter matched documents in the sample"
    for doc in [*trace.documents, *(c.model_dump() for c in result.citations)]:
        assert matches_where(doc["metadata"], result.filter), (doc["id"], doc["metadata"], result.filter)
    # … and Chroma, asked again with it, returns nothing else
    hits = store.get_collection(collection).search(question, where=result.filter, k=50)
    assert hits and all(matches_where(h.metadata, result.filter) for h in hits)

    # the local profile's answers are the trained reader's, graded by the trained critic: no model
    # call at all, and the trace names the reader-critic's weights
    assert (trace.llm.calls, trace.llm.total_tokens) == (0, 0)
    # (or, where the filter holds all the question asks, the documents it selected, quoted as they are)
    assert all(g["strategy"] in ("reader", *SET_STRATEGIES) for g in trace.generations)
    assert trace.judge is not None and trace.judge.startswith(f"{DEFAULT_JUDGE_DIR.name}@{JUDGE_SHA256[:12]}")
    # … and the arithmetic it ran in: [judge] precision = "auto" takes bf16 where the CPU has it
    assert trace.judge.endswith("/bf16") is (resolve_precision("auto") == "bfloat16")

    # the timings are the path, node by node, in order
    assert [t["node"] for t in trace.timings] == trace.path
    assert trace.path[:3] == ["condense", "self_query", "retrieve"] and trace.path[-1] == "finalize"
    assert set(trace.path) <= set(NODE_NAMES)
    assert all(t["ms"] >= 0 for t in trace.timings)
    assert sum(t["ms"] for t in trace.timings) <= trace.total_ms + 1.0
    assert trace.budgets["rewrites_used"] <= 1 and trace.budgets["generations_used"] <= 2

    if result.outcome is Outcome.ANSWERED:
        assert result.answer.strip()
        assert any(g["grounded"] and g["useful"] and g["verified"] for g in trace.generations)
    if result.outcome is Outcome.ABSTAINED:
        assert result.citations == [] and not trace.generations


# -- a question with no filter: the search text stays on the question --------------------------------
TOYS = "Which movie is about toys that come alive?"


def test_the_toys_question_answers_from_toy_story(local: tuple[SelfRagEngine, Store]) -> None:
    engine, _ = local
    result = engine.run(TOYS, collection="movies", options=engine.with_options(max_rewrites=1, max_generations=2))
    plan = result.trace.plan
    # The local profile reads the question with the rules; the model is not asked for a structured query.
    assert plan["source"] == "rules" and plan["changes"][0]["kind"] == "model_not_asked"
    assert plan["where"] is None and plan["structured_query"]["limit"] is None
    assert plan["structured_query"]["query"] == "toys that come alive"
    assert result.trace.documents[0]["id"] == "toy-story"
    # The reader reads Toy Story's document, whose text never names the film: no short answer it
    # can read is right ("Toys" from the plot, "1995" from the metadata line), so none is signed.
    # Shown, cited, flagged; never abstained.
    assert result.outcome is not Outcome.ABSTAINED, result.answer
    assert result.outcome is not Outcome.ANSWERED, result.answer
    assert "toy-story" in {c.id for c in result.citations}
    for rewrite in result.trace.rewrites:
        assert "<" not in rewrite["to"] and rewrite["to"].strip()
