"""CLI start-up: ``selfrag --help`` and a cold ``selfrag ask`` on the movies sample, as fresh processes.

Usage: .venv/bin/python bench/cli_startup.py [--tree before=/tmp/selfrag-main] [--tree after=.]
                                             [--repeat 7] [--out bench/results/cli-startup/startup.json]

Each ``--tree LABEL=PATH`` is a source tree of selfrag (e.g. ``git archive main | tar -x -C DIR``)
run by this venv's Python with the tree first on ``PYTHONPATH``, so two versions of the code are
measured on one machine, with one set of installed packages. Every pass runs every scenario of
every tree, in an order rotated each pass (the machine is shared: interleaving spreads its load
over all of them), and the report gives medians and the spread.

Scenarios (wall time of the whole process, Python start included):

- ``help``: ``selfrag --help``;
- ``ask_cold``: ``selfrag ask "Which movies did Greta Gerwig direct?" -c movies`` on a data
  directory holding the movies sample (ingested once, before the passes), the default offline
  profile (embedded models).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Which movies did Greta Gerwig direct?"
SCENARIOS = {
    "help": ["--help"],
    "ask_cold": ["ask", QUESTION, "--collection", "movies"],
}
_RUN = "import sys; from selfrag.cli import main; sys.argv[0] = 'selfrag'; main()"


def _env(tree: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")}
    env.update(PYTHONPATH=str(tree), SELFRAG_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               ANONYMIZED_TELEMETRY="False", COLUMNS="100")
    return env


def _run(tree: Path, home: Path, args: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _RUN, *args], env=_env(tree, home), capture_output=True, text=True,
                          timeout=600, cwd=tempfile.gettempdir(), check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{args[0]} failed in {tree}: {done.stderr.strip()[-800:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", default=[], help="LABEL=PATH of a selfrag source tree (repeatable)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/cli-startup/startup.json")
    args = parser.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree) if args.tree else {"current": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="selfrag-bench-") as tmp:
        home = Path(tmp) / "home"
        # One data directory for every tree: ingested once, by the last tree named (the newest code).
        last = Path(list(trees.values())[-1]).resolve()
        _run(last, home, ["ingest", "--sample", "movies"])
        jobs = [(label, Path(path).resolve(), name) for label, path in trees.items() for name in SCENARIOS]
        times: dict[str, dict[str, list[float]]] = {label: {n: [] for n in SCENARIOS} for label in trees}
        for n in range(args.repeat):
            order = jobs[n % len(jobs):] + jobs[: n % len(jobs)]
            for label, tree, name in order:
                times[label][name].append(_run(tree, home, SCENARIOS[name]))
            print(f"pass {n + 1}/{args.repeat}: " + ", ".join(
                f"{lbl}/{nm} {times[lbl][nm][-1]:.2f}s" for lbl in trees for nm in SCENARIOS), file=sys.stderr)
    report = {
        "bench": "cli_startup",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_avg": os.getloadavg()},
        "repeat": args.repeat,
        "trees": trees,
        "results": {
            label: {name: {"median_s": round(statistics.median(v), 3), "min_s": round(min(v), 3),
                           "max_s": round(max(v), 3), "runs_s": [round(x, 3) for x in v]}
                    for name, v in per.items()}
            for label, per in times.items()
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for label, per in report["results"].items():
        print(label, {name: r["median_s"] for name, r in per.items()})


if __name__ == "__main__":
    main()
