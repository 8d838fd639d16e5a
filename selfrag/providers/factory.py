"""Settings → LangChain objects, through the provider profile the settings name (``selfrag.profiles``).

The graph, graders and ingest take a ``BaseChatModel`` and an ``Embeddings`` as arguments; the
CLI and the service build them here from the settings. Which class serves which provider is the
profile's to say: ``selfrag.profiles.local`` and ``selfrag.profiles.openai`` hold the built-ins.
"""

from __future__ import annotations

from langchain_core.embeddings import Embeddings
from langchain_core.language_models.chat_models import BaseChatModel

from selfrag.errors import ConfigError
from selfrag.profiles import profile_named
from selfrag.profiles.openai import OPENAI_BASE_URL
from selfrag.settings import EmbeddingSettings, LLMSettings

__all__ = ["OPENAI_BASE_URL", "describe", "make_chat_model", "make_embeddings"]


def make_chat_model(llm: LLMSettings) -> BaseChatModel:
    """The chat model the settings describe (its profile's ``chat_model``).

    Raises:
        ConfigError: the profile refuses the settings (``openai`` against api.openai.com without
            an API key), or no profile is registered as ``llm.provider``.
    """
    return profile_named(llm.provider).chat_model(llm)


def make_embeddings(emb: EmbeddingSettings) -> Embeddings:
    """The embeddings the settings describe (the ``embeddings`` of the profile ``emb.provider`` names).

    Raises:
        ConfigError: that profile has no embeddings, or refuses the settings (``openai`` against
            api.openai.com without an API key).
    """
    build = profile_named(emb.provider).embeddings
    if build is None:
        raise ConfigError(f"embeddings.provider: the {emb.provider!r} provider profile has no embeddings")
    return build(emb)


def describe(llm: LLMSettings) -> str:
    """A short ``provider/model`` label for traces and logs, e.g. ``local/SmolLM2-135M-Instruct.Q4_1``."""
    return profile_named(llm.provider).describe(llm)
