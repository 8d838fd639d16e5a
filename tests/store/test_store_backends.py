"""Issue 28 item 5's done-when: adding a store is one package plus the settings line that selects it.

The "package" here is this module's ``movies_store`` factory over the project's fake store; the
settings line is ``store.backend``. Nothing else is edited, and a question runs end to end on it.
"""

from __future__ import annotations

import pytest
from langchain_core.embeddings import Embeddings

from selfrag.errors import ConfigError
from selfrag.settings import Settings
from selfrag.store import STORES, CollectionSource, Hit, open_backend
from selfrag.testing import FakeCollection, FakeStore, HashEmbeddings, ScriptedChatModel
from tests.workflows.conftest import DOCS, SCHEMA
from workflows import SelfRagEngine
from workflows.factory import build_components, run_options

OPENED: list[FakeStore] = []


def movies_store(settings: Settings, embeddings: Embeddings) -> CollectionSource:
    """A store of its own: the fake collection of the workflow tests (what a new package would write)."""
    found = [Hit(id=d["id"], text=d["text"], metadata=d["metadata"], score=0.8) for d in DOCS.values()]
    store = FakeStore(FakeCollection("movies", SCHEMA, list(DOCS.values()), search_fn=lambda q, w, k: found[:k]))
    OPENED.append(store)
    return store


def test_a_store_selected_by_one_settings_line_answers_a_question() -> None:
    settings = Settings(llm={"provider": "openai", "api_key": "x"}, store={"backend": f"{__name__}:movies_store"})  # type: ignore[arg-type]
    model = ScriptedChatModel.from_rules({
        "StructuredQuery": '{"query": "toys", "filter": null, "limit": null}',
        "RelevanceGrade": '{"verdict": "relevant", "reason": "ok"}',
        "GroundednessGrade": '{"verdict": "grounded", "reason": "ok"}',
        "UsefulnessGrade": '{"verdict": "useful", "reason": "ok"}',
        "generate": "Toys come alive [1].",
    })
    OPENED.clear()
    engine = SelfRagEngine(build_components(settings, model=model, embeddings=HashEmbeddings()), defaults=run_options(settings))
    result = engine.run("What do toys do?", collection="movies")
    assert len(OPENED) == 1 and OPENED[0].collections["movies"].searches  # the question was asked of it
    assert result.outcome.value == "answered"
    assert result.answer == "Toys come alive [1]." and result.citations


def test_the_default_backend_is_chroma_and_an_unknown_one_is_a_config_error() -> None:
    assert Settings().store.backend == "chroma" and "chroma" in STORES
    for bad in ("nowhere", "no_such_module_xyz:factory", f"{__name__}:absent"):
        with pytest.raises(ConfigError, match="store.backend"):
            open_backend(Settings(store={"backend": bad}), HashEmbeddings())  # type: ignore[arg-type]
