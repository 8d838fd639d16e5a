"""Which constructor answers, per provider profile, and the one way to build a planner from settings.

Measured, not assumed (``bench/selfquery.py``, results in ``bench/results/selfquery/``): on the
self-query dev sets the embedded 135M model's structured query never improved on the rule-based
constructor, and its call cost seconds per question. So the ``local`` profile does not ask the
model for a structured query, and every plan says so in its changes. API models
(``openai``: OpenAI or any OpenAI-compatible server) propose, and the validator and the rules
referee them. ``workflow.self_query_mode`` overrides the profile.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from selfrag.query.planner import Mode, SelfQueryPlanner

if TYPE_CHECKING:
    from selfrag.settings import Settings

__all__ = ["PROFILE_MODES", "build_planner", "profile_mode"]

PROFILE_MODES: dict[str, tuple[Mode, str | None]] = {
    "local": (
        "rules",
        "local profile: the embedded model's structured query was measured not to improve on the "
        "rule-based constructor (bench/results/selfquery), so it is not asked",
    ),
    "openai": ("auto", None),
}
"""Provider → (mode, why the model is not asked, when it is not)."""


def profile_mode(settings: Settings) -> tuple[Mode, str | None]:
    """The self-query mode the settings ask for: the explicit one, else the provider profile's."""
    explicit = settings.workflow.self_query_mode
    if explicit != "profile":
        return explicit, None
    return PROFILE_MODES[settings.llm.provider]


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
    from selfrag.providers import make_chat_model

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
