"""Ask the probe's questions again, in a fresh home: `RERUN.md`.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/results/probes/s31-new-user/rerun.py OUT.jsonl

Ingests the two corpora beside this script (a waste and recycling guide, product recall notices) through
the CLI, then asks every question of `questions.jsonl` (all 241, the variations included) through
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
        ["corpus/waste", "--collection", "waste"],
        ["corpus/recalls/recalls.jsonl", "--collection", "recalls", "--schema", "corpus/recalls.schema.json"],
    ], Path(sys.argv[1]))
