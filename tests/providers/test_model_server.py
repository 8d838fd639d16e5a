"""``tests/model_server.py``, the OpenAI-compatible chat and embeddings server the soak bench kills
and restarts: the engine answers through it with the real OpenAI clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from selfrag.schema import CollectionSchema
from selfrag.settings import Settings
from selfrag.store import Chunk
from tests.model_server import ModelServer
from workflows import Outcome
from workflows.factory import build_engine

pytestmark = pytest.mark.integration


@pytest.fixture
def server() -> Iterator[ModelServer]:
    srv = ModelServer()
    yield srv
    srv.stop()


def test_the_engine_answers_through_the_openai_compatible_server(server: ModelServer, tmp_path: Path) -> None:
    api = {"provider": "openai", "base_url": server.url, "api_key": "test", "model": "scripted"}
    engine = build_engine(Settings(home=tmp_path, llm=api, embeddings=api))
    try:
        store = engine.components.store
        movies = store.create_collection("movies", CollectionSchema(attributes=[]))  # type: ignore[attr-defined]
        movies.add([Chunk("toys", "Toys come alive when nobody is watching. Woody leads them.", {}),
                    Chunk("dino", "Dinosaurs roam an island park.", {})])
        result = engine.run("Which toys come alive?", collection="movies")
    finally:
        engine.close()
    assert result.outcome is Outcome.ANSWERED, result.trace.stop_reason
    assert result.answer == "Toys come alive when nobody is watching. [1]"
    assert [c.id for c in result.citations] == ["toys"] and result.trace.llm.calls >= 4
