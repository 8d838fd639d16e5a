"""The one way to build a self-query planner from settings, in the mode the provider profile gives.

Which mode a provider runs (and why the model is not asked, when it is not) is the provider
profile's (``selfrag.profiles``: ``local`` runs the rules only, measured best in
``bench/results/selfquery``; ``openai`` runs ``auto``). ``workflow.self_query_mode`` overrides it.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from selfrag.profiles import profile_for
from selfrag.query.planner import Mode, SelfQueryPlanner

if TYPE_CHECKING:
    from selfrag.settings import Settings

__all__ = ["build_planner", "profile_mode"]


def profile_mode(settings: Settings) -> tuple[Mode, str | None]:
    """The self-query mode the settings ask for: the explicit one, else the provider profile's
    (with its reason for not asking the model, when it does not)."""
    explicit = settings.workflow.self_query_mode
    if explicit != "profile":
        return explicit, None
    profile = profile_for(settings)
    return profile.self_query_mode, profile.self_query_reason


def build_planner(
    settings: Settings,
    *,
    model: Any = None,
    embeddings: Any = None,
    mode: Mode | None = None,
    today: date | None = None,
    retries: int | None = None,
) -> SelfQueryPlanner:
    """A planner as the settings describe it; the chat model is only built when the mode needs it.

    Args:
        model: the chat model to use (built from ``settings.llm`` when needed and not given).
        embeddings: the collection's embedding model, for linking words to known values.
        mode: overrides both the settings and the profile (the harness measures each mode).
    """
    from selfrag.providers import make_chat_model  # the profile's chat_model

    chosen, reason = (mode, None) if mode is not None else profile_mode(settings)
    if chosen != "rules" and model is None:
        model = make_chat_model(settings.llm)
    return SelfQueryPlanner(
        model if chosen != "rules" else None,
        method=settings.llm.structured_output_method,
        mode=chosen,
        today=today,
        embeddings=embeddings,
        rules_reason=reason,
        retries=settings.workflow.grader_retries - 1 if retries is None else retries,
    )
