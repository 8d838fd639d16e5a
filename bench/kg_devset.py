"""Score offline relation recognition + graph resolution on the companies dev set (and held-out).

Usage:
    .venv/bin/python bench/kg_devset.py --out bench/results/kg-devset/offline.json
    .venv/bin/python bench/kg_devset.py --label        # rewrite the questions' expected entity sets

A question is resolved exactly when everything matches its label: the relation conditions (the
relation and the entity it applies to), the direct mentions, the clarification candidates of an
ambiguous name, the entity set the graph returns (the intersection over its relations), the named
sentiment range, the date range and the latest-first flag. The expected entity sets are computed
here by walking edges.jsonl in plain Python (``--label`` writes them into questions.jsonl), so the
FalkorDB resolution is checked against an independent traversal. A real embedded FalkorDB is
started in a temporary directory (or ``--url redis://...``) and the sample graph loaded into it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from selfrag.kg import (  # noqa: E402
    EntityIndex,
    GraphLink,
    NamedRange,
    RelationRecogniser,
    find_date_range,
    find_named_ranges,
    load_graph_link,
    open_graph_store,
    read_edges,
    read_nodes,
    resolve_relation,
    wants_latest,
)

SET = ROOT / "eval" / "sets" / "companies"
SAMPLE = ROOT / "selfrag" / "samples" / "companies"


def named_ranges() -> list[NamedRange]:
    schema = json.loads((SAMPLE / "schema.json").read_text(encoding="utf-8"))
    out = []
    for attr in schema["attributes"]:
        for r in attr.get("named_ranges", []):
            out.append(NamedRange(attribute=attr["name"], **r))
    return out


def traverse(link: GraphLink, relation: str, start_name: str) -> set[str]:
    """The relation's result names by walking the files (independent of the graph server)."""
    nodes = {n.id: n for n in read_nodes(SAMPLE / "graph" / "nodes.jsonl")}
    edges = read_edges(SAMPLE / "graph" / "edges.jsonl")
    rel = link.relation(relation)
    assert rel is not None, relation
    start = [n.id for n in nodes.values() if n.label == rel.start and n.name == start_name]
    assert len(start) == 1, (relation, start_name)
    frontier = set(start)
    for hop in rel.path:
        nxt: set[str] = set()
        for e in edges:
            if e.type != hop.type:
                continue
            if hop.direction in ("out", "both") and e.source in frontier:
                nxt.add(e.target)
            if hop.direction in ("in", "both") and e.target in frontier:
                nxt.add(e.source)
        frontier = {i for i in nxt if nodes[i].label == hop.label}
    return {nodes[i].name for i in frontier - set(start)}


def label(link: GraphLink) -> None:
    path = SET / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        if row["relations"] and not row["clarify"]:
            sets = [traverse(link, r["relation"], r["value"]) for r in row["relations"]]
            row["entities"] = sorted(set.intersection(*sets))
        else:
            row["entities"] = None
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"labelled {len(rows)} questions in {path.relative_to(ROOT)}")


def score(args: argparse.Namespace, link: GraphLink) -> dict[str, Any]:
    info = json.loads((SET / "graph-set.json").read_text(encoding="utf-8"))
    today = date.fromisoformat(info["today"])
    rows = [json.loads(line) for line in (SET / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    ranges = named_ranges()
    embed = None
    if args.embed:
        from selfrag.providers.factory import make_embeddings
        from selfrag.settings import EmbeddingSettings

        embed = make_embeddings(EmbeddingSettings()).embed_documents
    with tempfile.TemporaryDirectory() as tmp, open_graph_store(Path(tmp), args.url) as store:
        store.load(link.graph, read_nodes(SAMPLE / "graph" / "nodes.jsonl"), read_edges(SAMPLE / "graph" / "edges.jsonl"))
        index = EntityIndex(store.entities(link.graph))
        recogniser = RelationRecogniser(link, index, embed=embed)
        results: list[dict[str, Any]] = []
        for row in rows:
            t0 = time.perf_counter()
            q = row["question"]
            rec = recogniser.recognise(q)
            clarify: list[str] | None = None
            relations: list[dict[str, str]] = []
            for r in rec.relations:
                if r.match.status == "ambiguous" and clarify is None:
                    clarify = sorted(c.entity.name for c in r.match.candidates)
                relations.append({"relation": r.relation, "value": r.match.entity.name if r.match.entity else r.value})
            mentions = []
            for m in rec.mentions:
                if m.status == "ambiguous" and clarify is None:
                    clarify = sorted(c.entity.name for c in m.candidates)
                elif m.entity is not None:
                    mentions.append(m.entity.name)
            entities = None
            resolutions = []
            if rec.relations and clarify is None and all(r.match.entity for r in rec.relations):
                sets = []
                for r in rec.relations:
                    assert r.match.entity is not None
                    res = resolve_relation(store, link, r.relation, r.match.entity)
                    resolutions.append({"template": res.template, "params": res.params, "entities": res.names})
                    sets.append(set(res.names))
                entities = sorted(set.intersection(*sets))
            ranges_found = find_named_ranges(q, ranges)
            sentiment = ranges_found[0].name if ranges_found else None
            dr = find_date_range(q, today)
            dates = None if dr is None else {"start": dr.start and dr.start.isoformat(), "end": dr.end and dr.end.isoformat()}
            latest = wants_latest(q)
            elapsed = (time.perf_counter() - t0) * 1000
            got = {
                "relations": sorted((r["relation"], r["value"]) for r in relations) if clarify is None
                else sorted(r["relation"] for r in relations),
                "mentions": sorted(mentions), "clarify": clarify, "entities": entities,
                "sentiment": sentiment, "dates": dates, "latest": latest,
            }
            want = {
                "relations": sorted((r["relation"], r["value"]) for r in row["relations"]) if row["clarify"] is None
                else sorted(r["relation"] for r in row["relations"]),
                "mentions": sorted(row["mentions"]), "clarify": row["clarify"], "entities": row["entities"],
                "sentiment": row["sentiment"], "dates": row["dates"], "latest": row["latest"],
            }
            wrong = [k for k in want if json.dumps(got[k]) != json.dumps(want[k])]
            results.append({"id": row["id"], "split": row["split"], "kind": row["kind"], "ms": round(elapsed, 2),
                            "exact": not wrong, "wrong": {k: {"got": got[k], "want": want[k]} for k in wrong},
                            "resolutions": resolutions})

    def summary(split: str) -> dict[str, Any]:
        rs = [r for r in results if r["split"] == split]
        return {"questions": len(rs), "exact": sum(r["exact"] for r in rs),
                "fraction": round(sum(r["exact"] for r in rs) / len(rs), 3) if rs else None}

    ms = sorted(r["ms"] for r in results)
    return {
        "command": " ".join(["bench/kg_devset.py", *sys.argv[1:]]),
        "today": info["today"],
        "dev": summary("dev"),
        "heldout": summary("heldout"),
        "latency_ms_per_question": {"median": statistics.median(ms), "p95": ms[int(0.95 * (len(ms) - 1))], "max": ms[-1],
                                    "note": "recognition + FalkorDB resolution, embedded server; "
                                    + ("with MiniLM embeddings of the question" if args.embed else "offline rules only")},
        "failures": [{k: r[k] for k in ("id", "split", "kind", "wrong")} for r in results if not r["exact"]],
        "results": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--url", default=None, help="external FalkorDB (redis://host:port); default: embedded")
    parser.add_argument("--label", action="store_true", help="rewrite the expected entity sets from the graph files")
    parser.add_argument("--embed", action="store_true", help="add the local MiniLM embeddings' similarity to the cues")
    args = parser.parse_args()
    link = load_graph_link(SAMPLE / "graph.json")
    if args.label:
        label(link)
        return
    report = score(args, link)
    print(json.dumps({k: report[k] for k in ("dev", "heldout", "latency_ms_per_question")}, indent=1))
    for f in report["failures"]:
        print(f"  FAIL {f['id']} ({f['split']}, {f['kind']}): {json.dumps(f['wrong'], ensure_ascii=False)}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
