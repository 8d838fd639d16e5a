"""Ask the probe's questions again, in a fresh home: `RERUN.md`.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/results/probes/s31-stock/rerun.py OUT.jsonl

Ingests the corpus beside this script (36 used-car listings with a schema) through
the CLI, then asks every question of `questions.jsonl` (all 174, the variations included) through
the engine `selfrag ask` builds, in one process (the CLI's start-up, a few seconds a question, is
not what is measured): in its thread when it has one, over both collections when it names two.
One line of outcome, short answer, answer and stop reason each.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # bench/

from probe_rerun import rerun  # noqa: E402

if __name__ == "__main__":
    rerun(HERE, [
        ["corpus/stock.jsonl", "--collection", "stock", "--schema", "corpus/stock.schema.json"],
    ], Path(sys.argv[1]))
