"""Load test of the HTTP service: throughput, latency and correctness of POST /v1/answers under concurrency.

Usage: .venv/bin/python bench/load.py [--requests 200] [--concurrency 16] [--threads 40] [--json out.json]

Starts one server process (``python -m tests.service.fake_server``: the real service around the
scripted chat model, so the figures measure the service, the engine, Chroma and the checkpoints,
not a language model) in a fresh temporary data directory with the default service limits, except
those given by flags. Seeds a collection over HTTP, then sends the questions: each conversation
(``--threads`` of them) asks its turns one after another, different conversations run in parallel,
at most ``--concurrency`` requests in flight. Reports wall time, requests/second, latency
percentiles, status codes and outcomes, the server's own latency histogram, and then checks that
every conversation stored exactly the turns that were answered, in order.

Exits non-zero on any 5xx, any request that got no response, or any conversation that lost,
gained or reordered a turn.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

REPO = Path(__file__).resolve().parents[1]
COLLECTION = "bench-library"
GENRES = ["chronicle", "survey", "legend", "report", "memoir"]
SCHEMA = {
    "description": "Short notes about places and things",
    "attributes": [
        {"name": "genre", "type": "string", "allowed_values": GENRES},
        {"name": "year", "type": "integer"},
        {"name": "author", "type": "string"},
    ],
}
NOUNS = [
    "lighthouse", "glacier", "orchard", "violin", "harbor", "canyon", "monastery", "bridge", "windmill", "volcano",
    "library", "vineyard", "fortress", "meadow", "caravan", "telescope", "aqueduct", "lantern", "quarry", "observatory",
    "railway", "cathedral", "marsh", "carousel", "foundry", "ferry", "greenhouse", "mill", "tunnel", "archive",
    "reservoir", "chapel", "bazaar", "citadel", "pier", "sawmill", "granary", "beacon", "causeway", "amphitheater",
    "tannery", "brewery", "kiln", "dockyard", "apiary", "chandlery", "stable", "orangery", "belfry", "cistern",
]
PLACES = ["Aldmere", "Brackwater", "Corrin", "Dunhollow", "Eastmarch", "Fallowby", "Greywick", "Hollin", "Ivybridge"]
AUTHORS = ["Ada Quill", "Bram Oster", "Cora Venn", "Dov Lark", "Esme Tarrow", "Finn Moray"]
START_TIMEOUT_S = 180.0


@dataclass
class Record:
    thread_id: str
    turn: int
    question: str
    status: int | None
    """None: no response at all (connection error or client timeout)."""
    outcome: str
    seconds: float


def documents() -> list[dict[str, Any]]:
    """Fifty short notes, one per noun, with metadata for the schema."""
    return [
        {
            "id": f"note-{i:02d}",
            "text": f"The {noun} of {PLACES[i % len(PLACES)]} was restored by the guild. "
            f"Visitors still talk about the {noun} and its long history.",
            "metadata": {"genre": GENRES[i % len(GENRES)], "year": 1900 + 2 * i, "author": AUTHORS[i % len(AUTHORS)]},
        }
        for i, noun in enumerate(NOUNS)
    ]


def conversations(requests: int, threads: int) -> dict[str, list[str]]:
    """``requests`` questions spread over ``threads`` conversations; no two turns of one are alike."""
    plan: dict[str, list[str]] = {}
    for t in range(threads):
        turns = requests // threads + (1 if t < requests % threads else 0)
        nouns = [NOUNS[(t * 11 + k * 7) % len(NOUNS)] for k in range(turns)]
        plan[f"load-{t:03d}"] = [f"What is known about the {noun}?" for noun in nouns]
    return {thread_id: questions for thread_id, questions in plan.items() if questions}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, home: Path, limits: dict[str, str], models: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")}
    env.update(SELFRAG_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False", **limits)
    if models == "local":  # `selfrag serve` itself: SmolLM2 and MiniLM in the server process
        cmd = [str(Path(sys.executable).with_name("selfrag")), "serve", "--port", str(port), "--log-level", "warning"]
    else:
        cmd = [sys.executable, "-m", "tests.service.fake_server", "--port", str(port)]
    with (home / "server.log").open("wb") as log:
        return subprocess.Popen(cmd, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)


def wait_until_up(http: httpx.Client, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            if http.get("/healthz", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the server did not start (exit code {server.poll()})")
        time.sleep(0.1)


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def log_tail(home: Path, lines: int = 30) -> str:
    return "\n".join((home / "server.log").read_text(errors="replace").splitlines()[-lines:])


def seed(http: httpx.Client) -> None:
    reply = http.post("/v1/collections", json={"name": COLLECTION, "schema": SCHEMA})
    reply.raise_for_status()
    reply = http.post(f"/v1/collections/{COLLECTION}/documents", json={"documents": documents()})
    reply.raise_for_status()
    print(f"seeded {COLLECTION!r}: {reply.json()['added']} chunks from {len(reply.json()['documents'])} documents")


async def load(url: str, plan: dict[str, list[str]], concurrency: int) -> tuple[list[Record], float]:
    """Every conversation's turns in order, the conversations in parallel, ``concurrency`` requests at once."""
    records: list[Record] = []
    gate = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async def converse(http: httpx.AsyncClient, thread_id: str, questions: list[str]) -> None:
        for turn, question in enumerate(questions):
            body = {"question": question, "collection": COLLECTION, "thread_id": thread_id}
            async with gate:
                start = time.perf_counter()
                try:
                    reply = await http.post("/v1/answers", json=body)
                    status, outcome = reply.status_code, _outcome(reply)
                except httpx.HTTPError as exc:
                    status, outcome = None, f"no response: {type(exc).__name__}"
                seconds = time.perf_counter() - start
            records.append(Record(thread_id, turn, question, status, outcome, seconds))

    async with httpx.AsyncClient(base_url=url, timeout=300.0, limits=limits) as http:
        started = time.perf_counter()
        await asyncio.gather(*(converse(http, t, qs) for t, qs in plan.items()))
        return records, time.perf_counter() - started


def _outcome(reply: httpx.Response) -> str:
    """The run's outcome, or ``error:<code>`` from the error body."""
    try:
        data = reply.json()
        return str(data["outcome"]) if reply.status_code == 200 else f"error:{data['error']['code']}"
    except (ValueError, KeyError, TypeError):
        return f"error:unreadable {reply.status_code} body"


def verify_threads(http: httpx.Client, plan: dict[str, list[str]], records: list[Record]) -> list[str]:
    """Each conversation must hold exactly its answered turns, in the order they were asked."""
    answered = {(r.thread_id, r.turn) for r in records if r.status == 200}
    problems = []
    for thread_id, questions in plan.items():
        expected = [q for k, q in enumerate(questions) if (thread_id, k) in answered]
        reply = http.get(f"/v1/threads/{thread_id}")
        stored = [t["question"] for t in reply.json()["turns"]] if reply.status_code == 200 else []
        if stored != expected:
            problems.append(f"{thread_id}: expected {len(expected)} turns {expected}, stored {len(stored)} {stored}")
    return problems


def server_latency(http: httpx.Client) -> dict[str, dict[str, float]]:
    """Per route, from the server's ``selfrag_http_request_duration_seconds`` histogram: count, mean,
    and the bucket bounds that hold the median and the 95th percentile."""
    buckets: dict[str, list[tuple[float, float]]] = {}
    totals: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(http.get("/metrics").text):
        if family.name != "selfrag_http_request_duration_seconds":
            continue
        for s in family.samples:
            route = f"{s.labels['method']} {s.labels['route']}"
            if s.name.endswith("_bucket"):
                buckets.setdefault(route, []).append((float(s.labels["le"]), s.value))
            elif s.name.endswith(("_count", "_sum")):
                totals.setdefault(route, {})[s.name.rsplit("_", 1)[1]] = s.value
    summary = {}
    for route, t in totals.items():
        if t.get("count"):
            bounds = sorted(buckets[route])
            summary[route] = {
                "count": t["count"],
                "mean_ms": 1000 * t["sum"] / t["count"],
                "p50_le_ms": 1000 * next(le for le, n in bounds if n >= 0.50 * t["count"]),
                "p95_le_ms": 1000 * next(le for le, n in bounds if n >= 0.95 * t["count"]),
            }
    return summary


def percentiles(seconds: list[float]) -> dict[str, float]:
    # quantiles() needs two samples; with one, every percentile is that sample.
    cuts = statistics.quantiles(seconds, n=100, method="inclusive") if len(seconds) > 1 else seconds * 99
    return {"p50_ms": 1000 * cuts[49], "p95_ms": 1000 * cuts[94], "p99_ms": 1000 * cuts[98], "max_ms": 1000 * max(seconds)}


def summarise(
    args: argparse.Namespace,
    records: list[Record],
    wall: float,
    problems: list[str],
    server_side: dict[str, dict[str, float]],
) -> dict[str, Any]:
    """Print the report; return it as JSON-ready data with ``ok`` saying whether the run passed."""
    statuses = Counter("no response" if r.status is None else str(r.status) for r in records)
    outcomes = Counter(r.outcome for r in records)
    latency = percentiles([r.seconds for r in records])
    failed = sum(n for s, n in statuses.items() if s == "no response" or int(s) >= 500)
    print(f"\nwall {wall:.2f} s   {len(records) / wall:.1f} requests/s")
    print("latency  " + "   ".join(f"{k.removesuffix('_ms')} {v:.0f} ms" for k, v in latency.items()))
    print("status   " + "   ".join(f"{s}: {n}" for s, n in sorted(statuses.items())))
    print("outcomes " + "   ".join(f"{o}: {n}" for o, n in sorted(outcomes.items())))
    print("5xx / no response: " + (f"{failed}  <-- FAILED" if failed else "none"))
    for route, m in sorted(server_side.items()):
        print(f"server   {route:<40} n={m['count']:.0f}  mean {m['mean_ms']:.0f} ms  "
              f"p50 <= {m['p50_le_ms']:.0f} ms  p95 <= {m['p95_le_ms']:.0f} ms")
    if problems:
        print(f"threads: {len(problems)} of {len({r.thread_id for r in records})} do not hold their turns:")
        for problem in problems:
            print("  " + problem)
    else:
        print(f"threads: all {sum(1 for r in records if r.status == 200)} turns stored")
    return {
        "config": {k: v for k, v in vars(args).items() if k != "json"},
        "requests": len(records),
        "wall_s": wall,
        "requests_per_s": len(records) / wall,
        "latency_ms": latency,
        "status": dict(statuses),
        "outcomes": dict(outcomes),
        "server_latency": server_side,
        "thread_problems": problems,
        "ok": not failed and not problems,
        "records": [asdict(r) for r in records],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="questions in all (default 200)")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight at most (default 16)")
    parser.add_argument("--threads", type=int, default=40, help="conversations the questions are spread over (default 40)")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--max-concurrent-runs", type=int, help="server: runs at once (service default 4)")
    parser.add_argument("--max-queued-runs", type=int, help="server: runs waiting for a slot (service default 32)")
    parser.add_argument("--queue-timeout", type=float, help="server: seconds a run may wait for a slot (default 10)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this path")
    parser.add_argument("--models", choices=["scripted", "local"], default="scripted",
                        help="scripted (default): measures the service, not a model; local: `selfrag serve` with the "
                        "embedded SmolLM2/MiniLM (slow: use e.g. --requests 12 --concurrency 2 --threads 4)")
    args = parser.parse_args()
    if min(args.requests, args.concurrency, args.threads) < 1:
        parser.error("--requests, --concurrency and --threads must be at least 1")

    flags = {"MAX_CONCURRENT_RUNS": args.max_concurrent_runs, "MAX_QUEUED_RUNS": args.max_queued_runs,
             "QUEUE_TIMEOUT_S": args.queue_timeout}
    limits = {f"SELFRAG_SERVICE__{name}": str(value) for name, value in flags.items() if value is not None}
    described = " ".join(f"{name.lower()}={value}" for name, value in flags.items() if value is not None)
    port = args.port or free_port()
    url = f"http://127.0.0.1:{port}"
    plan = conversations(args.requests, args.threads)

    with tempfile.TemporaryDirectory(prefix="selfrag-load-") as tmp:
        home = Path(tmp)
        server = start_server(port, home, limits, args.models)
        try:
            with httpx.Client(base_url=url, timeout=300.0) as http:
                wait_until_up(http, server)
                seed(http)
                print(f"{args.requests} questions over {len(plan)} conversations, {args.concurrency} at once; "
                      f"server limits: {described or 'service defaults'}")
                records, wall = asyncio.run(load(url, plan, args.concurrency))
                problems = verify_threads(http, plan, records)
                server_side = server_latency(http)
        except BaseException:
            print(f"server log (tail):\n{log_tail(home)}")
            raise
        finally:
            stop_server(server)
        server_log = log_tail(home)

    results = summarise(args, records, wall, problems, server_side)
    if not results["ok"]:
        print(f"server log (tail):\n{server_log}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if results["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
