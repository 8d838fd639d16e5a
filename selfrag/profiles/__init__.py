"""Provider profiles: one registered profile per chat-model provider (``llm.provider``).

A profile (``ProviderProfile``) holds what differs between providers: how to build the chat
model, the embeddings and the judge; the self-query mode; the answer strategy; speculation,
parallel checks and grading concurrency; each grader's combination and threshold; and the
``/readyz`` probe. Settings select one by name; everything else asks the profile.

Each public module of this package registers one built-in (``local``, ``openai``). Adding a
provider (Anthropic, Ollama's native API, any LangChain chat model) is one module::

    from selfrag.profiles import ProviderProfile, register_profile

    def chat(llm):
        from langchain_anthropic import ChatAnthropic
        return ChatAnthropic(model=llm.model, max_tokens=llm.max_tokens, timeout=llm.timeout_s)

    ANTHROPIC = register_profile(ProviderProfile(name="anthropic", chat_model=chat))

placed in this package, or imported by the application before its settings are read
(``llm.provider = "anthropic"``). Everything not declared takes the API defaults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from selfrag.profiles._profile import (
    API_GRADE_ROUND,
    AnswerStrategy,
    CombineName,
    GraderDefault,
    ProviderProfile,
    SelfQueryMode,
    shipped_judge,
)
from selfrag.profiles._registry import PROFILES, profile_named, provider_names, register_profile, unknown_provider

if TYPE_CHECKING:
    from selfrag.settings import Settings

__all__ = [
    "API_GRADE_ROUND",
    "PROFILES",
    "AnswerStrategy",
    "CombineName",
    "GraderDefault",
    "ProviderProfile",
    "SelfQueryMode",
    "profile_for",
    "profile_named",
    "provider_names",
    "register_profile",
    "shipped_judge",
    "unknown_provider",
]


def profile_for(settings: Settings) -> ProviderProfile:
    """The profile of the settings' chat-model provider (``llm.provider``).

    Raises:
        ConfigError: no profile is registered under that name.
    """
    return profile_named(settings.llm.provider)
