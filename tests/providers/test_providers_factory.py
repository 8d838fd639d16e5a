"""Settings → chat model / embeddings: which class, which parameters, which errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from pydantic import SecretStr, ValidationError

from selfrag.errors import ConfigError
from selfrag.providers import (
    LocalChatModel,
    LocalEmbeddings,
    describe,
    make_chat_model,
    make_embeddings,
)
from selfrag.settings import MAX_BATCH_TOKENS, EmbeddingSettings, LLMSettings


def test_local_chat_model_takes_the_settings() -> None:
    model = make_chat_model(
        LLMSettings(model_path=Path("/m/x.gguf"), n_ctx=2048, n_threads=2, temperature=0.1, max_tokens=99)
    )
    assert isinstance(model, LocalChatModel)
    assert (model.model_path, model.n_ctx, model.n_threads, model.temperature, model.max_tokens) == (
        Path("/m/x.gguf"), 2048, 2, 0.1, 99,
    )  # fmt: skip


def test_openai_chat_model_with_key() -> None:
    model = make_chat_model(
        LLMSettings(provider="openai", model="gpt-4o-mini", api_key=SecretStr("sk-test"), max_tokens=77, timeout_s=12)
    )
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "gpt-4o-mini"
    assert model.openai_api_base == "https://api.openai.com/v1"
    assert model.openai_api_key is not None and model.openai_api_key.get_secret_value() == "sk-test"  # type: ignore[union-attr]
    assert (model.max_tokens, model.request_timeout, model.max_retries, model.temperature) == (77, 12, 0, 0.0)
    assert not model.extra_body


def test_openai_compatible_server_needs_no_key_and_gets_max_tokens() -> None:
    model = make_chat_model(LLMSettings(provider="openai", model="smollm2", base_url="http://127.0.0.1:8080/v1"))
    assert isinstance(model, ChatOpenAI)
    assert model.openai_api_base == "http://127.0.0.1:8080/v1"
    assert model.openai_api_key.get_secret_value() == "not-needed"  # type: ignore[union-attr]
    assert model.extra_body == {"max_tokens": 512}  # llama.cpp's server ignores max_completion_tokens


def test_openai_without_key_is_a_one_line_config_error() -> None:
    with pytest.raises(ConfigError, match="SELFRAG_LLM__API_KEY") as info:
        make_chat_model(LLMSettings(provider="openai"))
    assert "\n" not in str(info.value)
    with pytest.raises(ConfigError):
        make_chat_model(LLMSettings(provider="openai", base_url="https://api.openai.com/v1", api_key=SecretStr("")))


def test_environment_key_is_not_picked_up_silently(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    with pytest.raises(ConfigError):
        make_chat_model(LLMSettings(provider="openai"))


def test_local_embeddings() -> None:
    emb = make_embeddings(EmbeddingSettings(batch_size=16, max_batch_tokens=512))
    assert isinstance(emb, LocalEmbeddings) and emb.batch_size == 16 and emb.max_batch_tokens == 512
    assert make_embeddings(EmbeddingSettings(max_batch_tokens=None)).max_batch_tokens is None  # type: ignore[union-attr]
    assert make_embeddings(EmbeddingSettings()).max_batch_tokens == MAX_BATCH_TOKENS  # type: ignore[union-attr]


def test_embedding_batch_limits_are_validated() -> None:
    with pytest.raises(ValidationError):
        EmbeddingSettings(max_batch_tokens=8)
    with pytest.raises(ValidationError):
        EmbeddingSettings(batch_size=0)


def test_openai_embeddings() -> None:
    emb = make_embeddings(EmbeddingSettings(provider="openai", api_key=SecretStr("sk-test"), batch_size=10))
    assert isinstance(emb, OpenAIEmbeddings)
    assert (emb.model, emb.chunk_size, emb.check_embedding_ctx_length) == ("text-embedding-3-small", 10, True)


def test_compatible_embeddings_skip_tiktoken() -> None:
    emb = make_embeddings(EmbeddingSettings(provider="openai", model="nomic", base_url="http://localhost:11434/v1"))
    assert isinstance(emb, OpenAIEmbeddings)
    assert emb.check_embedding_ctx_length is False
    assert emb.openai_api_base == "http://localhost:11434/v1"


def test_embeddings_without_key_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="SELFRAG_EMBEDDINGS__API_KEY"):
        make_embeddings(EmbeddingSettings(provider="openai"))


def test_describe() -> None:
    assert describe(LLMSettings()) == "local/SmolLM2-135M-Instruct.Q4_1"
    assert describe(LLMSettings(model_path=Path("/m/qwen.gguf"))) == "local/qwen"
    assert describe(LLMSettings(provider="openai", model="gpt-4o-mini")) == "openai/gpt-4o-mini"
