"""Replays the data-integrity and hostile-input attacks of issue 8 and prints a table of outcomes.

Usage: .venv/bin/python bench/reliability.py [--json bench/results/reliability/after.json] [--only NAME ...]

Each scenario runs in its own temporary data directory against real processes (the HTTP service
around the scripted chat model for the HTTP attacks, ``selfrag serve`` with the embedded models
beside a CLI ``selfrag ingest`` for the multi-process one, the ``selfrag`` CLI otherwise) and
reports what a user would see: status codes, exit codes, the first line printed, times, and the
chunks stored. A scenario *holds* when the engine kept its promise (refused clearly, or did the
right thing); the script exits non-zero when any does not.

Scenarios:
  regex_http        a schema extractor ``(a+)+$`` and a 29-character document over HTTP, while
                    another collection's question and /healthz are timed
  regex_cli         the same pattern over 40,000 characters through ``selfrag ingest``
  thread_turns      20 concurrent answers on one thread_id: turns stored vs 409s
  edit_http         a JSON document re-sent with shorter text: stale chunks must go
  move_cli          a folder ingested, moved, ingested again: the chunk count must not change
  edit_cli          a file edited shorter and ingested again: its old chunks must go
  cli_beside_serve  ``selfrag ingest`` into the data directory of a running ``selfrag serve``
  binary_cli        random bytes renamed .txt beside a good file
  forged_doc_id     metadata.doc_id naming another document over HTTP, then deleting the forger
  kill_then_ingest  selfrag serve killed with SIGKILL, then selfrag ingest (no stale lock)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import free_port, start_server, stop_server, wait_until_up  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SELFRAG = str(Path(sys.executable).with_name("selfrag"))
CLI_TIMEOUT_S = 120.0
HANG_S = 10.0
"""A request or command still running after this long counts as hung (and is abandoned)."""


@dataclass
class Outcome:
    scenario: str
    attack: str
    observed: str
    holds: bool
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")}
    env.update(SELFRAG_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    return env


def cli(home: Path, *args: str, timeout: float = CLI_TIMEOUT_S) -> tuple[int | None, str, str, float]:
    """(exit code or None when it hung, stdout, stderr, seconds)."""
    start = time.perf_counter()
    try:
        done = subprocess.run([SELFRAG, *args], env=env_for(home), cwd=home, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return None, out, "", time.perf_counter() - start
    return done.returncode, done.stdout, done.stderr, time.perf_counter() - start


def first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0][:160] if lines else ""


def store_counts(home: Path, collection: str) -> dict[str, int] | None:
    """Chunks per ``source`` in a collection, read in a separate process (None: no such collection)."""
    code = (
        "import collections, json, sys\n"
        "from selfrag.settings import load_settings\n"
        "from workflows.factory import open_store\n"
        "from selfrag.errors import SelfRagError\n"
        "try:\n"
        "    store = open_store(load_settings())\n"
        f"    coll = store.get_collection({collection!r})\n"
        "except SelfRagError:\n"
        "    print('null'); sys.exit(0)\n"
        "got = coll._chroma.get(include=['metadatas'])\n"
        "print(json.dumps(collections.Counter(str((m or {}).get('source')) for m in got['metadatas'])))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env_for(home), capture_output=True, text=True,
                          timeout=CLI_TIMEOUT_S, cwd=REPO)
    if done.returncode != 0:
        return {"<unreadable>": -1}
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return None if data is None else {str(k): int(v) for k, v in data.items()}


class Server:
    """A service process in ``home`` (scripted: the HTTP service around the scripted chat model)."""

    def __init__(self, home: Path, models: str = "scripted") -> None:
        self.home, self.port = home, free_port()
        self.proc = start_server(self.port, home, {}, models)
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=HANG_S)
        wait_until_up(self.http, self.proc)

    def close(self) -> None:
        self.http.close()
        stop_server(self.proc)


# -- HTTP scenarios (scripted chat model) --------------------------------------------------------

NOTES = [
    {"id": f"note-{i}", "text": f"The {w} of Aldmere was restored in {1900 + i}. People still visit the {w}.",
     "metadata": {"year": 1900 + i}}
    for i, w in enumerate(["lighthouse", "orchard", "violin", "harbor", "canyon", "bridge", "windmill", "library"])
]


def regex_http(tmp: Path) -> Outcome:
    server = Server(tmp)
    try:
        server.http.post("/v1/collections", json={"name": "calm", "schema": {"attributes": [{"name": "year", "type": "integer"}]}})
        server.http.post("/v1/collections/calm/documents", json={"documents": NOTES})
        schema = {"attributes": [{"name": "tag", "type": "string"}],
                  "extractors": [{"attribute": "tag", "pattern": "(a+)+$"}]}
        created = server.http.post("/v1/collections", json={"name": "evil", "schema": schema})
        details: dict[str, Any] = {"create_status": created.status_code}
        if created.status_code != 201 and created.status_code != 200:
            code = created.json().get("error", {}).get("code")
            return Outcome("regex_http", "extractor (a+)+$ over HTTP", f"schema refused: {created.status_code} {code}",
                           created.status_code == 400, 0.0, details)
        probe: dict[str, list[float]] = {"healthz": [], "other_answer": []}
        stop = threading.Event()

        def poke() -> None:
            with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=HANG_S) as http:
                while not stop.is_set():
                    for name, call in (("healthz", lambda: http.get("/healthz")),
                                       ("other_answer", lambda: http.post("/v1/answers", json={
                                           "question": "When was the lighthouse restored?", "collection": "calm"}))):
                        t0 = time.perf_counter()
                        try:
                            call()
                            probe[name].append(time.perf_counter() - t0)
                        except httpx.HTTPError:
                            probe[name].append(HANG_S)

        poker = threading.Thread(target=poke, daemon=True)
        poker.start()
        time.sleep(0.5)
        start = time.perf_counter()
        try:
            reply = server.http.post("/v1/collections/evil/documents",
                                     json={"documents": [{"id": "x", "text": "a" * 28 + "!"}]})
            status = f"{reply.status_code} {reply.json().get('error', {}).get('code', 'ok')}"
        except httpx.HTTPError:
            status = f"no response within {HANG_S:.0f} s"
        ingest_s = time.perf_counter() - start
        time.sleep(0.5)
        stop.set()
        poker.join(HANG_S + 1)
        worst = {k: round(max(v), 3) if v else None for k, v in probe.items()}
        details.update(ingest=status, ingest_s=round(ingest_s, 3), worst_s=worst, probes={k: len(v) for k, v in probe.items()})
        responsive = all(v is not None and v < 1.0 for v in worst.values())
        holds = ingest_s < 1.0 and responsive
        return Outcome("regex_http", "extractor (a+)+$ on a 29-character document over HTTP",
                       f"ingest {status} in {ingest_s:.2f} s; worst /healthz {worst['healthz']} s, "
                       f"other answer {worst['other_answer']} s", holds, ingest_s, details)
    finally:
        server.close()


def thread_turns(tmp: Path) -> Outcome:
    server = Server(tmp)
    try:
        server.http.post("/v1/collections", json={"name": "notes", "schema": {"attributes": [{"name": "year", "type": "integer"}]}})
        server.http.post("/v1/collections/notes/documents", json={"documents": NOTES})
        words = ["lighthouse", "orchard", "violin", "harbor", "canyon", "bridge", "windmill", "library"]
        questions = [f"What about the {words[i % len(words)]} (question {i})?" for i in range(20)]

        async def ask_all() -> list[int | None]:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", timeout=120.0) as http:
                async def one(q: str) -> int | None:
                    try:
                        return (await http.post("/v1/answers", json={"question": q, "collection": "notes", "thread_id": "busy"})).status_code
                    except httpx.HTTPError:
                        return None
                return list(await asyncio.gather(*(one(q) for q in questions)))

        start = time.perf_counter()
        statuses = asyncio.run(ask_all())
        seconds = time.perf_counter() - start
        thread = server.http.get("/v1/threads/busy")
        stored = [t["question"] for t in thread.json().get("turns", [])] if thread.status_code == 200 else []
        answered = [q for q, s in zip(questions, statuses, strict=True) if s == 200]
        refused = sum(1 for s in statuses if s == 409)
        lost = sorted(set(answered) - set(stored))
        counts = Counter("none" if s is None else str(s) for s in statuses)
        holds = not lost and len(stored) == len(answered) and all(s in (200, 409) for s in statuses)
        return Outcome("thread_turns", "20 concurrent answers on one thread_id",
                       f"status {dict(sorted(counts.items()))}; {len(stored)} turns stored, {refused} refused 409, "
                       f"{len(lost)} answered but lost", holds, seconds,
                       {"statuses": dict(counts), "stored": len(stored), "lost": len(lost), "refused_409": refused})
    finally:
        server.close()


def edit_http(tmp: Path) -> Outcome:
    server = Server(tmp)
    try:
        server.http.post("/v1/collections", json={"name": "edits", "schema": {"attributes": []}})
        long_text = " ".join(f"Paragraph {i} talks about the orchard and its {i} apple trees." for i in range(120))
        first = server.http.post("/v1/collections/edits/documents", json={"documents": [{"id": "doc", "text": long_text}]}).json()
        short_text = "The orchard was sold in 2020."
        start = time.perf_counter()
        second = server.http.post("/v1/collections/edits/documents", json={"documents": [{"id": "doc", "text": short_text}]}).json()
        seconds = time.perf_counter() - start
        count = server.http.get("/v1/collections/edits").json().get("count")
        holds = count == second.get("chunks")
        return Outcome("edit_http", "a JSON document re-sent with shorter text",
                       f"{first.get('chunks')} chunks, then {second.get('chunks')}: collection holds {count}; "
                       f"reply {json.dumps({k: v for k, v in second.items() if k not in ('documents', 'collection')})}",
                       holds, seconds, {"first": first, "second": second, "count": count})
    finally:
        server.close()


# -- CLI scenarios (embedded MiniLM) --------------------------------------------------------------

def _write_folder(folder: Path, n: int) -> None:
    folder.mkdir(parents=True)
    rng = random.Random(7)
    topics = ["granary", "beacon", "causeway", "amphitheater", "tannery", "brewery", "kiln", "dockyard", "apiary"]
    for i in range(n):
        body = " ".join(f"The {rng.choice(topics)} of town {i} opened in {1800 + rng.randrange(200)}." for _ in range(60))
        (folder / f"note-{i:02d}.md").write_text(f"# Note {i}\n\n{body}\n")


def move_cli(tmp: Path) -> Outcome:
    _write_folder(tmp / "docs" / "notes", 12)
    code1, out1, err1, _ = cli(tmp, "ingest", str(tmp / "docs" / "notes"), "--collection", "notes")
    before = store_counts(tmp, "notes") or {}
    shutil.move(str(tmp / "docs"), str(tmp / "moved"))
    code2, out2, err2, seconds = cli(tmp, "ingest", str(tmp / "moved" / "notes"), "--collection", "notes")
    after = store_counts(tmp, "notes") or {}
    n1, n2 = sum(before.values()), sum(after.values())
    absolute = any(src.startswith("/") for src in after)
    holds = code1 == 0 and code2 == 0 and n1 == n2 and n1 > 0 and not absolute
    return Outcome("move_cli", "a folder ingested, moved, ingested again",
                   f"{n1} chunks, then {n2}; second ingest said {first_line(out2 or err2)!r}"
                   + ("; sources are absolute paths" if absolute else ""), holds, seconds,
                   {"first": first_line(out1 or err1), "second": first_line(out2 or err2), "sources": sorted(after)[:3]})


def edit_cli(tmp: Path) -> Outcome:
    _write_folder(tmp / "notes", 4)
    code1, out1, err1, _ = cli(tmp, "ingest", str(tmp / "notes"), "--collection", "notes")
    before = store_counts(tmp, "notes") or {}
    (tmp / "notes" / "note-01.md").write_text("# Note 1\n\nThe kiln of town 1 closed in 1990.\n")
    code2, out2, err2, seconds = cli(tmp, "ingest", str(tmp / "notes"), "--collection", "notes")
    after = store_counts(tmp, "notes") or {}
    edited = {k: v for k, v in after.items() if k.endswith("note-01.md")}
    holds = code2 == 0 and sum(edited.values()) == 1 and sum(after.values()) == sum(before.values()) - sum(
        v for k, v in before.items() if k.endswith("note-01.md")) + 1
    return Outcome("edit_cli", "a file edited shorter, ingested again",
                   f"{sum(before.values())} chunks, then {sum(after.values())}; the edited file holds "
                   f"{sum(edited.values())} (expected 1); ingest said {first_line(out2 or err2)!r}", holds, seconds,
                   {"edited_chunks": edited, "second": first_line(out2 or err2)})


def binary_cli(tmp: Path) -> Outcome:
    folder = tmp / "mixed"
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n\nThe lighthouse of Aldmere was restored in 1903.\n")
    (folder / "photo.txt").write_bytes(random.Random(3).randbytes(40_000))
    code, out, err, seconds = cli(tmp, "ingest", str(folder), "--collection", "mixed")
    counts = store_counts(tmp, "mixed") or {}
    garbage = sum(v for k, v in counts.items() if k.endswith("photo.txt"))
    good = sum(v for k, v in counts.items() if k.endswith("good.md"))
    told = "photo.txt" in (out + err)
    holds = garbage == 0 and good > 0 and told and "Traceback" not in err
    return Outcome("binary_cli", "random bytes renamed .txt beside a good file",
                   f"exit {code}; {garbage} garbage chunks stored, {good} good; output {first_line(out + err)!r}",
                   holds, seconds, {"exit": code, "stdout": out[-400:], "stderr": err[-400:]})


def regex_cli(tmp: Path) -> Outcome:
    """The extraction itself must take under a second; the command around it (imports, embedding
    the 40,000 characters) must finish rather than hang."""
    schema = {"attributes": [{"name": "tag", "type": "string"}], "extractors": [{"attribute": "tag", "pattern": "(a+)+$"}]}
    (tmp / "schema.json").write_text(json.dumps(schema))
    (tmp / "big.txt").write_text("a" * 40_000 + "!")
    probe = (
        "import json, sys, time\n"
        "from selfrag.ingest.extract import MetadataExtractor\n"
        "from selfrag.schema import load_schema_file\n"
        "extract = MetadataExtractor(load_schema_file(sys.argv[1]))\n"
        "text = open(sys.argv[2]).read()\n"
        "t0 = time.perf_counter(); found = extract(text)\n"
        "print(json.dumps({'seconds': time.perf_counter() - t0, 'found': found}))\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", probe, str(tmp / "schema.json"), str(tmp / "big.txt")],
                              env=env_for(tmp), capture_output=True, text=True, timeout=HANG_S, cwd=REPO)
        extract_s = json.loads(done.stdout.strip().splitlines()[-1])["seconds"] if done.returncode == 0 else None
        extract_said = first_line(done.stderr) if done.returncode != 0 else ""
    except subprocess.TimeoutExpired:
        extract_s, extract_said = None, f"extraction still running after {HANG_S:.0f} s (killed)"
    code, out, err, seconds = cli(tmp, "ingest", str(tmp / "big.txt"), "--collection", "evil", "--schema",
                                  str(tmp / "schema.json"), timeout=CLI_TIMEOUT_S)
    startup = _cli_startup_s(tmp)
    cli_said = (f"still running after {CLI_TIMEOUT_S:.0f} s (killed)" if code is None
                else f"exit {code} in {seconds:.1f} s (a bare `selfrag --help` takes {startup:.1f} s here): "
                f"{first_line(out if code == 0 else err)!r}")
    extraction = f"extraction {extract_s * 1000:.2f} ms" if extract_s is not None else (extract_said or "extraction failed")
    holds = extract_s is not None and extract_s < 1.0 and code is not None and "Traceback" not in err
    return Outcome("regex_cli", "extractor (a+)+$ over 40,000 characters via selfrag ingest",
                   f"{extraction}; CLI {cli_said}", holds, seconds,
                   {"exit": code, "extract_s": extract_s, "cli_s": round(seconds, 2), "startup_s": round(startup, 2)})


_STARTUP: dict[str, float] = {}


def _cli_startup_s(tmp: Path) -> float:
    """What a trivial ``selfrag`` command costs here (imports), for context beside the CLI's time."""
    if "s" not in _STARTUP:
        _, _, _, _STARTUP["s"] = cli(tmp, "--help")
    return _STARTUP["s"]


def cli_beside_serve(tmp: Path) -> Outcome:
    cli(tmp, "ingest", "--sample", "movies")
    server = Server(tmp, models="local")
    http = httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=180.0)
    try:
        # The server must have loaded the collection's index before the other process writes.
        warm = http.post("/v1/answers", json={"question": "Which movie has dinosaurs?", "collection": "movies",
                                              "max_rewrites": 0, "max_generations": 1})
        (tmp / "new").mkdir()
        (tmp / "new" / "zorblax.jsonl").write_text(json.dumps({
            "text": "Zorblax is an animated film about a lighthouse keeper who befriends a glacier.",
            "metadata": {"title": "Zorblax", "year": 2031, "genre": "animated"}}) + "\n")
        code, out, err, seconds = cli(tmp, "ingest", str(tmp / "new"), "--collection", "movies")
        said = first_line(out if code == 0 else err)
        if code != 0:  # refused: take the way out it names, the server's API
            upload = (tmp / "new" / "zorblax.jsonl").read_bytes()
            uploaded = http.post("/v1/collections/movies/documents", files=[("files", ("zorblax.jsonl", upload))])
            said += f" -> API upload {uploaded.status_code}"
        probes = {
            "topic": {"question": "Which film is about a lighthouse keeper and a glacier?", "collection": "movies"},
            "filter_only_new": {"question": "Which film is about a lighthouse keeper?", "collection": "movies",
                                "filter": {"year": {"$eq": 2031}}},
        }
        replies = {}
        for name, body in probes.items():
            reply = http.post("/v1/answers", json={**body, "max_rewrites": 0, "max_generations": 1,
                                                   "include_trace": True})
            data = reply.json()
            # Whether the server *sees* the new document is the question here, not whether the tiny
            # model then answers well: look at what retrieval returned.
            retrieved = (data.get("trace") or {}).get("documents", [])
            seen = any("zorblax" in json.dumps(d).lower() for d in retrieved)
            replies[name] = {"status": reply.status_code, "cited_new": seen, "outcome": data.get("outcome"),
                             "code": data.get("error", {}).get("code") if reply.status_code != 200 else None}
        described = "; ".join(f"{k}: {v['status']}" + (f" {v['code']}" if v["code"] else f", new retrieved {v['cited_new']}")
                              for k, v in replies.items())
        one_line = len([ln for ln in err.splitlines() if ln.strip()]) == 1 and "Traceback" not in err
        answered_from_new = all(r["status"] == 200 and r["cited_new"] for r in replies.values())
        if code == 0:
            holds = answered_from_new
            observed = f"CLI ingest exit 0 ({said!r}); server {described}"
        else:
            holds = one_line and answered_from_new
            observed = f"CLI refused (exit {code}): {said!r}; sent through the API instead, server {described}"
        return Outcome("cli_beside_serve", "selfrag ingest beside a running selfrag serve (embedded store)",
                       observed, holds, seconds, {"exit": code, "stderr": err[-400:], "warm": warm.status_code,
                                                  "replies": replies})
    finally:
        http.close()
        server.close()


def forged_doc_id(tmp: Path) -> Outcome:
    server = Server(tmp)
    try:
        server.http.post("/v1/collections", json={"name": "docs", "schema": {"attributes": []}})
        server.http.post("/v1/collections/docs/documents", json={"documents": [{"id": "victim", "text": "Lions hunt."}]})
        start = time.perf_counter()
        forged = server.http.post("/v1/collections/docs/documents", json={
            "documents": [{"id": "x", "text": "A forgery.", "metadata": {"doc_id": "victim"}}]})
        seconds = time.perf_counter() - start
        code = forged.json().get("error", {}).get("code") if forged.status_code != 201 else None
        deleted = server.http.delete("/v1/collections/docs/documents/x")
        left = server.http.get("/v1/collections/docs").json().get("count")
        holds = forged.status_code == 400 and left == 1
        return Outcome("forged_doc_id", "metadata.doc_id naming another document, then deleting the forger",
                       f"{forged.status_code} {code or 'stored'}; delete x -> {deleted.status_code}; victim's chunks "
                       f"left: {left}", holds, seconds)
    finally:
        server.close()


def kill_then_ingest(tmp: Path) -> Outcome:
    """A server killed with SIGKILL must not leave the data directory locked."""
    server = Server(tmp)
    server.http.post("/v1/collections", json={"name": "docs", "schema": {"attributes": []}})
    server.proc.kill()
    server.proc.wait()
    server.http.close()
    (tmp / "more.md").write_text("# More\n\nThe orchard was planted in 1921.\n")
    code, out, err, seconds = cli(tmp, "ingest", str(tmp / "more.md"), "--collection", "after-kill")
    return Outcome("kill_then_ingest", "selfrag serve killed with SIGKILL, then selfrag ingest",
                   f"exit {code}: {first_line(out if code == 0 else err)!r}", code == 0, seconds)


SCENARIOS: dict[str, Callable[[Path], Outcome]] = {
    "regex_http": regex_http, "regex_cli": regex_cli, "thread_turns": thread_turns, "edit_http": edit_http,
    "move_cli": move_cli, "edit_cli": edit_cli, "cli_beside_serve": cli_beside_serve, "binary_cli": binary_cli,
    "forged_doc_id": forged_doc_id, "kill_then_ingest": kill_then_ingest,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the outcomes as JSON to this path")
    parser.add_argument("--only", nargs="*", choices=sorted(SCENARIOS), help="run only these scenarios")
    args = parser.parse_args()
    outcomes = []
    for name in args.only or list(SCENARIOS):
        with tempfile.TemporaryDirectory(prefix=f"selfrag-rel-{name}-") as tmp:
            try:
                outcome = SCENARIOS[name](Path(tmp))
            except Exception as exc:  # noqa: BLE001 - a scenario that breaks the harness is itself an outcome
                outcome = Outcome(name, name, f"harness error: {type(exc).__name__}: {exc}"[:200], False, 0.0)
        outcomes.append(outcome)
        print(f"{'holds' if outcome.holds else 'FAILS':<6} {name:<17} {outcome.observed}", flush=True)
    print("\n| scenario | attack | observed | holds |\n|---|---|---|---|")
    for o in outcomes:
        print(f"| {o.scenario} | {o.attack} | {o.observed.replace('|', '/')} | {'yes' if o.holds else '**no**'} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
        args.json.write_text(json.dumps({"commit": commit, "outcomes": [asdict(o) for o in outcomes]}, indent=2))
    return 0 if all(o.holds for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
