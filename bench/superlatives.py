"""Superlative questions on the self-query sets (``eval/sets/{homes,hotels,jobs,recipes,clubs}``), end to end.

For each set, questions are written from its schema alone, the same template for every set: for
each numeric attribute and each direction, "Which <item> has the highest <attribute's words>?",
and the same within one value of the set's first attribute with allowed values ("Which <value>
<item> has the lowest <attribute's words>?"); and, within that value, "What is the average
<attribute's words> of <value> <items>?" and, for kinds that add up, "What is the total …?". The
right answer is computed here from ``records.jsonl`` directly (winners with ties, or the mean and
the sum, to two decimals), not by the engine.

Every question runs through the real offline engine (trained reader-critic, MiniLM embeddings,
rules self-query) in a fresh home. An answer is right when the documents it cites are exactly the
winners, or, with no citation of them, when its text names a winner's ``name``/``title`` (the
reader's answer, which names a record rather than citing a ranking); an aggregate is right when
the first figure of its short answer is the one computed here. Reported: outcomes, how many
are answered right and answered wrong, and the strategy that answered.

    python bench/superlatives.py --out bench/results/superlatives/superlatives.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SETS = ("homes", "hotels", "jobs", "recipes", "clubs")
ITEMS = {"homes": ("home", "homes"), "hotels": ("hotel", "hotels"), "jobs": ("job", "jobs"),
         "recipes": ("recipe", "recipes"), "clubs": ("club", "clubs")}
"""The word for one item and for several: what a user calls the records of each set."""


def _label(meta: dict[str, Any]) -> str | None:
    for key in ("name", "title"):
        if isinstance(meta.get(key), str):
            return str(meta[key])
    return None


def questions(folder: Path, item: tuple[str, str]) -> list[dict[str, Any]]:
    """The template's questions over one set, each with its winners computed from the records."""
    from selfrag.kinds import guess_kind  # whether a total means anything: the kind the engine guesses
    schema = json.loads((folder / "schema.json").read_text())
    records = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]
    numeric = [a["name"] for a in schema["attributes"] if a["type"] in ("integer", "float")]
    strings = [a["name"] for a in schema["attributes"] if a["type"] == "string" and a.get("allowed_values")]
    group = strings[0] if strings else None
    out: list[dict[str, Any]] = []
    for attribute in numeric:
        words = attribute.replace("_", " ")
        for highest in (True, False):
            most = "highest" if highest else "lowest"
            scopes: list[tuple[str, str | None]] = [(f"Which {item[0]} has the {most} {words}?", None)]
            if group is not None:
                value = Counter(str(r["metadata"].get(group)) for r in records if r["metadata"].get(group)).most_common(1)
                if value:
                    scopes.append((f"Which {value[0][0]} {item[0]} has the {most} {words}?", value[0][0]))
            for question, value in scopes:
                pool = [r for r in records if value is None or str(r["metadata"].get(group)) == value]
                valued = [r for r in pool if isinstance(r["metadata"].get(attribute), (int, float))]
                if not valued:
                    continue
                best = (max if highest else min)(float(r["metadata"][attribute]) for r in valued)
                winners = sorted(r["id"] for r in valued if float(r["metadata"][attribute]) == best)
                out.append({"question": question, "attribute": attribute, "highest": highest, "winners": winners,
                            "labels": [lbl for r in valued if r["id"] in winners and (lbl := _label(r["metadata"]))]})
        if group is None:
            continue
        value = Counter(str(r["metadata"].get(group)) for r in records if r["metadata"].get(group)).most_common(1)[0][0]
        values = [float(r["metadata"][attribute]) for r in records
                  if str(r["metadata"].get(group)) == value and isinstance(r["metadata"].get(attribute), (int, float))]
        declared = next(a for a in schema["attributes"] if a["name"] == attribute)
        kind = declared.get("kind") or guess_kind(declared["type"], attribute, declared.get("description", ""))[0]
        if values:
            out.append({"question": f"What is the average {words} of {value} {item[1]}?", "attribute": attribute,
                        "figure": sum(values) / len(values)})
            if kind in ("count", "money", "duration", "length", "area", "weight", "energy") \
                    and "total" not in attribute.split("_"):  # "the total total minutes" is no question
                out.append({"question": f"What is the total {words} of {value} {item[1]}?", "attribute": attribute,
                            "figure": sum(values)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="selfrag-superlatives-"))
    os.environ["SELFRAG_HOME"] = str(home)
    os.environ.pop("SELFRAG_CONFIG", None)

    from eval.plan_sets import load_plan_set
    from selfrag.ingest import ingest_paths
    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows import RunOptions, SelfRagEngine
    from workflows.factory import build_components, open_store

    cases: list[dict[str, Any]] = []
    try:
        settings = load_settings()
        with open_store(settings, StoreUse("bench/superlatives.py")) as store:
            components = build_components(settings, store=store)
            for name in args.sets.split(","):
                folder = ROOT / "eval" / "sets" / name
                plan_set = load_plan_set(folder)
                target = store.create_collection(name, plan_set.schema_, exist_ok=True)
                ingest_paths(target, [folder / "records.jsonl"])
                engine = SelfRagEngine(components, defaults=RunOptions.from_settings(
                    settings.workflow, provider=settings.llm.provider), today=lambda d=plan_set.today: d)
                for case in questions(folder, ITEMS[name]):
                    result = engine.run(case["question"], collection=name)
                    gens = result.trace.generations
                    strategy = gens[-1]["strategy"] if gens else None
                    cited = sorted({str(c.metadata.get("doc_id") or c.id) for c in result.citations})
                    if "figure" in case:  # an aggregate: the figure, to two decimals
                        got = re.search(r"-?\d[\d,]*(?:\.\d+)?", result.short_answer or result.answer)
                        right = got is not None and abs(float(got.group().replace(",", "")) - case["figure"]) < 0.01
                    else:
                        named = any(label.casefold() in result.answer.casefold() for label in case["labels"])
                        right = cited == case["winners"] if set(cited) & set(case["winners"]) else named
                    cases.append({"set": name, **case, "outcome": str(result.outcome), "strategy": strategy,
                                  "cited": cited, "right": right, "answer": result.answer})
                    print(f"{name:<8} {str(result.outcome):<12} {strategy or '-':<10} {'RIGHT' if right else 'WRONG'} "
                          f"{case['question']}", flush=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    answered = [c for c in cases if c["outcome"] == "answered"]
    head = {
        "questions": len(cases),
        "outcomes": dict(Counter(c["outcome"] for c in cases)),
        "strategies": dict(Counter(str(c["strategy"]) for c in cases)),
        "answered_right": sum(c["right"] for c in answered),
        "answered_wrong": sum(not c["right"] for c in answered),
        "right_any_outcome": sum(c["right"] for c in cases),
    }
    report = {"command": " ".join(["bench/superlatives.py", *sys.argv[1:]]), "headline": head, "cases": cases}
    print(json.dumps(head, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
