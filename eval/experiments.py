"""Grader-tuning experiments: run grader variants over labelled cases and measure them.

Cost drives the design: a local model call takes about half a second. Variants are grouped by
what the LLM actually sees (model settings, structured-output method, prompt); each group's
verdicts are computed once and every variant in it (different ``combine``, ``threshold`` or
``policy``) is decided from them, exactly as ``graders.base.StructuredGrader`` would decide.
The deterministic signal is computed once per case. Signal-only variants make no call at all.

Splits are explicit: tune on ``split="dev"``, then ``choose_and_report`` picks the best dev
variant and evaluates it once on test, recording what was chosen and why.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.caches import BaseCache
from langchain_core.language_models.chat_models import BaseChatModel

from eval.cache import SQLiteLLMCache, with_cache
from eval.classification import classify
from eval.datasets import GraderCase
from eval.experiment_report import write_experiment
from eval.experiment_results import CaseOutcome, Choice, ExperimentResult, LLMGroup, VariantResult, summary_line
from eval.grading import Progress, decide, grade_all, grade_case
from eval.sweep import sweep
from eval.variants import Variant, VariantsError, default_variants, load_variants
from graders import GRADERS, Combine, GraderConfig, GradeResult, model_label
from selfrag.errors import UsageError
from selfrag.providers.factory import make_chat_model
from selfrag.reading import Critic, default_judge
from selfrag.retry import RetryPolicy
from selfrag.settings import LLMSettings

__all__ = [
    "CaseOutcome",
    "Choice",
    "ExperimentResult",
    "LLMGroup",
    "ModelFactory",
    "Progress",
    "Variant",
    "VariantResult",
    "VariantsError",
    "choose_and_report",
    "decide",
    "default_variants",
    "load_variants",
    "run_grader_experiment",
    "summary_line",
    "write_experiment",
]

ModelFactory = Callable[[Variant], BaseChatModel]
"""Builds the chat model for a variant (tests pass scripted models); called once per LLM group."""

def _group_key(settings: LLMSettings, method: str, prompt: tuple[str, ...]) -> str:
    # The api key never changes the verdict; leaving it out keeps it out of hashes and reports.
    ident = {"llm": settings.model_dump(mode="json", exclude={"api_key"}), "method": method, "prompt": prompt}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:10]


def run_grader_experiment(
    cases: Sequence[GraderCase],
    kind: str,
    variants: Sequence[Variant] | None = None,
    *,
    llm: LLMSettings | None = None,
    model_factory: ModelFactory | None = None,
    cache: BaseCache | None = None,
    concurrency: int = 2,
    split: str | None = None,
    retry: RetryPolicy = RetryPolicy(),
    sweep_steps: int = 21,
    resamples: int = 1000,
    seed: int = 0,
    progress: Progress | None = None,
    critic: Critic | None = None,
) -> ExperimentResult:
    """Grade ``cases`` of ``kind`` (in ``split``, or all) with every variant and measure each.

    Args:
        variants: None runs ``default_variants(kind)``.
        llm: base settings the variants' ``llm`` overrides apply to (default: ``LLMSettings()``).
        model_factory: builds each LLM group's model instead of ``make_chat_model``.
        critic: the signal every non-``llm`` variant combines with (default: the shipped reader-critic).
        cache: a LangChain cache attached to every model; an ``eval.cache.SQLiteLLMCache`` is
            scoped by the model's fingerprint (``with_cache``) so two local GGUF files never share replies.

    Raises:
        UsageError: unknown kind, no cases left after filtering, no variants, bad variant.
        GraderError: a variant with policy ``raise`` met a grader failure.
    """
    if kind not in GRADERS:
        raise UsageError(f"unknown grader kind {kind!r} (choose from {', '.join(GRADERS)})")
    chosen = [c for c in cases if c.kind == kind and (split is None or c.split == split)]
    if not chosen:
        raise UsageError(f"no {kind} cases" + (f" in split {split!r}" if split else "") + " to run")
    variants = list(variants) if variants is not None else default_variants(kind)
    if not variants:
        raise VariantsError("no variants to run")
    names = [v.name for v in variants]
    if len(set(names)) != len(names):
        raise VariantsError(f"variant names repeat: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
    for v in variants:
        if v.prompt is not None:
            v.prompt.check(kind)
    cls, base = GRADERS[kind], llm or LLMSettings()
    if critic is None and cls.critic_task is not None:
        critic = default_judge()
    signal_grader = cls(None, GraderConfig(combine=Combine.SIGNAL, threshold=0.0), critic=critic)
    scores = [grade_case(signal_grader, c).score for c in chosen]

    members: dict[str, list[Variant]] = {}
    setups: dict[str, tuple[LLMSettings, GraderConfig]] = {}
    for v in variants:
        if not v.uses_llm:
            continue
        settings = v.settings(base)
        method = v.method or settings.structured_output_method
        prompt = v.prompt.spec() if v.prompt is not None else cls.default_prompt
        key = _group_key(settings, method, tuple(prompt))
        members.setdefault(key, []).append(v)
        setups[key] = (settings, GraderConfig(retry=retry, method=method, prompt=prompt, combine=Combine.LLM))

    models: dict[str, BaseChatModel] = {}  # make_chat_model once per settings: the local model loads slowly
    verdicts: dict[str, list[GradeResult]] = {}
    groups: list[LLMGroup] = []
    for key, group in members.items():
        settings, config = setups[key]
        if model_factory is not None:
            model = model_factory(group[0])
        else:
            skey = settings.model_dump_json()
            if skey not in models:
                models[skey] = make_chat_model(settings)
            model = models[skey]
        if isinstance(cache, SQLiteLLMCache):
            with_cache(model, cache)  # scoped by the model's fingerprint, as the eval runner does
        elif cache is not None:
            model.cache = cache
        label = f"{model_label(model)} {config.prompt.version if config.prompt else ''}".strip()
        started = time.perf_counter()
        verdicts[key] = grade_all(cls(model, config), chosen, concurrency, label, progress)
        groups.append(LLMGroup(
            key=key, model=model_label(model), prompt_version=config.prompt.version if config.prompt else "",
            method=config.method, variants=[v.name for v in group], cases=len(chosen),
            attempts=sum(r.attempts for r in verdicts[key]), failures=sum(r.failed for r in verdicts[key]),
            seconds=round(time.perf_counter() - started, 3),
        ))

    key_of = {v.name: key for key, group in members.items() for v in group}
    results = [
        _variant_result(v, chosen, verdicts.get(key_of.get(v.name, "")), scores, key_of.get(v.name), sweep_steps, resamples, seed)
        for v in variants
    ]
    return ExperimentResult(kind, split, results, groups)


def _variant_result(
    v: Variant,
    cases: Sequence[GraderCase],
    verdicts: Sequence[GradeResult] | None,
    scores: Sequence[float | None],
    group: str | None,
    steps: int,
    resamples: int,
    seed: int,
) -> VariantResult:
    shared: Sequence[GradeResult | None] = verdicts if verdicts is not None else [None] * len(cases)
    labels = [c.label for c in cases]

    def predict(t: float) -> list[bool]:
        at = v.model_copy(update={"threshold": t})
        return [decide(at, r, s)[0] for r, s in zip(shared, scores, strict=True)]

    outcomes = []
    for case, r, s in zip(cases, shared, scores, strict=True):
        ok, reason = decide(v, r, s)
        outcomes.append(CaseOutcome(
            id=case.id, label=case.label, predicted=ok, score=s, llm_label=r.llm_label if r else None,
            failed=bool(r and r.failed), reason=reason, error=r.error if r else None,
        ))
    present = [s for s in scores if s is not None]
    swept = None
    if v.combine is not Combine.LLM and len(present) == len(scores):  # the threshold plays no part under llm
        swept = sweep(labels, present, predict, current=v.threshold, steps=steps)
    report = classify(labels, [o.predicted for o in outcomes], resamples=resamples, seed=seed)
    return VariantResult(v, report, outcomes, swept, group)


def choose_and_report(
    result_dev: ExperimentResult,
    cases_test: Sequence[GraderCase],
    *,
    metric: str = "balanced_accuracy",
    tune_threshold: bool = False,
    **run: Any,
) -> Choice:
    """Pick the variant with the best dev ``metric`` (ties: MCC, then list order); run it once on test.

    ``cases_test`` may be the whole dataset: only its ``split="test"`` cases are graded.

    With ``tune_threshold``, each swept variant also competes at its sweep's best dev threshold.
    ``run`` takes ``run_grader_experiment``'s keywords (llm, model_factory, cache, ...).

    Raises:
        UsageError: ``result_dev`` was not run on the dev split, or the test cases reuse dev ids.
    """
    if result_dev.split != "dev":
        raise UsageError(f"choose on the dev split; this result was run on split {result_dev.split!r}")
    test_ids = {c.id for c in cases_test if c.kind == result_dev.kind and c.split == "test"}
    overlap = sorted(set(result_dev.case_ids) & test_ids)
    if overlap:
        raise UsageError(f"test cases reuse dev case ids: {', '.join(overlap[:5])}")
    candidates: list[tuple[Variant, float, float, str]] = []
    for vr in result_dev.variants:
        value, mcc = vr.report.value(metric), vr.report.value("mcc")
        candidates.append((vr.variant, _num(value), _num(mcc), f"{_fmt(value)} at threshold {vr.variant.threshold:g}"))
        if tune_threshold and vr.sweep is not None:
            best = vr.sweep.best
            tuned = vr.variant.model_copy(update={"name": f"{vr.name}@{best.threshold:g}", "threshold": best.threshold})
            candidates.append((tuned, _num(best.metrics.get(metric)), _num(best.metrics.get("mcc")), f"{_fmt(best.metrics.get(metric))} at its sweep's best threshold {best.threshold:g}"))
    ranked = sorted(range(len(candidates)), key=lambda i: (-candidates[i][1], -candidates[i][2], i))
    win = candidates[ranked[0]]
    reason = f"{win[0].name!r} has the best dev {metric.replace('_', ' ')} of {len(candidates)} candidates: {win[3]}"
    if len(ranked) > 1:
        second = candidates[ranked[1]]
        reason += f"; runner-up {second[0].name!r} {second[3]}"
        if (second[1], second[2]) == (win[1], win[2]):
            reason += " (a tie, broken by list order)"
    test = run_grader_experiment(cases_test, result_dev.kind, [win[0]], split="test", **run)
    return Choice(win[0], metric, reason + f"; evaluated once on {len(test.case_ids)} test cases", result_dev, test)


def _num(value: float | None) -> float:
    return -2.0 if value is None else value  # below every metric's range: undefined never wins


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"
