"""Ask the probe's questions again, in a fresh home: `RERUN.md`.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/results/probes/s31-new-user/rerun.py OUT.jsonl

Ingests the two corpora beside this script (a waste and recycling guide, product recall notices) through
the CLI, then asks every question of `questions.jsonl` (all 241, the variations included) through
the engine `selfrag ask` builds, in one process (the CLI's start-up, a few seconds a question, is
not what is measured): in its thread when it has one, over both collections when it names two.
One line of outcome, short answer, answer and stop reason each.
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
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", SELFRAG_HOME=tempfile.mkdtemp())
    os.environ.pop("SELFRAG_CONFIG", None)
    corpus = HERE / "corpus"
    for args in (["ingest", str(corpus / "waste"), "--collection", "waste"],
                 ["ingest", str(corpus / "recalls" / "recalls.jsonl"), "--collection", "recalls",
                  "--schema", str(corpus / "recalls.schema.json")]):
        subprocess.run([SELFRAG, *args], capture_output=True, text=True, check=True)

    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows.factory import build_engine, close_checkpointer, open_store
    from workflows.resources import Resource

    questions = [json.loads(line) for line in (HERE / "questions.jsonl").read_text().splitlines() if line.strip()]
    settings = load_settings()
    with open_store(settings, StoreUse("probe rerun", write=False)) as store, out_path.open("w") as out:
        engine = build_engine(settings, store=store, memory=True)
        try:
            for q in questions:
                resources = [Resource(c) for c in q["collection"].split("+")]
                thread = "re-" + q["thread"] if q.get("thread") else None
                try:
                    result = engine.run(q["question"], resources=resources, thread_id=thread)
                    row = {"outcome": result.outcome.value, "short": result.short_answer,
                           "answer": result.answer[:300], "stop": result.trace.stop_reason}
                except Exception as exc:  # a bad question is an error line, as the CLI prints one
                    row = {"outcome": None, "short": None, "answer": "", "stop": f"error: {type(exc).__name__}: {exc}"[:300]}
                out.write(json.dumps({"id": q["id"], "kind": q.get("kind"), "q": q["question"],
                                      "expected": q.get("expected"), **row}, ensure_ascii=False) + "\n")
                out.flush()
        finally:
            engine.close()
            close_checkpointer(engine.checkpointer)


if __name__ == "__main__":
    main()
