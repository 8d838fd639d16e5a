"""The ``local`` profile: everything in-process and offline (SmolLM2 through llama.cpp, MiniLM).

Its defaults are measurements, not tastes:

- The embedded 135M model's structured query never improved on the rule-based constructor and
  cost seconds per question (``bench/results/selfquery``): self-query runs the rules only.
- Its answers lost to the trained reader's (``bench/results/answer-strategy``): extractive.
- It says "relevant"/"grounded"/"useful" to nearly everything, so the trained critic decides
  every grade alone (``signal``).
- It runs one call at a time behind a lock: no speculation, no parallel checks, and a few
  relevance grades at once (more would only queue).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfrag.profiles._profile import GraderDefault, ProviderProfile
from selfrag.profiles._registry import register_profile

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models.chat_models import BaseChatModel

    from selfrag.settings import EmbeddingSettings, LLMSettings

__all__ = ["LOCAL", "LOCAL_GRADE_CONCURRENCY"]

LOCAL_GRADE_CONCURRENCY = 4
"""The embedded model holds a lock for each call: more threads would only queue."""


def _chat_model(llm: LLMSettings) -> BaseChatModel:
    from selfrag.providers.local_chat import LocalChatModel

    return LocalChatModel(
        model_path=llm.model_path, n_ctx=llm.n_ctx, n_threads=llm.n_threads,
        temperature=llm.temperature, max_tokens=llm.max_tokens,
    )


def _embeddings(emb: EmbeddingSettings) -> Embeddings:
    from selfrag.providers.embeddings import LocalEmbeddings

    return LocalEmbeddings(batch_size=emb.batch_size, max_batch_tokens=emb.max_batch_tokens, max_batch_texts=emb.max_batch_texts)


def _describe(llm: LLMSettings) -> str:
    from selfrag.providers.local_chat import SMOLLM2_FILE

    return f"local/{Path(llm.model_path or SMOLLM2_FILE).stem}"


def _ready(llm: LLMSettings, timeout_s: float) -> dict[str, Any]:
    # In-process: it is loaded with the engine, so if we are serving it is there.
    return {"ok": True, "provider": "local"}


LOCAL = register_profile(ProviderProfile(
    name="local",
    chat_model=_chat_model,
    embeddings=_embeddings,
    self_query_mode="rules",
    self_query_reason=(
        "local profile: the embedded model's structured query was measured not to improve on the "
        "rule-based constructor (bench/results/selfquery), so it is not asked"
    ),
    answer_strategy="extractive",
    speculate=False,
    parallel_checks=False,
    grade_concurrency=LOCAL_GRADE_CONCURRENCY,
    graders={kind: GraderDefault("signal") for kind in ("relevance", "groundedness", "usefulness")},
    ready=_ready,
    describe=_describe,
))
