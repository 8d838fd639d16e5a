"""What a grader experiment produces: per-case outcomes, per-variant metrics, LLM cost, the choice.

Plain frozen dataclasses with ``to_dict`` for ``results.json``; ``summary_line`` is the one
dictionary a CLI prints as its last line with ``--json``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from eval.classification import METRICS, ClassificationReport
from eval.sweep import Sweep
from eval.variants import Variant

__all__ = ["CaseOutcome", "Choice", "ExperimentResult", "LLMGroup", "VariantResult", "summary_line"]

Outcome = Literal["tp", "fp", "tn", "fn"]


@dataclass(frozen=True)
class CaseOutcome:
    """One case as one variant decided it."""

    id: str
    label: bool
    predicted: bool
    score: float | None
    """The grader's deterministic signal, whatever the variant's combine mode."""
    llm_label: str | None
    """The LLM's verdict; None for a signal-only variant or when the LLM failed."""
    failed: bool
    reason: str
    error: str | None = None

    @property
    def outcome(self) -> Outcome:
        if self.predicted:
            return "tp" if self.label else "fp"
        return "fn" if self.label else "tn"

    @property
    def wrongness(self) -> float:
        """How strongly the signal backs the wrong decision: high score on a false positive,
        low score on a false negative. Orders the misses a reader should look at first."""
        if self.score is None:
            return -math.inf
        return self.score if self.outcome == "fp" else 1.0 - self.score

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "label": self.label, "predicted": self.predicted, "outcome": self.outcome,
            "score": self.score, "llm_label": self.llm_label, "failed": self.failed,
            "reason": self.reason, "error": self.error,
        }


@dataclass(frozen=True)
class VariantResult:
    """A variant's decisions on every case, their metrics, and its threshold sweep if it has one."""

    variant: Variant
    report: ClassificationReport
    outcomes: list[CaseOutcome]
    sweep: Sweep | None
    group: str | None
    """Key of the ``LLMGroup`` whose verdicts this variant used; None for the signal alone."""

    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def failures(self) -> int:
        return sum(o.failed for o in self.outcomes)

    def misses(self, outcome: Literal["fp", "fn"] | None = None, limit: int = 10) -> list[CaseOutcome]:
        """False positives and/or negatives, the signal's most confident wrong ones first."""
        wrong = [o for o in self.outcomes if o.outcome in ((outcome,) if outcome else ("fp", "fn"))]
        return sorted(wrong, key=lambda o: -o.wrongness)[:limit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "variant": self.variant.public_dict(),
            "group": self.group,
            "failures": self.failures,
            **self.report.to_dict(),
            "sweep": self.sweep.to_dict() if self.sweep else None,
            "worst_misses": {"fp": [o.to_dict() for o in self.misses("fp")], "fn": [o.to_dict() for o in self.misses("fn")]},
            "cases": [o.to_dict() for o in self.outcomes],
        }


@dataclass(frozen=True)
class LLMGroup:
    """Variants sharing one (model, prompt, method): their LLM verdicts were computed once."""

    key: str
    model: str
    prompt_version: str
    method: str
    variants: list[str]
    cases: int
    attempts: int
    """Model calls made, retries included (a cache hit still counts as an attempt)."""
    failures: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ExperimentResult:
    """Every variant of one grader kind on one set of cases."""

    kind: str
    split: str | None
    variants: list[VariantResult]
    groups: list[LLMGroup]

    @property
    def case_ids(self) -> list[str]:
        return [o.id for o in self.variants[0].outcomes] if self.variants else []

    @property
    def positives(self) -> int:
        return sum(o.label for o in self.variants[0].outcomes) if self.variants else 0

    def variant(self, name: str) -> VariantResult:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "split": self.split,
            "cases": len(self.case_ids),
            "positives": self.positives,
            "groups": [g.to_dict() for g in self.groups],
            "variants": [v.to_dict() for v in self.variants],
        }


@dataclass(frozen=True)
class Choice:
    """The variant picked on dev and its single evaluation on test."""

    chosen: Variant
    metric: str
    reason: str
    dev: ExperimentResult
    test: ExperimentResult

    def to_dict(self) -> dict[str, Any]:
        return {
            "chosen": self.chosen.public_dict(),
            "metric": self.metric,
            "reason": self.reason,
            "dev_split": self.dev.split,
            "test": summary_line(self.test)["variants"][0],
            "test_metrics": self.test.variants[0].report.to_dict(),
        }


def summary_line(result: ExperimentResult) -> dict[str, Any]:
    """``{"variants": [{"name", "n", "accuracy", ..., "mcc"}]}``: point values, rounded, None if undefined."""
    rows = []
    for v in result.variants:
        row: dict[str, Any] = {"name": v.name, "n": v.report.n}
        for metric in METRICS:
            value = v.report.value(metric)
            row[metric] = None if value is None else round(float(value), 4)
        rows.append(row)
    return {"variants": rows}
