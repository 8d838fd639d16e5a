"""A live selfrag service on 127.0.0.1 (real uvicorn, real embedded Chroma and SQLite checkpoints)
around the scripted chat model of ``fake_server``; tests talk to it over HTTP with httpx."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from langchain_core.messages import BaseMessage

from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.service import KeyFile, create_app
from selfrag.settings import Settings
from selfrag.store import Chunk, Store
from selfrag.testing import ScriptedChatModel
from tests.servers import free_port
from tests.service.fake_server import scripted_engine, scripted_store
from workflows import SelfRagEngine
from workflows.factory import close_checkpointer

MOVIES = CollectionSchema(
    description="Movie plots",
    attributes=[
        AttributeInfo(name="genre", type="string", allowed_values=["animated", "science fiction", "drama"]),
        AttributeInfo(name="year", type="integer"),
        AttributeInfo(name="director", type="string"),
    ],
)

PLOTS = [
    Chunk("toys", "Toys come alive and have a blast doing so. Woody leads them.",
          {"genre": "animated", "year": 1995, "director": "John Lasseter"}),
    Chunk("dino", "Scientists bring back dinosaurs and mayhem breaks loose on the island.",
          {"genre": "science fiction", "year": 1993, "director": "Steven Spielberg"}),
    Chunk("zone", "Three men walk into the Zone, three men walk out.",
          {"genre": "drama", "year": 1979, "director": "Andrei Tarkovsky"}),
    Chunk("dream", "A thief steals secrets from dreams within dreams.",
          {"genre": "science fiction", "year": 2010, "director": "Christopher Nolan"}),
]


WAIT_S = 30.0
"""A guard against a hang, never a measurement: every wait in these tests ends on an event or a state."""


@dataclass
class Live:
    url: str
    settings: Settings
    store: Store
    engine: SelfRagEngine

    def client(self, key: str | None = None, **kwargs: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, **{"timeout": 30.0, **kwargs})


class _Server(uvicorn.Server):
    """uvicorn's server, saying when its startup is over (listening, or failed) by an event."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.startup_over = threading.Event()

    async def startup(self, sockets: Any = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.startup_over.set()


class ThreadedServer:
    """uvicorn serving ``app`` on 127.0.0.1 in a background thread."""

    def __init__(self, app: Any) -> None:
        self.port = free_port()
        self.server = _Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadedServer:
        self.thread.start()
        if not self.server.startup_over.wait(WAIT_S) or not self.server.started:
            raise RuntimeError("the test server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


class Gate:
    """Holds the generation of every question marked HOLD until ``release``; ``entered`` says one is held.

    Events instead of a sleeping model: what the tests assert (refused while busy, queued until a
    slot frees, answered at the deadline while the node is still running) then holds on any
    machine, however loaded, with no duration asserted.
    """

    def __init__(self, live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = threading.Event()
        self.released = threading.Event()
        model = live.engine.components.relevance.model  # type: ignore[attr-defined]
        assert isinstance(model, ScriptedChatModel)
        inner = model.script

        def script(task: str, messages: list[BaseMessage]) -> object:
            if task == "generate" and "HOLD" in str(messages[-1].content):
                self.entered.set()
                if not self.released.wait(WAIT_S):
                    raise TimeoutError("the test never released the held generation")
            return inner(task, messages)

        monkeypatch.setattr(model, "script", script)

    def wait_held(self) -> None:
        assert self.entered.wait(WAIT_S), "the held run never reached generation"

    def release(self) -> None:
        self.released.set()


@contextmanager
def _serving(home: Path, *, keys: KeyFile | None = None, seed: bool = True, **service: Any) -> Iterator[Live]:
    settings = Settings(home=home, service=service)
    if keys is not None:
        keys.save(home / "keys.json")
    store = scripted_store(settings)
    if seed:
        store.create_collection("movies", MOVIES).add(PLOTS)
    engine = scripted_engine(settings, store)
    try:
        with ThreadedServer(create_app(settings, engine=engine, store=store)) as server:
            yield Live(f"http://127.0.0.1:{server.port}", settings, store, engine)
    finally:
        if engine.checkpointer is not None:
            close_checkpointer(engine.checkpointer)
        store.close()


@pytest.fixture
def make_live(tmp_path: Path) -> Iterator[Callable[..., Live]]:
    """Start a live service of this test's own; ``service`` settings may be overridden, ``keys``
    written first. For tests that change the server (its settings, keys, metrics, collections)."""
    with ExitStack() as stack:
        started: list[Live] = []

        def start(*, keys: KeyFile | None = None, seed: bool = True, **service: Any) -> Live:
            started.append(stack.enter_context(_serving(tmp_path / f"home{len(started)}", keys=keys, seed=seed, **service)))
            return started[-1]

        yield start


@pytest.fixture(scope="module")
def shared_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """One live service for a whole module, seeded with the movies. A module whose tests only read
    it, or write under names (threads, collections) no other test of the module uses, binds
    ``live`` to it; a test that needs a server of its own there asks ``make_live``."""
    with _serving(tmp_path_factory.mktemp("shared-live")) as live:
        yield live


@pytest.fixture
def live(make_live: Callable[..., Live]) -> Live:
    """A live service of this test's own (modules that share one override this with ``shared_live``)."""
    return make_live()
