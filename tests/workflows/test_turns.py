"""Turns of one thread run one at a time: concurrent turns are all stored, or refused, never lost.

A turn reads the thread's last checkpoint and writes the next with its turn appended; two turns
at once used to start from the same history, and the later write silently dropped the earlier
turn (10 concurrent answers on one thread stored 3).
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from selfrag.settings import Settings
from tests.workflows.conftest import grade
from workflows import RunOptions

REPO = Path(__file__).resolve().parents[2]


def slow_happy(delay_s: float = 0.02, started: threading.Event | None = None, release: threading.Event | None = None) -> dict[str, Any]:
    """Every turn answers; generation takes a while (or waits for ``release``), so turns overlap."""

    def generate(messages: list[Any]) -> str:
        if started is not None:
            started.set()
        if release is not None:
            release.wait(30)
        time.sleep(delay_s)
        return "An answer [1]."

    return {
        "RelevanceGrade": grade("relevant"),
        "generate": generate,
        "condense": lambda messages: "Which toys come alive?",
        "GroundednessGrade": grade("grounded"),
        "UsefulnessGrade": grade("useful"),
    }


def _saver(path: Path) -> SqliteSaver:
    return SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))


def held_engine(make_engine: Any, tmp_path: Path) -> tuple[Any, Any, threading.Event, threading.Event]:
    """An engine on a SQLite checkpoint whose generation signals ``started`` and waits for ``release``."""
    started, release = threading.Event(), threading.Event()
    engine, model, _ = make_engine(slow_happy(0.0, started, release), checkpointer=_saver(tmp_path / "cp.sqlite"))
    return engine, model, started, release


def test_concurrent_turns_on_one_thread_are_all_stored(make_engine: Any, tmp_path: Path) -> None:
    engine, _, _ = make_engine(slow_happy(), checkpointer=_saver(tmp_path / "cp.sqlite"))
    questions = [f"Which toys come alive, take {n}?" for n in range(10)]
    with ThreadPoolExecutor(max_workers=len(questions)) as pool:
        results = list(pool.map(lambda q: engine.run(q, collection="movies", thread_id="t"), questions))
    assert len(results) == len(questions)
    stored = [t["question"] for t in engine.history("t")]
    assert sorted(stored) == sorted(questions)


def test_a_turn_that_waits_too_long_is_refused_and_runs_nothing(make_engine: Any, tmp_path: Path) -> None:
    from selfrag.errors import ThreadBusy

    engine, model, started, release = held_engine(make_engine, tmp_path)
    with ThreadPoolExecutor(max_workers=1) as pool:
        first = pool.submit(engine.run, "Which toys come alive?", collection="movies", thread_id="t")
        assert started.wait(30)
        calls = len(model.calls)
        with pytest.raises(ThreadBusy) as busy:
            engine.run("And which of them leads?", collection="movies", thread_id="t", options=RunOptions(turn_wait_s=0.1))
        assert busy.value.code == "thread_busy" and "0.1 s" in busy.value.message
        assert len(model.calls) == calls  # the refused turn made no model call
        other = engine.run("Which toys come alive?", collection="movies", thread_id="other", options=RunOptions(turn_wait_s=0.1))
        assert other.answer  # another thread is not held up
        release.set()
        first.result(timeout=30)
    assert [t["question"] for t in engine.history("t")] == ["Which toys come alive?"]


def test_forgetting_a_thread_waits_for_its_running_turn(make_engine: Any, tmp_path: Path) -> None:
    engine, _, started, release = held_engine(make_engine, tmp_path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        turn = pool.submit(engine.run, "Which toys come alive?", collection="movies", thread_id="t")
        assert started.wait(30)
        forget = pool.submit(engine.forget, "t")
        time.sleep(0.2)
        assert not forget.done()  # it waits for the turn ...
        release.set()
        turn.result(timeout=30)
        forget.result(timeout=30)
    assert engine.history("t") == []  # ... so the finished turn does not bring the thread back


def test_turns_of_one_thread_on_two_postgres_instances_are_all_stored(
    make_engine: Any, postgres_url: str, tmp_path: Path
) -> None:
    """Two engines, as two service instances: one Postgres for checkpoints and for turn locks."""
    from tests.pg import create_database
    from workflows.checkpoints import close_checkpointer, open_checkpointer, turn_locks

    url = create_database(postgres_url, f"test_{uuid.uuid4().hex[:12]}")
    settings = Settings(home=tmp_path / "home", checkpoints={"url": url, "pool_size": 4})
    savers = [open_checkpointer(settings), open_checkpointer(settings)]
    try:
        engines = [make_engine(slow_happy(), checkpointer=s, turn_locks=turn_locks(settings))[0] for s in savers]
        questions = [f"Which toys come alive, take {n}?" for n in range(8)]
        with ThreadPoolExecutor(max_workers=len(questions)) as pool:
            list(pool.map(lambda n: engines[n % 2].run(questions[n], collection="movies", thread_id="t"), range(len(questions))))
        stored = [t["question"] for t in engines[0].history("t")]
        assert sorted(stored) == sorted(questions)
    finally:
        for saver in savers:
            close_checkpointer(saver)


# Two `selfrag ask --thread` processes with the embedded defaults (SQLite checkpoints): each runs
# the real CLI with scripted providers patched in, as tests/cli/conftest.py does in-process.
_CLI_ASKER = """
import sys
import selfrag.providers
import workflows.factory
from selfrag.testing import HashEmbeddings, ScriptedChatModel
from tests.service.fake_server import lexical_rules

rules = lexical_rules()
workflows.factory.make_chat_model = lambda llm: ScriptedChatModel.from_rules(rules)
workflows.factory.make_embeddings = selfrag.providers.make_embeddings = lambda emb: HashEmbeddings()
from selfrag.cli import app

tag, turns = sys.argv[1], int(sys.argv[2])
for n in range(turns):
    # standalone_mode=False returns a failed command's exit code instead of exiting. A refused turn
    # is reported right after the CLI's own error line, so the test can tell why it was refused.
    code = app(["ask", f"Which toys come alive? SLOW:0.1 {tag}{n}", "-c", "movies", "--thread", "shared"],
               standalone_mode=False)
    if code:
        print(f"REFUSED {tag}{n}", file=sys.stderr, flush=True)
"""


def test_two_cli_processes_on_one_thread_lose_no_turn(tmp_path: Path) -> None:
    from selfrag.schema import CollectionSchema
    from selfrag.store import Chunk, Store
    from selfrag.testing import HashEmbeddings
    from workflows.checkpoints import close_checkpointer, open_checkpointer

    home = tmp_path / "home"
    settings = Settings(home=home)
    with Store.from_settings(settings, HashEmbeddings()) as store:
        store.create_collection("movies", CollectionSchema()).add(
            [Chunk("toys", "Toys come alive and have a blast doing so.", {})]
        )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")} | {
        "SELFRAG_HOME": str(home), "SELFRAG_WORKFLOW__SELF_QUERY_MODE": "rules", "PYTHONPATH": str(REPO),
    }
    turns = 4
    askers = [
        subprocess.Popen([sys.executable, "-c", _CLI_ASKER, tag, str(turns)], cwd=REPO, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for tag in ("a", "b")
    ]
    refused: dict[str, str] = {}
    for asker in askers:
        _, err = asker.communicate(timeout=300)
        assert asker.returncode == 0, err[-2000:]
        codes = re.findall(r"error\[(\w+)\]", err)
        for n, turn in enumerate(re.findall(r"REFUSED (\w+)", err)):
            refused[turn] = codes[n] if n < len(codes) else "?"
    saver = open_checkpointer(settings)
    try:
        state = saver.get_tuple({"configurable": {"thread_id": "shared", "checkpoint_ns": ""}})
        assert state is not None
        history = state.checkpoint["channel_values"]["history"]
        stored = [t["question"].rsplit(" ", 1)[-1] for t in history]
        # Every turn is stored exactly once, or was refused out loud as busy: never dropped silently.
        assert set(refused.values()) <= {"thread_busy"}, refused
        assert sorted(stored + list(refused)) == sorted(f"{tag}{n}" for tag in ("a", "b") for n in range(turns))
        assert len(refused) < 2 * turns  # the lock lets turns through, it does not refuse them all
    finally:
        close_checkpointer(saver)
