"""The shared machinery of the three graders: prompt → structured call → retries → policy → combine.

Each grader subclass only declares its kind, output schema, positive label, default prompt and its
signal: the trained critic's calibrated probability (``selfrag.reading``) for its judgement. The
critic decides alone offline (``combine=signal``) and is the floor under an API model's verdicts
(``both``). Every result names who decided: the critic's artifact, the model, or both. Graders are
thread-safe and stateless between calls, so the workflow can grade many documents at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel

from graders.policy import FailurePolicy
from graders.prompts import PromptSpec
from graders.verdicts import GradeResult, GraderKind
from selfrag.errors import GraderError, describe
from selfrag.outages import as_dependency_error, is_outage
from selfrag.reading import Critic, CriticTask
from selfrag.retry import Attempts, RetryPolicy, call_with_retries

__all__ = ["CaseInputs", "Combine", "GraderConfig", "StructuredGrader", "model_label"]


class Combine(StrEnum):
    """How the LLM verdict and the deterministic signal make the final decision."""

    LLM = "llm"
    """The LLM verdict alone (the signal is still recorded when computed)."""
    SIGNAL = "signal"
    """The signal against the threshold alone; no LLM call."""
    BOTH = "both"
    """Pass only if the LLM says yes and the signal clears the threshold."""
    EITHER = "either"
    """Pass if the LLM says yes or the signal clears the threshold."""


class GraderConfig(NamedTuple):
    """Everything that tunes one grader; immutable so it can be shared and recorded."""

    policy: FailurePolicy = FailurePolicy.FAIL_CLOSED
    """Decision when no valid verdict could be had."""
    retry: RetryPolicy = RetryPolicy()
    method: str = "json_schema"
    """Structured-output method passed to ``with_structured_output``."""
    prompt: PromptSpec | None = None
    """Overrides the grader's default prompt (tuning experiments)."""
    combine: Combine = Combine.LLM
    threshold: float | None = None
    """Signal threshold for SIGNAL / BOTH / EITHER; None takes the critic's own, chosen on dev."""


class CaseInputs(NamedTuple):
    """What a labelled case gives a grader; each grader reads the fields it needs."""

    question: str = ""
    documents: Sequence[Mapping[str, Any]] = ()
    answer: str = ""
    score: float | None = None
    """The retrieval similarity, when the case records one."""


def model_label(model: BaseChatModel | None) -> str:
    if model is None:
        return "none"
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


class StructuredGrader:
    """Base class; a subclass sets the ClassVars, implements ``grade_case`` and ``case_problem``
    (and ``_signal`` when it has a deterministic signal), and registers with ``graders.register``."""

    kind: ClassVar[GraderKind]
    schema: ClassVar[type[BaseModel]]
    """The verdict model the LLM fills (a ``Literal`` verdict and a reason)."""
    positive: ClassVar[str]
    negative: ClassVar[str]
    default_prompt: ClassVar[PromptSpec]
    fields: ClassVar[frozenset[str]]
    """The template fields its prompt is filled with; a tuned prompt may use these and no others."""
    critic_task: ClassVar[CriticTask | None] = None
    """The critic judgement that is this grader's signal; None for a grader with a signal of its own."""
    profiles: ClassVar[Mapping[str, str]] = {}
    """Default ``combine`` per provider (``llm.provider``) when the settings leave it unset and the
    provider profile does not name this kind (``selfrag.profiles``: the profiles name the built-in
    three; a grader added later declares its own here)."""

    def grade_case(self, case: CaseInputs) -> GradeResult:
        """Grade a labelled case's inputs (the harness's one way to call any grader)."""
        raise NotImplementedError

    @classmethod
    def case_problem(cls, case: CaseInputs) -> str | None:
        """Why a case with these inputs cannot be graded by this grader (None: it can)."""
        raise NotImplementedError

    def __init__(self, model: BaseChatModel | None, config: GraderConfig = GraderConfig(),
                 critic: Critic | None = None) -> None:
        if model is None and config.combine is not Combine.SIGNAL:
            raise ValueError(f"{self.kind} grader needs a chat model unless combine=signal")
        if critic is None and config.combine is not Combine.LLM and self.critic_task is not None:
            raise ValueError(f"{self.kind} grader needs a critic for combine={config.combine.value}")
        self.model = model
        self.critic = critic
        self.config = config
        self.prompt = config.prompt or self.default_prompt
        # Bound on first use: a grader that combines with the critic's signal alone never calls the
        # model, so a model without structured output (a fake, a plain completion model) still builds.
        self._structured: Runnable[Any, Any] | None = None

    @property
    def prompt_version(self) -> str:
        return self.prompt.version

    def messages(self, fields: Mapping[str, str]) -> list[BaseMessage]:
        """The rendered prompt; public so experiments and caches can key on it."""
        return [SystemMessage(self.prompt.system.format()), HumanMessage(self.prompt.user.format(**fields))]

    @property
    def threshold(self) -> float:
        """The signal's threshold: the configured one, else the critic's own (chosen on dev)."""
        if self.config.threshold is not None:
            return self.config.threshold
        if self.critic is not None and self.critic_task is not None:
            return self.critic.threshold(self.critic_task)
        return 0.5

    def _signal(self, raw: Mapping[str, Any]) -> float | None:
        return None

    def _signal_name(self) -> str:
        return f"critic {self.critic_task}" if self.critic_task is not None else "signal"

    def _decider(self) -> str:
        """Who decides a verdict: the critic alone, the model alone, or both."""
        critic = self.critic.name if self.critic is not None else ("none" if self.critic_task else "signal")
        if self.config.combine is Combine.SIGNAL:
            return critic
        if self.config.combine is Combine.LLM:
            return model_label(self.model)
        return f"{model_label(self.model)}+{critic}"

    def _grade(self, fields: Mapping[str, str], raw: Mapping[str, Any], *, subject: str | None = None,
               score: float | None = None) -> GradeResult:
        """One verdict; ``score`` is the signal when the caller computed it already (batched)."""
        if score is None and self.config.combine is not Combine.LLM:
            score = self._signal(raw)
        common = dict(kind=self.kind, prompt_version=self.prompt.version, model=self._decider(), subject=subject)
        threshold = self.threshold
        if self.config.combine is Combine.SIGNAL:
            if score is None:
                raise ValueError(f"{self.kind} grader has no signal to grade with")
            ok = score >= threshold
            return GradeResult(
                passed=ok, label=self.positive if ok else self.negative, attempts=0, score=score,
                reason=f"{self._signal_name()} {score:.2f} {'>=' if ok else '<'} threshold {threshold:.2f}",
                **common,  # type: ignore[arg-type]
            )
        assert self.model is not None
        if self._structured is None:
            self._structured = self.model.with_structured_output(self.schema, method=self.config.method)
        runnable = self._structured
        messages = self.messages(fields)
        made = Attempts()  # a non-retryable error stops after the first

        try:
            parsed, attempts = call_with_retries(lambda: runnable.invoke(messages), self.config.retry, attempts=made)
        except Exception as exc:  # noqa: BLE001 - every failure goes through the explicit policy
            return self._on_failure(exc, score, common, made.made)
        verdict: Any = parsed  # a BaseModel with ``verdict``/``reason`` (the grader's schema)
        label = str(verdict.verdict)
        llm_ok = label == self.positive
        ok = self._combine(llm_ok, score)
        reason = str(getattr(verdict, "reason", ""))
        if ok != llm_ok and score is not None:
            # The critic overrode the model: say so, with both sides, so the trace explains it.
            said = f"the model said {label}" + (f" ({reason})" if reason else "")
            reason = (f"{self._signal_name()} {score:.2f} {'>=' if ok else '<'} threshold {threshold:.2f} "
                      f"overrode the model's verdict; {said}")
        return GradeResult(
            passed=ok, label=self.positive if ok else self.negative, reason=reason,
            attempts=attempts, score=score, llm_label=label, **common,  # type: ignore[arg-type]
        )

    def _combine(self, llm_ok: bool, score: float | None) -> bool:
        if score is None or self.config.combine is Combine.LLM:
            return llm_ok
        sig_ok = score >= self.threshold
        if self.config.combine is Combine.BOTH:
            return llm_ok and sig_ok
        return llm_ok or sig_ok

    def _on_failure(self, exc: BaseException, score: float | None, common: dict[str, Any], attempts: int) -> GradeResult:
        if is_outage(exc):
            # The model server could not be reached: no verdict was had, and none may be made up
            # (fail-closed would call every document irrelevant and the run would abstain).
            raise as_dependency_error(exc) from exc
        error = describe(exc, 200)
        policy = self.config.policy
        if policy is FailurePolicy.RAISE:
            raise GraderError(
                f"the {self.kind} grader failed after {attempts} attempt{'s' if attempts != 1 else ''}", detail=error
            ) from exc
        ok = policy is FailurePolicy.FAIL_OPEN
        return GradeResult(
            passed=ok, label=self.positive if ok else self.negative, failed=True, error=error,
            attempts=attempts, score=score,
            reason=f"grader failed; policy {policy.value} decided {'pass' if ok else 'fail'}", **common,
        )
