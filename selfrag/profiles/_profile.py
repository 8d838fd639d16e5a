"""What a provider profile declares: everything that differs between one chat-model provider and another.

A profile is data plus a few constructors. The factory (``workflows.factory``), the self-query
planner (``selfrag.query.profiles``), the run defaults (``workflows.options``) and the service's
``/readyz`` read it; none of them names a provider.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models.chat_models import BaseChatModel

    from selfrag.reading import ReaderCritic
    from selfrag.settings import EmbeddingSettings, LLMSettings

__all__ = ["API_GRADE_ROUND", "AnswerStrategy", "CombineName", "GraderDefault", "ProviderProfile", "SelfQueryMode", "shipped_judge"]

SelfQueryMode = Literal["auto", "llm", "rules"]
AnswerStrategy = Literal["generate", "hybrid", "extractive"]
CombineName = Literal["llm", "signal", "both", "either"]

API_GRADE_ROUND = 16
"""Most relevance calls one question sends an API provider at once by default: a self-queried
limit or ``top_k`` up to this is graded in one round (the critical path: one call's latency)."""


class GraderDefault(NamedTuple):
    """A grader's defaults under a provider, used where ``[graders.<kind>]`` leaves them unset."""

    combine: CombineName
    """How the model's verdict and the critic's probability decide (``graders.Combine``)."""
    threshold: float | None = None
    """The critic probability a verdict must clear; None: the critic's own, chosen on dev."""


def shipped_judge(path: Path | None) -> ReaderCritic:
    """The trained reader-critic (``judge.path``, else the shipped one): every profile's default."""
    from selfrag.reading import default_judge

    return default_judge(path)


def _no_probe(llm: LLMSettings, timeout_s: float) -> dict[str, Any]:
    return {"ok": True}


def _label(llm: LLMSettings) -> str:
    return f"{llm.provider}/{llm.model}"


@dataclass(frozen=True)
class ProviderProfile:
    """One provider (``llm.provider``): how to build its models, and how runs on it behave by default.

    Every behaviour field is the value a ``profile`` / unset setting resolves to; an explicit
    setting (``workflow.*``, ``graders.*``) always wins.
    """

    name: str
    """The name settings select it by (``llm.provider = "<name>"``)."""
    chat_model: Callable[[LLMSettings], BaseChatModel]
    """Builds the chat model from ``[llm]``: it plans, grades, rewrites and writes answers."""
    embeddings: Callable[[EmbeddingSettings], Embeddings] | None = None
    """Builds embeddings from ``[embeddings]`` when ``embeddings.provider`` names this profile;
    None: this provider has no embeddings (pair it with another profile's)."""
    judge: Callable[[Path | None], ReaderCritic] = shipped_judge
    """Builds the trained reader-critic from ``judge.path``."""
    self_query_mode: SelfQueryMode = "auto"
    """``workflow.self_query_mode = "profile"`` resolves to this."""
    self_query_reason: str | None = None
    """Why the model is not asked for a structured query, when the mode is ``rules`` (every plan says so)."""
    answer_strategy: AnswerStrategy = "hybrid"
    """``workflow.answer_strategy = "profile"`` resolves to this."""
    speculate: bool = True
    """``workflow.speculate`` unset resolves to this: a provider serving calls at once gains a
    model latency; one running a call at a time would only queue speculative calls."""
    parallel_checks: bool = True
    """Run the groundedness and usefulness checks at once (off for a model that runs one call at a time)."""
    grade_concurrency: int = API_GRADE_ROUND
    """``workflow.grade_concurrency`` unset resolves to this."""
    graders: Mapping[str, GraderDefault] = field(default_factory=dict)
    """Grader defaults by kind; a kind not named here uses the grader's own ``profiles`` entry,
    else ``llm``."""
    ready: Callable[[LLMSettings, float], dict[str, Any]] = _no_probe
    """The ``/readyz`` probe of the chat model, given ``[llm]`` and a time limit in seconds: a dict
    with ``ok`` (and ``error`` when not ok); it must not raise for an unreachable provider."""
    embeddings_ready: Callable[[EmbeddingSettings, float], dict[str, Any]] | None = None
    """The probe of this profile's embeddings; None: nothing to probe (in-process)."""
    describe: Callable[[LLMSettings], str] = _label
    """A short ``provider/model`` label for traces and logs."""

    def grader_default(self, kind: str, own: Mapping[str, str]) -> GraderDefault:
        """The defaults of grader ``kind`` under this profile; ``own`` is the grader's ``profiles``."""
        named = self.graders.get(kind)
        if named is not None:
            return named
        combine = own.get(self.name, "llm")
        return GraderDefault(combine)  # type: ignore[arg-type]  # a grader's profiles name Combine values
