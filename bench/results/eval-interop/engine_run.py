import sys
from eval.runner import run_eval
from selfrag.settings import load_settings
settings = load_settings()
done = [0]
def progress(d, t):
    if d % 10 == 0 or d == t:
        print(f"cases {d}/{t}", flush=True)
run = run_eval(sys.argv[1], settings, sys.argv[2], cache=settings.home / "cache" / "llm.sqlite", progress=progress,
               dataset=sys.argv[1], command=["python", "-c", "run_eval", *sys.argv[1:]])
print(run.summary["outcomes"], flush=True)
