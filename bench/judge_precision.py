"""The reader-critic's forward passes in float32 and in bfloat16 (``[judge] precision``), interleaved.

For each of ``--rounds`` rounds, on the same HaluEval passages and questions, both precisions run
(order alternating) the three calls a question makes: relevance of four documents, the reader over
two, support of two claims. Reports the median milliseconds of each, the ratio bf16/fp32, and how
far the probabilities move (largest absolute difference, and how many cross the shipped threshold).

    python bench/judge_precision.py --documents /tmp/halueval-test/documents.jsonl \\
        --cases /tmp/halueval-test/e2e.jsonl --out bench/results/judge/precision/micro.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=Path, required=True)
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    import torch

    from selfrag.reading import default_judge
    from selfrag.reading.judge import resolve_precision

    exact = default_judge()
    fast = exact.with_precision("bfloat16")
    texts = [json.loads(line)["text"] for line in args.documents.read_text().splitlines()]
    questions = [json.loads(line)["question"] for line in args.cases.read_text().splitlines()][: args.questions]
    n = len(questions)

    def relevance(judge: Any, i: int) -> list[float]:
        return judge.score("relevance", [questions[i]] * 4, [texts[(i + j) % len(texts)] for j in range(4)])

    def read(judge: Any, i: int) -> float:
        return judge.read(questions[i], [texts[i % len(texts)], texts[(i + 1) % len(texts)]]).probability

    def support(judge: Any, i: int) -> list[float]:
        return judge.score("support", [questions[i]] * 2, [texts[i % len(texts)], texts[(i + 1) % len(texts)]])

    calls = {"relevance_x4": relevance, "read_x2": read, "support_x2": support}
    times: dict[str, dict[str, list[float]]] = {c: {"float32": [], "bfloat16": []} for c in calls}
    for judge in (exact, fast):  # warm both
        for f in calls.values():
            f(judge, 0)
    for r in range(args.rounds):
        order = [exact, fast] if r % 2 == 0 else [fast, exact]
        for judge in order:
            for name, f in calls.items():
                t0 = time.perf_counter()
                for i in range(n):
                    f(judge, i)
                times[name][judge.precision].append((time.perf_counter() - t0) * 1000 / n)
    thresholds = {"relevance_x4": exact.threshold("relevance"), "read_x2": exact.threshold("reader"),
                  "support_x2": exact.threshold("support")}
    drift: dict[str, Any] = {}
    for name, f in calls.items():
        a = [f(exact, i) for i in range(n)]
        b = [f(fast, i) for i in range(n)]
        fa = [x for v in a for x in (v if isinstance(v, list) else [v])]
        fb = [x for v in b for x in (v if isinstance(v, list) else [v])]
        t = thresholds[name]
        drift[name] = {"max_abs_diff": round(max(abs(x - y) for x, y in zip(fa, fb, strict=True)), 5),
                       "crossed_threshold": sum((x >= t) != (y >= t) for x, y in zip(fa, fb, strict=True)),
                       "of": len(fa), "threshold": round(t, 4)}
    result = {
        "command": "bench/judge_precision.py " + " ".join(f"--{k} {v}" for k, v in vars(args).items()),
        "judge": exact.version, "auto_resolves_to": resolve_precision("auto"), "threads": torch.get_num_threads(),
        "rounds": args.rounds, "questions": n,
        "median_ms_per_call": {name: {p: round(statistics.median(v), 2) for p, v in per.items()} for name, per in times.items()},
        "ratio_bf16_over_fp32": {name: round(statistics.median(per["bfloat16"]) / statistics.median(per["float32"]), 3)
                                 for name, per in times.items()},
        "drift": drift,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
