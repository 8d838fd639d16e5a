"""A live selfrag service on 127.0.0.1 (real uvicorn, real embedded Chroma and SQLite checkpoints)
around the scripted chat model of ``fake_server``; tests talk to it over HTTP with httpx."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn

from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.service import KeyFile, create_app
from selfrag.settings import Settings
from selfrag.store import Chunk, Store
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


@dataclass
class Live:
    url: str
    settings: Settings
    store: Store
    engine: SelfRagEngine

    def client(self, key: str | None = None, **kwargs: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, **{"timeout": 30.0, **kwargs})


class ThreadedServer:
    """uvicorn serving ``app`` on 127.0.0.1 in a background thread."""

    def __init__(self, app: Any) -> None:
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadedServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@pytest.fixture
def make_live(tmp_path: Any) -> Iterator[Callable[..., Live]]:
    """Start a live service; ``service`` settings may be overridden, ``keys`` written first."""
    stack: list[tuple[ThreadedServer, Store, SelfRagEngine]] = []

    def start(*, keys: KeyFile | None = None, seed: bool = True, **service: Any) -> Live:
        home = tmp_path / f"home{len(stack)}"
        settings = Settings(home=home, service=service)
        if keys is not None:
            keys.save(home / "keys.json")
        store = scripted_store(settings)
        if seed:
            store.create_collection("movies", MOVIES).add(PLOTS)
        engine = scripted_engine(settings, store)
        server = ThreadedServer(create_app(settings, engine=engine, store=store)).__enter__()
        stack.append((server, store, engine))
        return Live(f"http://127.0.0.1:{server.port}", settings, store, engine)

    yield start
    for server, store, engine in reversed(stack):
        server.__exit__()
        if engine.checkpointer is not None:
            close_checkpointer(engine.checkpointer)
        store.close()


@pytest.fixture
def live(make_live: Callable[..., Live]) -> Live:
    return make_live()
