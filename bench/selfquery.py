"""Self-query accuracy on the labelled sets, per mode, and how often the model's proposal helped.

Usage:
    .venv/bin/python bench/selfquery.py --mode rules --out bench/results/selfquery/after-rules.json
    .venv/bin/python bench/selfquery.py --mode llm --out bench/results/selfquery/after-llm.json   # model only
    .venv/bin/python bench/selfquery.py --planner-root /path/to/old/checkout --mode auto --out .../before-auto.json

Scores every set under eval/sets/ that has a set.json (dev and held-out splits reported apart)
with ``eval.plan_eval``: a filter is right when it selects the same probe records in a real
Chroma as an accepted one. ``--planner-root`` plans with another checkout's ``selfrag`` (the
"before" figures), while the sets and the scoring stay this checkout's. ``--compare A.json B.json``
prints, per set, the questions B gets right and A wrong, and the reverse (e.g. llm vs rules:
"did the model's proposal ever improve on the constructor?").
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import sys
import time
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _load_harness() -> Any:
    """This checkout's eval.plan_sets / probes / plan_eval, whatever ``selfrag`` is importable."""
    # This checkout's ``eval`` as a bare package: its __init__ imports the harness modules in an
    # order that loading them one by one here would break (a partly initialised plan_sets).
    package = types.ModuleType("eval")
    package.__path__ = [str(ROOT / "eval")]
    sys.modules["eval"] = package
    mods = {}
    for name in ("plan_sets", "probes", "plan_eval"):
        spec = importlib.util.spec_from_file_location(f"eval.{name}", ROOT / "eval" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[f"eval.{name}"] = module
        spec.loader.exec_module(module)
        mods[name] = module
    return mods


_MODEL: dict[str, Any] = {}


def _planner(mode: str, today: Any, cache: Path | None) -> Any:
    from selfrag.providers import make_chat_model, make_embeddings
    from selfrag.query import SelfQueryPlanner
    from selfrag.settings import load_settings

    settings = load_settings()
    model = None
    if mode != "rules":
        if "model" not in _MODEL:
            _MODEL["model"] = make_chat_model(settings.llm)
            if cache is not None:
                # The same prompts in llm and auto mode cost one model call, not two.
                from eval.cache import SQLiteLLMCache, with_cache

                _MODEL["model"] = with_cache(_MODEL["model"], SQLiteLLMCache(cache))
        model = _MODEL["model"]
    kwargs: dict[str, Any] = {"method": settings.llm.structured_output_method, "mode": mode, "today": today}
    if "embeddings" in inspect.signature(SelfQueryPlanner).parameters:
        kwargs["embeddings"] = make_embeddings(settings.embeddings)
    return SelfQueryPlanner(model, **kwargs)


def compare(a_path: Path, b_path: Path) -> None:
    a, b = (json.loads(p.read_text()) for p in (a_path, b_path))
    for sa, sb in zip(a["sets"], b["sets"], strict=True):
        ra = {c["id"]: c for c in sa["cases"]}
        better = [c for c in sb["cases"] if c["filter_ok"] and c["limit_ok"] and not (ra[c["id"]]["filter_ok"] and ra[c["id"]]["limit_ok"])]
        worse = [c for c in sb["cases"] if not (c["filter_ok"] and c["limit_ok"]) and ra[c["id"]]["filter_ok"] and ra[c["id"]]["limit_ok"]]
        print(f"{sb['summary']['all']['set']}: {len(better)} right only in {b_path.name}, {len(worse)} right only in {a_path.name}")
        for c in better:
            print(f"   + {c['id']} {c['question']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["rules", "auto", "llm"], default="rules")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--planner-root", type=Path, help="plan with this checkout's selfrag (before/after)")
    parser.add_argument("--sets", nargs="*", type=Path, help="set folders (default: every set under eval/sets)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    parser.add_argument("--cache", type=Path, help="an LLM response cache (SQLite) shared across runs")
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.planner_root:
        sys.path.insert(0, str(args.planner_root.resolve()))
    harness = _load_harness()
    folders = args.sets or sorted(p.parent for p in (ROOT / "eval" / "sets").glob("*/set.json"))
    report: dict[str, Any] = {"mode": args.mode, "planner_root": str(args.planner_root or ROOT), "sets": []}
    for folder in folders:
        plan_set = harness["plan_sets"].load_plan_set(folder)
        planner = _planner(args.mode, plan_set.today, args.cache)
        started = time.perf_counter()
        score = harness["plan_eval"].score_plan_set(plan_set, harness["plan_eval"].planner_fn(planner, plan_set))
        summaries = {split: score.summary(split) for split in ("dev", "heldout", "all")}
        used = [c for c in score.cases if c.planned.source == "llm"]
        summaries["model_proposal"] = {"used": len(used), "used_and_right": sum(c.ok for c in used)}
        print(f"{plan_set.name:14s} dev {summaries['dev']['filter_accuracy']:.3f} ({summaries['dev']['questions']})  "
              f"heldout {summaries['heldout']['filter_accuracy']:.3f} ({summaries['heldout']['questions']})  "
              f"all-right {summaries['all']['accuracy']:.3f}  search-text-ok {summaries['all']['query_ok']:.3f}  "
              f"model used {len(used)}  {time.perf_counter() - started:.1f}s", flush=True)
        report["sets"].append({"summary": summaries, "cases": [c.to_json() for c in score.cases]})
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
