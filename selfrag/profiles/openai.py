"""The ``openai`` profile: OpenAI, or any OpenAI-compatible server (vLLM, llama.cpp's server, Ollama).

API models propose structured queries (the validator and the rules referee them), write the first
answer (the trained reader takes the last allowed attempt after ungrounded ones: ``hybrid``),
serve calls at once (speculation, parallel checks, a round of relevance grades), and decide
relevance alone while the critic is the floor under their groundedness and usefulness verdicts
(``bench/results/answer-strategy``, ``bench/results/speculation``).

Nothing here reads the environment: ``ChatOpenAI`` and ``OpenAIEmbeddings`` would otherwise pick
up ``OPENAI_API_KEY`` / ``OPENAI_API_BASE`` on their own, so every value is passed explicitly.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from pydantic import SecretStr

from selfrag.errors import ConfigError
from selfrag.profiles._profile import API_GRADE_ROUND, GraderDefault, ProviderProfile
from selfrag.profiles._registry import register_profile

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models.chat_models import BaseChatModel

    from selfrag.providers._transport import BreakerClient
    from selfrag.settings import EmbeddingSettings, LLMSettings

__all__ = ["OPENAI", "OPENAI_BASE_URL", "models_probe"]

log = logging.getLogger(__name__)

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


def _client(kind: str, base_url: str) -> BreakerClient:
    """An HTTP client whose attempts report to the breaker of ``kind`` at ``base_url`` (shared by
    every client of that endpoint in this process)."""
    from selfrag.breaker import breaker_for
    from selfrag.providers._transport import BreakerClient

    return BreakerClient(breaker_for(f"{kind} {base_url}"))


def _chat_model(llm: LLMSettings) -> BaseChatModel:
    """``max_retries=0``: the graders retry through their own policy, and stacking the client's
    retries on top would multiply latency on a dead server."""
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


def _embeddings(emb: EmbeddingSettings) -> Embeddings:
    """For servers other than OpenAI, ``check_embedding_ctx_length=False`` sends raw text: the
    length check tokenizes with tiktoken, which downloads its tables and only fits OpenAI models."""
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


def models_probe(base_url: str | None, api_key: SecretStr | None, timeout_s: float) -> dict[str, Any]:
    """Readiness of an OpenAI-compatible server: its ``/models`` answers below 500 within ``timeout_s``."""
    import httpx

    base = (base_url or OPENAI_BASE_URL).rstrip("/")
    headers = {"Authorization": f"Bearer {api_key.get_secret_value()}"} if api_key else {}
    # /readyz answers anyone: where the server is and what the client raised stay in the log.
    try:
        reply = httpx.get(f"{base}/models", headers=headers, timeout=timeout_s)
    except httpx.HTTPError as exc:
        log.warning("readiness: cannot reach %s/models: %s", base, type(exc).__name__)
        return {"ok": False, "provider": "openai", "error": "cannot reach the model server"}
    if reply.status_code >= 500:
        log.warning("readiness: %s/models answered %s", base, reply.status_code)
        return {"ok": False, "provider": "openai", "error": f"the model server answered {reply.status_code}"}
    return {"ok": True, "provider": "openai"}


OPENAI = register_profile(ProviderProfile(
    name="openai",
    chat_model=_chat_model,
    embeddings=_embeddings,
    self_query_mode="auto",
    answer_strategy="hybrid",
    speculate=True,
    parallel_checks=True,
    grade_concurrency=API_GRADE_ROUND,
    graders={
        "relevance": GraderDefault("llm"),
        "groundedness": GraderDefault("both"),
        "usefulness": GraderDefault("both"),
    },
    ready=lambda llm, timeout_s: models_probe(llm.base_url, llm.api_key, timeout_s),
    embeddings_ready=lambda emb, timeout_s: models_probe(emb.base_url, emb.api_key, timeout_s),
    describe=lambda llm: f"openai/{llm.model}",
))
