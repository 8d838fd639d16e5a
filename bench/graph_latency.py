"""Graph latency: selfrag against the LangGraph tutorial's Self-RAG graph, with a fixed-latency model.

Usage: .venv/bin/python bench/graph_latency.py [--repeat 5] [--latency 0.25 0.5] [--k 4 8 16]
                                               [--out bench/results/graph-latency/latency.json]

Every model call sleeps L seconds then answers (relevant / grounded / useful), so wall time is set
by how many calls run one after another. selfrag runs with an API-provider configuration (the
engine ``workflows.factory`` builds for ``llm.provider = "openai"``), with a self-query that asks
the model. Its critical-path bound on the happy path is 4·L: self-query, one grading round,
generate, one checks round (speculation, which goes below the bound, is off here: see
``bench/speculation.py``). The tutorial graph (``bench/_tutorial_graph.py``) needs (k + 3)·L.

Runs are interleaved (selfrag and tutorial alternate, their order flipping each pass) and
medians reported: the machine is shared, absolute times are noisy, ratios are what count. Each
configuration's engine is built once and warmed by one question (as a service's is), and every
timed run asks a question not asked before.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from _tutorial_graph import build_tutorial_graph  # noqa: E402
from langchain_core.messages import BaseMessage  # noqa: E402

from selfrag.schema import AttributeInfo, CollectionSchema  # noqa: E402
from selfrag.settings import Settings  # noqa: E402
from selfrag.store.types import Hit  # noqa: E402
from selfrag.testing import FakeCollection, FakeStore, ScriptedChatModel  # noqa: E402
from workflows import (  # noqa: E402
    RunOptions,
    SelfRagEngine,
    factory,  # noqa: E402
)
from workflows.generation import GENERATE_SYSTEM  # noqa: E402

QUESTION = "What do the quarterly reports say about supply chain risk?"


def latency_model(latency: float) -> ScriptedChatModel:
    """Every call sleeps ``latency`` then gives the happy-path answer for its task."""

    def after(reply: str) -> Any:
        def rule(messages: list[BaseMessage]) -> str:
            time.sleep(latency)
            return reply

        return rule

    def text(messages: list[BaseMessage]) -> str:
        time.sleep(latency)
        if str(messages[0].content).startswith(GENERATE_SYSTEM[:40]):
            # An answer that says something new: a restatement of the question is graded not useful.
            return "Supply chain risk rose by 12% in the quarter, the reports say [1]."
        return "Supply chain risk is discussed in the reports."  # the tutorial's generate

    yes = after(json.dumps({"binary_score": "yes"}))
    return ScriptedChatModel.from_rules({
        "StructuredQuery": after(json.dumps({"query": "supply chain risk in quarterly reports", "filter": None, "limit": None})),
        "RelevanceGrade": after(json.dumps({"verdict": "relevant", "reason": "on topic"})),
        "GroundednessGrade": after(json.dumps({"verdict": "grounded", "reason": "supported"})),
        "UsefulnessGrade": after(json.dumps({"verdict": "useful", "reason": "answers it"})),
        "GradeDocuments": yes, "GradeHallucinations": yes, "GradeAnswer": yes,
        # selfrag's generator names its task ("generate"); unscripted, the call failed at once and
        # the extractive fallback answered: one model latency missing from the path measured.
        "generate": text, "text": text,
    })


# A collection with declared attributes, as every real one has: with none, the planner has nothing
# to filter on and skips the model, which would take the self-query call off the path measured here.
SCHEMA = CollectionSchema(attributes=[
    AttributeInfo(name="company", type="string", description="the company the report is about"),
    AttributeInfo(name="year", type="integer", description="fiscal year of the report"),
    AttributeInfo(name="quarter", type="string", allowed_values=["Q1", "Q2", "Q3", "Q4"]),
])


def collection(k: int) -> FakeCollection:
    hits = [
        Hit(id=f"d{i}", text=f"Report {i}: supply chain risk rose by 12% in the quarter, section {i}.", metadata={}, score=0.9 - i / 100)
        for i in range(k)
    ]
    return FakeCollection("reports", SCHEMA, search_fn=lambda q, w, n: hits[:n])


def run_options(settings: Settings) -> RunOptions:
    """The run defaults the factory gives this configuration (older code: straight from settings)."""
    make = getattr(factory, "run_options", None)
    return make(settings) if make is not None else RunOptions.from_settings(settings.workflow)


_ENGINES: dict[tuple[float, int], tuple[SelfRagEngine, ScriptedChatModel, RunOptions]] = {}
_ASKED = iter(range(1_000_000))


def asked() -> str:
    """A question not asked before: no per-question cache (the planner's word embeddings) helps,
    as in a service, where the engine and its schema-side caches outlive every question."""
    return f"{QUESTION[:-1]} in section {next(_ASKED)}?"


def _engine(latency: float, k: int) -> tuple[SelfRagEngine, ScriptedChatModel, RunOptions]:
    """One engine per configuration, built once and warmed by one question, as the service and the
    harness build theirs (building one, with its embedding model, is not part of a question)."""
    if (latency, k) not in _ENGINES:
        # Speculation off: this measures the critical path itself (bench/speculation.py goes below it).
        settings = Settings(llm={"provider": "openai", "api_key": "unused"}, workflow={"speculate": False})  # type: ignore[arg-type]
        model = latency_model(latency)
        components = factory.build_components(settings, store=FakeStore(collection(k)), model=model)
        engine = SelfRagEngine(components, defaults=run_options(settings))
        opts = RunOptions(**{**run_options(settings).__dict__, "top_k": k})
        engine.run(asked(), collection="reports", options=opts)
        _ENGINES[(latency, k)] = (engine, model, opts)
    return _ENGINES[(latency, k)]


def selfrag_run(latency: float, k: int) -> tuple[float, int]:
    engine, model, opts = _engine(latency, k)
    before = len(model.calls)
    start = time.perf_counter()
    result = engine.run(asked(), collection="reports", options=opts)
    elapsed = time.perf_counter() - start
    assert result.outcome.value == "answered", result.outcome
    return elapsed, len(model.calls) - before


_TUTORIALS: dict[tuple[float, int], tuple[Any, ScriptedChatModel]] = {}


def tutorial_run(latency: float, k: int) -> tuple[float, int]:
    if (latency, k) not in _TUTORIALS:  # built once per configuration too
        model = latency_model(latency)
        _TUTORIALS[(latency, k)] = (build_tutorial_graph(model, collection(k), k=k), model)
    graph, model = _TUTORIALS[(latency, k)]
    before = len(model.calls)
    start = time.perf_counter()
    out = graph.invoke({"question": asked()})
    elapsed = time.perf_counter() - start
    assert out["generation"], out
    return elapsed, len(model.calls) - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--latency", type=float, nargs="+", default=[0.25, 0.5])
    parser.add_argument("--k", type=int, nargs="+", default=[4, 8, 16])
    parser.add_argument("--out", type=Path, default=Path("bench/results/graph-latency/latency.json"))
    args = parser.parse_args()

    times: dict[tuple[str, float, int], list[float]] = {}
    calls: dict[tuple[str, float, int], int] = {}
    selfrag_run(0.0, 4)  # warm imports out of the first timed run
    for rep in range(args.repeat):
        for latency in args.latency:
            for k in args.k:
                order = [("selfrag", selfrag_run), ("tutorial", tutorial_run)]
                for name, fn in order if rep % 2 == 0 else order[::-1]:
                    seconds, n = fn(latency, k)
                    times.setdefault((name, latency, k), []).append(seconds)
                    calls[(name, latency, k)] = n
        print(f"pass {rep + 1}/{args.repeat} done", flush=True)

    rows = []
    for latency in args.latency:
        for k in args.k:
            ours = statistics.median(times[("selfrag", latency, k)])
            theirs = statistics.median(times[("tutorial", latency, k)])
            bound = 4 * latency
            rows.append({
                "latency_s": latency, "k": k,
                "selfrag_p50_s": round(ours, 4), "tutorial_p50_s": round(theirs, 4),
                "selfrag_calls": calls[("selfrag", latency, k)], "tutorial_calls": calls[("tutorial", latency, k)],
                "speedup_vs_tutorial": round(theirs / ours, 3),
                "selfrag_over_bound_4L": round(ours / bound, 3),
                "overhead_ms_over_bound": round((ours - bound) * 1000, 1),
            })
    print(f"{'L':>5} {'k':>3} {'selfrag':>8} {'tutorial':>9} {'speedup':>8} {'x 4L':>6} {'calls':>9}")
    for r in rows:
        print(f"{r['latency_s']:5.2f} {r['k']:3d} {r['selfrag_p50_s']:8.3f} {r['tutorial_p50_s']:9.3f} "
              f"{r['speedup_vs_tutorial']:7.2f}x {r['selfrag_over_bound_4L']:6.3f} {r['selfrag_calls']:4d}/{r['tutorial_calls']:<4d}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "command": "bench/graph_latency.py " + " ".join(sys.argv[1:]),
        "repeat": args.repeat, "rows": rows,
        "raw_s": {f"{n}/L={lat}/k={k}": [round(t, 4) for t in v] for (n, lat, k), v in times.items()},
    }, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
