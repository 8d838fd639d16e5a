"""Per-run knobs, passed to nodes through LangGraph's runtime context (never through globals)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from selfrag.profiles import API_GRADE_ROUND, profile_named
from selfrag.profiles.local import LOCAL_GRADE_CONCURRENCY
from selfrag.settings import WorkflowSettings
from workflows.resources import Resource, ResourceSearch

__all__ = ["API_GRADE_ROUND", "LOCAL_GRADE_CONCURRENCY", "RunOptions", "grade_concurrency_for"]


def grade_concurrency_for(provider: str, setting: int | None) -> int:
    """The grading concurrency a run uses: the setting, else the provider profile's."""
    return setting if setting is not None else profile_named(provider).grade_concurrency


@dataclass(frozen=True)
class RunOptions:
    """What may change from one question to the next."""

    max_rewrites: int = 2
    """Query rewrites allowed per question (after no relevant document, or a not-useful answer)."""
    max_generations: int = 2
    """Answer generations allowed per question (regenerating after an ungrounded answer)."""
    top_k: int = 4
    """Documents retrieved per search (a self-queried limit overrides it)."""
    min_score: float | None = None
    """Minimum cosine similarity of a retrieved chunk; None keeps all."""
    grade_concurrency: int = LOCAL_GRADE_CONCURRENCY
    """Documents graded at once (``grade_concurrency_for`` picks it from the settings)."""
    mandatory_where: dict[str, Any] | None = None
    """A caller's Chroma where clause, ANDed with the self-queried filter and never relaxed."""
    request_key: str | None = None
    """The caller's idempotency key for this turn (HTTP ``Idempotency-Key``). On a thread, it is
    stored with the turn; a run with a key the thread already holds runs nothing and returns that
    turn (``Result.replayed``), so a client retrying after a lost response never adds a second."""
    max_llm_calls: int | None = None
    """Model calls one run may make, retries included; a call past it is refused and the run ends
    ``budget_exhausted`` at the next step. None: no cap."""
    max_llm_tokens: int | None = None
    """Model tokens (input + output) one run may use; once spent, the next call is refused as above."""
    turn_wait_s: float = 30.0
    """How long a turn on a thread waits for that thread's previous turn to finish before it is
    refused (``ThreadBusy``); turns of one thread run one at a time."""
    resources: tuple[Resource, ...] = ()
    """The question's resources with their search settings, the first being the state's
    ``collection`` (one collection is a list of one). The engine sets it; empty: the state's
    ``collection`` with no settings of its own."""
    search_defaults: Mapping[str, ResourceSearch] = field(default_factory=dict)
    """Per-collection search defaults (``[collections.<name>.search]``), under a call's own."""
    stream_tokens: bool = False
    """Stream the answer's tokens as a model writes them (``workflows.tokens``). The engine sets it
    for ``stream(..., tokens=True)``."""

    @classmethod
    def from_settings(cls, s: WorkflowSettings, *, provider: str = "local", **overrides: Any) -> RunOptions:
        """The defaults ``s`` gives a run on ``provider`` (``llm.provider``), with ``overrides``."""
        base: dict[str, Any] = dict(
            max_rewrites=s.max_rewrites,
            max_generations=s.max_generations,
            top_k=s.top_k,
            min_score=s.min_score,
            grade_concurrency=grade_concurrency_for(provider, s.grade_concurrency),
            turn_wait_s=s.turn_wait_s,
            max_llm_calls=s.max_llm_calls,
            max_llm_tokens=s.max_llm_tokens,
        )
        base.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**base)

