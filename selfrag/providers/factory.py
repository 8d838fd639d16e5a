"""Settings → LangChain objects: the one place that knows which class serves which provider.

The graph, graders and ingest take a ``BaseChatModel`` and an ``Embeddings`` as arguments; the
CLI and the service build them here from the settings. Nothing below reads the environment:
``ChatOpenAI`` and ``OpenAIEmbeddings`` would otherwise pick up ``OPENAI_API_KEY`` /
``OPENAI_API_BASE`` on their own, so every value they need is passed explicitly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from langchain_core.embeddings import Embeddings
from langchain_core.language_models.chat_models import BaseChatModel
from pydantic import SecretStr

from selfrag.breaker import breaker_for
from selfrag.errors import ConfigError
from selfrag.providers._transport import BreakerClient
from selfrag.providers.embeddings import LocalEmbeddings
from selfrag.providers.local_chat import SMOLLM2_FILE, LocalChatModel
from selfrag.settings import EmbeddingSettings, LLMSettings

__all__ = ["OPENAI_BASE_URL", "describe", "make_chat_model", "make_embeddings"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
_PLACEHOLDER_KEY = "not-needed"
"""Sent to OpenAI-compatible servers that want no key; the openai client refuses to start without one."""


def _is_openai(base_url: str | None) -> bool:
    return base_url is None or (urlparse(base_url).hostname or "").endswith("api.openai.com")


def _api_key(key: SecretStr | None, base_url: str | None, what: str) -> SecretStr:
    if key is not None and key.get_secret_value():
        return key
    if not _is_openai(base_url):
        return SecretStr(_PLACEHOLDER_KEY)
    section = "llm" if what == "chat" else "embeddings"
    raise ConfigError(
        f"{section}.provider=openai needs an API key: set SELFRAG_{section.upper()}__API_KEY "
        f"(or {section}.api_key in config.toml), or set {section}.base_url to an OpenAI-compatible server"
    )


def make_chat_model(llm: LLMSettings) -> BaseChatModel:
    """The chat model the settings describe.

    ``max_retries=0``: the graders retry through their own policy, and stacking the client's
    retries on top would multiply latency on a dead server. Its HTTP client reports to the
    endpoint's circuit breaker (``selfrag.breaker``), so a dead server fails fast.

    Raises:
        ConfigError: ``openai`` against api.openai.com without an API key.
    """
    if llm.provider == "local":
        return LocalChatModel(
            model_path=llm.model_path,
            n_ctx=llm.n_ctx,
            n_threads=llm.n_threads,
            temperature=llm.temperature,
            max_tokens=llm.max_tokens,
        )
    from langchain_openai import ChatOpenAI

    kwargs: dict[str, Any] = {}
    if not _is_openai(llm.base_url):
        # ChatOpenAI sends only ``max_completion_tokens``; llama.cpp's server (and some other
        # compatible servers) only read ``max_tokens`` and would otherwise generate up to n_ctx.
        kwargs["extra_body"] = {"max_tokens": llm.max_tokens}
    base_url = llm.base_url or OPENAI_BASE_URL
    return ChatOpenAI(
        model=llm.model,
        base_url=base_url,
        http_client=_client("model", base_url),
        api_key=_api_key(llm.api_key, llm.base_url, "chat"),
        temperature=llm.temperature,
        max_completion_tokens=llm.max_tokens,
        timeout=llm.timeout_s,
        max_retries=0,
        **kwargs,
    )


def make_embeddings(emb: EmbeddingSettings) -> Embeddings:
    """The embeddings the settings describe.

    For servers other than OpenAI, ``check_embedding_ctx_length=False`` sends raw text: the
    length check tokenizes with tiktoken, which downloads its tables and only fits OpenAI models.

    Raises:
        ConfigError: ``openai`` against api.openai.com without an API key.
    """
    if emb.provider == "local":
        return LocalEmbeddings(
            batch_size=emb.batch_size, max_batch_tokens=emb.max_batch_tokens, max_batch_texts=emb.max_batch_texts
        )
    from langchain_openai import OpenAIEmbeddings

    base_url = emb.base_url or OPENAI_BASE_URL
    return OpenAIEmbeddings(  # type: ignore[call-arg]  # base_url and api_key are the documented aliases
        model=emb.model,
        base_url=base_url,
        http_client=_client("embeddings", base_url),
        api_key=_api_key(emb.api_key, emb.base_url, "embeddings"),
        chunk_size=emb.batch_size,
        check_embedding_ctx_length=_is_openai(emb.base_url),
    )


def _client(kind: str, base_url: str) -> BreakerClient:
    """An HTTP client whose attempts report to the breaker of ``kind`` at ``base_url`` (shared by
    every client of that endpoint in this process)."""
    return BreakerClient(breaker_for(f"{kind} {base_url}"))


def describe(llm: LLMSettings) -> str:
    """A short ``provider/model`` label for traces and logs, e.g. ``local/SmolLM2-135M-Instruct.Q4_1``."""
    if llm.provider == "local":
        return f"local/{Path(llm.model_path or SMOLLM2_FILE).stem}"
    return f"openai/{llm.model}"
