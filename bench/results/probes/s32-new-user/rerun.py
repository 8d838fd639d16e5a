"""Ask the probe's questions again, in a fresh home: `RERUN.md`.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/results/probes/s32-new-user/rerun.py OUT.jsonl

Ingests the two corpora beside this script (35 used-car listings with a schema, nine appliance
manuals in prose) through the CLI, then asks every question of `questions.jsonl` (all 282, the
variations included) through the engine `selfrag ask` builds, in one process (the CLI's start-up,
a few seconds a question, is not what is measured). One line of outcome, short answer, answer and
stop reason each.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # bench/

from probe_rerun import rerun  # noqa: E402

if __name__ == "__main__":
    rerun(HERE, [
        ["corpus/manuals", "--collection", "manuals"],
        ["corpus/cars/listings.jsonl", "--collection", "cars", "--schema", "corpus/cars.schema.json"],
    ], Path(sys.argv[1]))
