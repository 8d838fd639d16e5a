"""The engine run of this directory: ``run_eval`` (what ``selfrag eval run`` calls) over a dataset,
with the user's LLM cache and a progress line every ten cases; judged afterwards with
``selfrag eval judge``.

    SELFRAG_HOME=... python engine_run.py data/halueval-test/e2e.jsonl runs/engine
"""

import sys

from eval.runner import run_eval
from selfrag.settings import load_settings


def progress(done: int, total: int) -> None:
    if done % 10 == 0 or done == total:
        print(f"cases {done}/{total}", flush=True)


settings = load_settings()
run = run_eval(sys.argv[1], settings, sys.argv[2], cache=settings.home / "cache" / "llm.sqlite", progress=progress,
               dataset=sys.argv[1], command=["python", "-c", "run_eval", *sys.argv[1:]])
print(run.summary["outcomes"], flush=True)
