"""Provider profiles (``selfrag.profiles``): adding a provider is one declaration.

The toy provider below is the whole of a new provider: one ``ProviderProfile`` registered from one
place (this module, as an application would from its own). The settings select it by name, and the
engine, the run defaults, the graders' combinations and ``/readyz`` all follow it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from selfrag.errors import ConfigError
from selfrag.profiles import PROFILES, GraderDefault, ProviderProfile, profile_for, provider_names, register_profile
from selfrag.settings import EmbeddingSettings, LLMSettings, Settings, load_settings
from selfrag.testing import HashEmbeddings, ScriptedChatModel, ScriptedJudge
from tests.service.conftest import MOVIES, PLOTS, ThreadedServer
from tests.service.fake_server import lexical_reading, lexical_rules
from workflows.factory import build_engine

BUILT: list[ScriptedChatModel] = []
"""Every chat model the toy profile built, so a test can see which one answered."""


def _toy_chat(llm: LLMSettings) -> ScriptedChatModel:
    model = ScriptedChatModel.from_rules(lexical_rules())
    BUILT.append(model)
    return model


def _toy_embeddings(emb: EmbeddingSettings) -> HashEmbeddings:
    return HashEmbeddings()


def _toy_ready(llm: LLMSettings, timeout_s: float) -> dict[str, Any]:
    return {"ok": False, "provider": "toy", "error": f"the toy model {llm.model} is asleep"}


TOY = ProviderProfile(
    name="toy",
    chat_model=_toy_chat,
    embeddings=_toy_embeddings,
    judge=lambda path: ScriptedJudge(read=lexical_reading, name="toy-critic"),
    self_query_mode="rules",
    self_query_reason="toy profile: the rules plan",
    answer_strategy="generate",
    speculate=False,
    parallel_checks=False,
    grade_concurrency=3,
    graders={"relevance": GraderDefault("llm"), "groundedness": GraderDefault("llm", 0.25),
             "usefulness": GraderDefault("either")},
    ready=_toy_ready,
    describe=lambda llm: f"toy/{llm.model}",
)


@pytest.fixture
def toy() -> Iterator[ProviderProfile]:
    register_profile(TOY)
    BUILT.clear()
    yield TOY
    del PROFILES["toy"]


def _settings(tmp_path: Path, **more: Any) -> Settings:
    return Settings(home=tmp_path / "home", llm={"provider": "toy", "model": "tiny"},  # type: ignore[arg-type]
                    embeddings={"provider": "toy"}, **more)


def test_the_built_ins_are_registered_and_the_default_is_local() -> None:
    assert provider_names() == ["local", "openai"]
    assert profile_for(Settings()).name == "local"


def test_a_toy_provider_answers_a_question_end_to_end(toy: ProviderProfile, tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    assert profile_for(settings) is toy
    engine = build_engine(settings, memory=False)  # no model given: the profile builds them
    try:
        engine.components.store.create_collection("movies", MOVIES).add(PLOTS)  # type: ignore[attr-defined]
        result = engine.run("Which movie has dinosaurs?", collection="movies")
    finally:
        engine.close()
        engine.components.store.close()  # type: ignore[attr-defined]
    assert result.outcome == "answered"
    assert result.answer == "Scientists bring back dinosaurs and mayhem breaks loose on the island. [1]"
    assert BUILT and engine.components.generator.model is BUILT[0]  # the toy's model wrote it
    assert any(c.task == "RelevanceGrade" for c in BUILT[0].calls)  # and graded (combine=llm)
    assert isinstance(engine.components.store._embeddings, HashEmbeddings)  # type: ignore[attr-defined]
    # The profile's behaviour, not the local one's:
    c = engine.components
    assert (c.parallel_checks, c.speculate) == (False, False)
    assert engine.defaults.grade_concurrency == 3
    assert c.planner.rules_reason == "toy profile: the rules plan"
    assert (c.groundedness.config.combine.value, c.groundedness.config.threshold) == ("llm", 0.25)
    assert c.usefulness.config.combine.value == "either"


def test_explicit_settings_win_over_the_profile(toy: ProviderProfile, tmp_path: Path) -> None:
    settings = _settings(tmp_path, workflow={"grade_concurrency": 7, "speculate": True},
                         graders={"groundedness": {"combine": "both", "threshold": 0.5}})
    engine = build_engine(settings, memory=False)
    try:
        c = engine.components
        assert engine.defaults.grade_concurrency == 7 and c.speculate is True
        assert (c.groundedness.config.combine.value, c.groundedness.config.threshold) == ("both", 0.5)
    finally:
        engine.close()
        engine.components.store.close()  # type: ignore[attr-defined]


def test_readyz_asks_the_profiles_probe(toy: ProviderProfile, tmp_path: Path) -> None:
    from selfrag.service import create_app

    settings = _settings(tmp_path)
    engine = build_engine(settings, memory=False)
    store = engine.components.store
    try:
        with ThreadedServer(create_app(settings, engine=engine, store=store)) as server:  # type: ignore[arg-type]
            ready = httpx.get(f"http://127.0.0.1:{server.port}/readyz", timeout=10)
    finally:
        engine.close()
        store.close()  # type: ignore[attr-defined]
    assert ready.status_code == 503
    checks = ready.json()["checks"]
    assert checks["model"] == {"ok": False, "provider": "toy", "error": "the toy model tiny is asleep"}
    assert "embeddings" not in checks  # the toy profile's embeddings have no probe
    assert ready.json()["capabilities"]["answers"]["down"] == ["model"]


def test_an_unknown_provider_is_a_one_line_error_naming_the_registered_ones() -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(llm={"provider": "anthropic"})
    message = str(err.value)
    assert "\n" not in message
    assert message == ("invalid setting llm.provider: Value error, no provider profile is registered as "
                       "'anthropic' (registered: local, openai)")


def test_embeddings_need_a_profile_that_has_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PROFILES, "chatonly", ProviderProfile(name="chatonly", chat_model=_toy_chat))
    assert load_settings(llm={"provider": "chatonly"}).llm.provider == "chatonly"
    with pytest.raises(ConfigError, match=r"'chatonly' provider profile has no embeddings \(providers with embeddings: local, openai\)"):
        load_settings(embeddings={"provider": "chatonly"})


def test_a_name_cannot_be_registered_twice(toy: ProviderProfile) -> None:
    register_profile(toy)  # the same profile again: a no-op (a module imported twice)
    with pytest.raises(ValueError, match="already registered"):
        register_profile(ProviderProfile(name="toy", chat_model=_toy_chat))


def test_the_built_in_profiles_keep_their_measured_defaults() -> None:
    # What local and openai meant before they had a home (bench/results/*): unchanged.
    local, api = PROFILES["local"], PROFILES["openai"]
    assert (local.self_query_mode, local.answer_strategy, local.speculate, local.parallel_checks,
            local.grade_concurrency) == ("rules", "extractive", False, False, 4)
    assert (api.self_query_mode, api.answer_strategy, api.speculate, api.parallel_checks,
            api.grade_concurrency) == ("auto", "hybrid", True, True, 16)
    assert {k: d.combine for k, d in local.graders.items()} == dict.fromkeys(("relevance", "groundedness", "usefulness"), "signal")
    assert {k: d.combine for k, d in api.graders.items()} == {"relevance": "llm", "groundedness": "both", "usefulness": "both"}
    assert local.embeddings_ready is None and api.embeddings_ready is not None


def test_the_cli_says_so_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from selfrag.cli import app

    monkeypatch.setenv("SELFRAG_LLM__PROVIDER", "anthropic")
    result = CliRunner().invoke(app, ["ask", "Which movie has dinosaurs?", "-c", "movies"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error[config_invalid]: invalid setting llm.provider: Value error, no provider profile is registered as "
        "'anthropic' (registered: local, openai)"
    ]


def test_an_unreachable_model_server_s_readiness_names_no_host_port_or_exception(caplog: pytest.LogCaptureFixture) -> None:
    # /readyz answers without a key: "cannot reach http://127.0.0.1:9/v1: ConnectError" told anyone
    # where the model server is and what the client library raised.
    from selfrag.profiles.openai import models_probe

    with caplog.at_level("WARNING"):
        result = models_probe("http://127.0.0.1:9/v1", None, 2.0)
    assert result == {"ok": False, "provider": "openai", "error": "cannot reach the model server"}
    assert "127.0.0.1:9" in caplog.text  # the operator's log keeps where and what
