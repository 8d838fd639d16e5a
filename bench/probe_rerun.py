"""Ask a new-user probe's questions again, in a fresh home.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/probe_rerun.py bench/results/probes/s32-new-user OUT.jsonl

A probe folder (``bench/results/probes/sNN-new-user/``) holds its corpus and ``questions.jsonl``
(``id``, ``collection`` — two joined by ``+`` ask both —, ``kind``, ``question``, ``expected`` and
an optional ``thread``) and ``ingest.json``: the arguments of each ``selfrag ingest`` its user ran,
paths relative to the folder. ``rerun(folder, ingests, out)`` ingests the corpus through the CLI (as the
probe's user did), then asks every question through the engine ``selfrag ask`` builds, in one
process (the CLI's start-up, a few seconds a question, is not what is measured): in its thread
when it has one. One JSON line a question: outcome, short answer, answer and stop reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

SELFRAG = str(Path(sys.executable).with_name("selfrag"))


def rerun(folder: Path, ingests: Sequence[Sequence[str]], out_path: Path) -> None:
    """``ingests``: the arguments of each ``selfrag ingest`` (paths relative to ``folder``)."""
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", SELFRAG_HOME=tempfile.mkdtemp())
    os.environ.pop("SELFRAG_CONFIG", None)
    for args in ingests:
        subprocess.run([SELFRAG, "ingest", *args], capture_output=True, text=True, check=True, cwd=folder)

    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows.factory import build_engine, close_checkpointer, open_store
    from workflows.resources import Resource

    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text().splitlines() if line.strip()]
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
    if len(sys.argv) != 3:
        sys.exit("usage: probe_rerun.py PROBE_FOLDER OUT.jsonl")
    probe = Path(sys.argv[1]).resolve()
    rerun(probe, json.loads((probe / "ingest.json").read_text()), Path(sys.argv[2]))
