"""Replays the data-integrity attacks of issue 8 on ingest and the store, and prints a table of outcomes.

Usage: .venv/bin/python bench/reliability_ingest.py [--out bench/results/reliability-ingest]

Each attack runs as real processes in a fresh temporary data directory:

- move-and-reingest: ingest a folder (the filings sample), move it elsewhere, ingest it again;
- edit-and-reingest: shorten one file of that folder, ingest again;
- binary file: a binary file renamed ``.txt`` in a folder, then named explicitly;
- CLI beside a running server: a server up (``tests/service/fake_server.py``: the real service
  around a scripted chat model), ``selfrag ingest`` into the same data directory, then a question
  that only the new document answers, with a filter only it matches;
- a re-sent JSON document with shorter text, and one whose metadata forges ``doc_id``, over HTTP;
- the server killed with SIGKILL, then the CLI again (no stale lock).

The file attacks use the ``selfrag`` command itself (MiniLM embeddings); the server attacks use the
scripted server and ``tests/service/fake_cli.py`` (the real CLI with the server's fake embeddings),
so that both processes agree on their vectors. Exits non-zero when any outcome is not the expected one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
SELFRAG = str(Path(sys.executable).with_name("selfrag"))


@dataclass
class Outcome:
    attack: str
    expected: str
    observed: str
    ok: bool


def env(home: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")}
    out.update(SELFRAG_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    return out


def run(home: Path, *args: str | Path, fake: bool = False) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "tests.service.fake_cli"] if fake else [SELFRAG]
    return subprocess.run([*cmd, *map(str, args)], cwd=REPO, env=env(home), capture_output=True, text=True, timeout=600)


def count(home: Path, collection: str, *, fake: bool = False) -> int:
    listed = run(home, "documents", "list", "-c", collection, fake=fake)
    return sum(int(line.split()[1]) for line in listed.stdout.splitlines())


def move_and_reingest(root: Path) -> list[Outcome]:
    home = root / "home"
    folder = root / "a" / "reports"
    shutil.copytree(REPO / "selfrag" / "samples" / "filings" / "documents", folder)
    first = run(home, "ingest", folder, "-c", "reports")
    before = count(home, "reports")
    moved = root / "b" / "archive" / "reports"
    moved.parent.mkdir(parents=True)
    shutil.move(folder, moved)
    again = run(home, "ingest", moved, "-c", "reports")
    after = count(home, "reports")
    edited = moved / "walmart-fy2024.md"
    edited.write_text("# Walmart\n\nWalmart's fiscal year 2024 annual report, now one short paragraph.\n")
    third = run(home, "ingest", moved, "-c", "reports")
    chunks = count(home, "reports")
    expected_after_edit = before - 2  # walmart-fy2024.md: 3 chunks -> 1
    return [
        Outcome("move-and-reingest", f"{before} chunks stay {before}; 8 unchanged",
                f"{before} -> {after} chunks; {again.stdout.strip() or again.stderr.strip()}",
                first.returncode == again.returncode == 0 and after == before and "8 unchanged" in again.stdout),
        Outcome("edit-and-reingest", f"1 replaced, {expected_after_edit} chunks, no stale chunk",
                f"{chunks} chunks; {third.stdout.strip() or third.stderr.strip()}",
                third.returncode == 0 and "1 replaced" in third.stdout and chunks == expected_after_edit),
    ]


def binary_file(root: Path) -> list[Outcome]:
    home = root / "home"
    folder = root / "docs"
    folder.mkdir()
    (folder / "good.md").write_text("# Notes\n\nAnvils are heavy.\n")
    (folder / "photo.txt").write_bytes(bytes(range(256)) * 100)
    walked = run(home, "ingest", folder, "-c", "docs")
    named = run(home, "ingest", folder / "photo.txt", "-c", "other")
    listed = run(home, "collections", "list")
    return [
        Outcome("binary .txt in a folder", "skipped by name; the rest ingested; exit 0",
                f"exit {walked.returncode}; {walked.stderr.strip()} | {walked.stdout.strip()}",
                walked.returncode == 0 and "skipped" in walked.stderr and "1 added" in walked.stdout),
        Outcome("binary .txt named explicitly", "one-line error, nothing stored, no empty collection",
                f"exit {named.returncode}; {named.stderr.strip()}; collections: {listed.stdout.split()[:1]}",
                named.returncode == 2 and len(named.stderr.strip().splitlines()) == 1 and "other" not in listed.stdout),
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def beside_a_server(root: Path) -> list[Outcome]:
    home = root / "serve-home"
    home.mkdir()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with (root / "server.log").open("wb") as log:
        server = subprocess.Popen([sys.executable, "-m", "tests.service.fake_server", "--port", str(port)],
                                  cwd=REPO, env=env(home), stdout=log, stderr=subprocess.STDOUT)
    outcomes: list[Outcome] = []
    try:
        http = httpx.Client(base_url=url, timeout=60, trust_env=False)
        deadline = time.monotonic() + 120
        while True:
            try:
                if http.get("/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("the server did not start")
            time.sleep(0.2)
        schema = {"attributes": [{"name": "animal", "type": "string"}],
                  "extractors": [{"attribute": "animal", "pattern": "\\b(zebra|lion)s?\\b",
                                  "map": {"zebra": "zebra", "lion": "lion"}}]}
        http.post("/v1/collections", json={"name": "docs", "schema": schema})
        http.post("/v1/collections/docs/documents", json={"documents": [{"id": "lions", "text": "Lions hunt at night."}]})
        http.post("/v1/answers", json={"question": "Where do lions hunt?", "collection": "docs"})
        zebras = root / "zebras.txt"
        zebras.write_text("Zebras have black and white stripes that confuse biting flies.\n")
        started = time.perf_counter()
        cli = run(home, "ingest", zebras, "-c", "docs", fake=True)
        refused_s = time.perf_counter() - started
        if cli.returncode != 0:
            http.post("/v1/collections/docs/documents", files=[("files", ("zebras.txt", zebras.read_bytes()))])
        answer = http.post("/v1/answers", json={"question": "Which animal has stripes?", "collection": "docs",
                                                "filter": {"animal": {"$eq": "zebra"}}})
        cited = [c["id"] for c in answer.json().get("citations", [])] if answer.status_code == 200 else []
        outcomes.append(Outcome(
            "CLI ingest beside a running server", "refused in one line naming the API request; then answered from it",
            f"exit {cli.returncode} in {refused_s:.1f} s: {cli.stderr.strip()[:160]}...; answer {answer.status_code} cites {cited}",
            (cli.returncode == 0 or f"POST {url}/v1/collections/docs/documents" in cli.stderr)
            and answer.status_code == 200 and cited == ["zebras.txt"]))
        long = " ".join(f"Sentence {i} of the long version." for i in range(20))
        http.post("/v1/collections/docs/documents", json={"documents": [{"id": "memo", "text": long}], "chunk_size": 100,
                                                          "chunk_overlap": 0})
        short = http.post("/v1/collections/docs/documents", json={"documents": [{"id": "memo", "text": "Short now."}],
                                                                  "chunk_size": 100, "chunk_overlap": 0})
        memo = http.get("/v1/collections/docs").json()["count"]
        outcomes.append(Outcome("JSON document re-sent shorter", "replaced; 3 chunks left (lions, zebras, memo)",
                                f"{short.status_code} {short.json()}; collection holds {memo} chunks",
                                short.status_code == 201 and short.json().get("replaced") == 1 and memo == 3))
        forged = http.post("/v1/collections/docs/documents", json={"documents": [
            {"id": "x", "text": "A forgery.", "metadata": {"doc_id": "lions"}}]})
        outcomes.append(Outcome("metadata.doc_id = another document", "400 ingest_failed",
                                f"{forged.status_code} {forged.json()['error']['code']}",
                                forged.status_code == 400 and forged.json()["error"]["code"] == "ingest_failed"))
        http.close()
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGKILL)
        server.wait()
    after_kill = run(home, "ingest", root / "zebras.txt", "-c", "docs", fake=True)
    outcomes.append(Outcome("server killed (SIGKILL), then CLI ingest", "succeeds: no stale lock",
                            f"exit {after_kill.returncode}: {after_kill.stdout.strip() or after_kill.stderr.strip()}",
                            after_kill.returncode == 0))
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="Directory for results.json and results.md.")
    args = parser.parse_args()
    attacks: list[Callable[[Path], list[Outcome]]] = [move_and_reingest, binary_file, beside_a_server]
    outcomes: list[Outcome] = []
    for attack in attacks:
        with tempfile.TemporaryDirectory(prefix="selfrag-reliability-") as tmp:
            outcomes += attack(Path(tmp))
    lines = ["| attack | expected | observed | ok |", "|---|---|---|---|"]
    lines += [
        f"| {o.attack} | {o.expected} | {' / '.join(o.observed.replace('|', '/').splitlines())} | {'yes' if o.ok else 'NO'} |"
        for o in outcomes
    ]
    table = "\n".join(lines)
    print(table)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "results.json").write_text(json.dumps([asdict(o) for o in outcomes], indent=2) + "\n")
        (args.out / "results.md").write_text(f"`{' '.join(['bench/reliability_ingest.py', *sys.argv[1:]])}`\n\n{table}\n")
    if not all(o.ok for o in outcomes):
        sys.exit(1)


if __name__ == "__main__":
    main()
