"""Does seeded bf16 training give the same weights in every process? Fused against eager attention.

Each run is a fresh process (the difference shows only across processes: within one, repeated
steps are bitwise equal) that builds the MiniLM reader-critic with ``load_base`` and trains it
for ``--steps`` batches through ``fit`` under bf16 autocast on two threads, on made-up rows whose
passages differ in length (so batches are padded, as HaluEval's are), half reading and half judging, then prints a sha256 of
its weights. Runs alternate between the eager attention training uses and transformers' default
fused kernel (``sdpa``), so load on the machine falls on both alike. Reproducible means one hash
per arm.

    python bench/determinism.py --runs 3 --steps 12 --out bench/results/judge/determinism-s24.txt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ARMS = ("eager", "sdpa")


def one_run(attention: str, steps: int) -> dict[str, object]:
    from transformers import AutoTokenizer

    from eval._halueval_source import HaluEvalRow
    from eval.training.examples import build_critic, build_reader
    from eval.training.fit import FitConfig, fit, load_base
    from selfrag.providers.embeddings import default_minilm_dir

    base = default_minilm_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    net = load_base(base, seed=13)
    if attention != "eager":
        net.encoder.set_attn_implementation(attention)
    rng = random.Random(0)
    words = ("the", "river", "city", "population", "was", "founded", "in", "year", "born", "music", "album", "film",
             "director", "team", "won")
    rows = []
    for i in range(steps * 4):
        filler = " ".join(rng.choice(words) for _ in range(rng.randint(20, 220)))
        rows.append(HaluEvalRow(knowledge=f"{filler}. Album {i} was recorded by Prince in {1970 + i}.",
                                question=f"Who recorded album {i}?", right_answer="Prince",
                                hallucinated_answer="Michael Jackson recorded it."))
    reader, critic = build_reader(rows, [], 1), build_critic(rows, [], 1)
    # About half the steps read, the rest judge (each critic task about equally): both paths pad.
    config = FitConfig(batch=16, reader_epochs=steps * 8 / max(1, len(reader)),
                       critic_epochs=steps * 8 / max(1, len(critic)), threads=2, precision="bfloat16")
    started = time.monotonic()
    out = fit(net, tokenizer, reader, critic, config, log=lambda _: None)
    digest = hashlib.sha256()
    for name, tensor in sorted(net.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().float().contiguous().numpy().tobytes())
    return {"attention": attention, "steps": out["steps"], "seconds": round(time.monotonic() - started, 1),
            "sha256": digest.hexdigest()[:16]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="processes per arm")
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--one", choices=ARMS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_run(args.one, args.steps)))
        return 0
    results: list[dict[str, object]] = []
    for _ in range(args.runs):
        for arm in ARMS:
            done = subprocess.run([sys.executable, __file__, "--one", arm, "--steps", str(args.steps)],
                                  capture_output=True, text=True, check=True)
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(json.dumps(results[-1]), flush=True)
    lines = [f"seeded bf16 training, two threads, {args.steps} steps of batch 16, {args.runs} processes per arm"]
    for arm in ARMS:
        mine = [r for r in results if r["attention"] == arm]
        hashes = sorted({str(r["sha256"]) for r in mine})
        seconds = statistics.median(float(str(r["seconds"])) for r in mine)
        lines.append(f"{arm}: {len(hashes)} distinct weights in {len(mine)} runs ({', '.join(hashes)}); "
                     f"median {seconds:.1f} s training")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        args.out.write_text(text + "\n".join(json.dumps(r) for r in results) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
