"""Ask the probe's questions again through the CLI, in a fresh home: `RERUN.md`.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/results/probes/s30-new-user/rerun.py OUT.jsonl

Ingests the two corpora beside this script (a library handbook, yearly rainfall records), then
asks every question of `questions.jsonl` (all 250, the variations included; in its thread, when it
has one; over both collections when it names two), one line of outcome, short answer, answer and
stop reason each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SELFRAG = str(Path(sys.executable).with_name("selfrag"))


def main() -> None:
    out_path = Path(sys.argv[1])
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", SELFRAG_HOME=tempfile.mkdtemp())

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([SELFRAG, *args], capture_output=True, text=True, env=env, check=False)

    corpus = HERE / "corpus"
    run("ingest", str(corpus / "handbook"), "--collection", "handbook")
    run("ingest", str(corpus / "rainfall" / "rainfall.jsonl"), "--collection", "rainfall",
        "--schema", str(corpus / "rainfall.schema.json"))
    questions = [json.loads(line) for line in (HERE / "questions.jsonl").read_text().splitlines() if line.strip()]
    with out_path.open("w") as out:
        for q in questions:
            args = ["ask", q["question"], "--json", *[a for c in q["collection"].split("+") for a in ("-c", c)]]
            if q.get("thread"):
                args += ["--thread", "re-" + q["thread"]]
            done = run(*args)
            try:
                result = json.loads(done.stdout)
            except ValueError:
                result = {"error": done.stderr[-300:]}
            out.write(json.dumps({"id": q["id"], "kind": q.get("kind"), "q": q["question"], "expected": q.get("expected"),
                                  "outcome": result.get("outcome"), "short": result.get("short_answer"),
                                  "answer": (result.get("answer") or "")[:300], "stop": result.get("stop_reason")},
                                 ensure_ascii=False) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
