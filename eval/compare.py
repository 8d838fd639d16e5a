"""Compare two evaluation runs case by case, and gate on regressions.

Two runs of the same dataset differ by noise as much as by the change under test, and with a
few hundred cases the noise is large. So the comparison is *paired*: only cases present in both
runs count (matched by ``id``), each metric's delta B − A comes with a paired-bootstrap 95%
interval, and per-case correctness gets McNemar's exact test, which looks only at the cases
whose verdict flipped. The flipped cases are listed because they are what a reviewer reads.

Only ``cases.jsonl`` of each run directory is read: the aggregates in ``summary.json`` cover all
of a run's cases, not the paired ones, so they would mislead when the case sets differ. A null
metric value (e.g. ``recall_at_4`` without gold ids) leaves that case out of that metric only.

Example::

    comparison = compare_runs("runs/baseline", "runs/candidate")
    print(render_comparison(comparison))
    failures = check_regressions(comparison, ["answer_f1:0.02", "latency_s:0.5"])
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval._paired_stats import mcnemar_exact, paired_bootstrap
from eval.config_diff import SettingDiff, manifest_diff, read_manifest
from eval.datasets import DatasetError
from selfrag.errors import UsageError
from selfrag.jsonl import json_objects

__all__ = [
    "HIGHER_IS_BETTER",
    "LOWER_IS_BETTER",
    "Comparison",
    "McNemarTest",
    "MetricDelta",
    "check_regressions",
    "compare_runs",
    "mcnemar_exact",
    "paired_bootstrap",
    "parse_gates",
    "render_comparison",
]

HIGHER_IS_BETTER = (
    "answer_exact", "answer_f1", "answer_contains", "answer_correct", "judged_correct", "faithfulness",
    "context_precision", "context_recall", "answer_relevancy", "abstention_ok", "recall_at_4", "mrr", "filter_ok",
    "grounded",
)
LOWER_IS_BETTER = ("latency_s", "llm_calls")
"""Any other numeric per-case field may be compared too; it is taken as higher-is-better."""


@dataclass(frozen=True)
class MetricDelta:
    """One metric over the cases that have a value in both runs."""

    metric: str
    n: int
    """Paired cases with a value in both runs."""
    mean_a: float | None
    mean_b: float | None
    delta: float | None
    """mean B − mean A (the mean of the per-case differences); None if ``n`` is 0."""
    ci_low: float | None
    """Paired-bootstrap 95% interval of ``delta``."""
    ci_high: float | None
    lower_is_better: bool


@dataclass(frozen=True)
class McNemarTest:
    """McNemar's exact test on per-case correctness: only discordant pairs carry information."""

    b: int
    """Cases A got right and B got wrong."""
    c: int
    """Cases A got wrong and B got right."""
    p_value: float
    """Two-sided exact binomial p-value of ``b`` against ``b + c`` fair coin flips."""


@dataclass(frozen=True)
class Comparison:
    """Run B against run A on their shared cases."""

    run_a: Path
    run_b: Path
    paired: int
    """Cases (by id) present in both runs."""
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    metrics: tuple[MetricDelta, ...]
    correctness: str
    """The 0/1 metric that defines a correct case (a value >= 0.5 is correct)."""
    mcnemar: McNemarTest
    broke: tuple[str, ...]
    """Ids of cases A got right and B got wrong, in A's order."""
    fixed: tuple[str, ...]
    """Ids of cases A got wrong and B got right."""
    config: tuple[SettingDiff, ...] = ()
    """The settings that differ between the runs' manifests (``eval.config_diff``)."""

    def metric(self, name: str) -> MetricDelta:
        """The delta of one metric.

        Raises:
            UsageError: the metric was not compared.
        """
        for m in self.metrics:
            if m.metric == name:
                return m
        raise UsageError(f"metric {name!r} was not compared (compared: {', '.join(m.metric for m in self.metrics)})")


def compare_runs(
    run_a: str | Path,
    run_b: str | Path,
    *,
    metrics: Iterable[str] | None = None,
    correctness: str = "answer_contains",
    n_boot: int = 2000,
    seed: int = 0,
) -> Comparison:
    """Compare run B with run A (directories holding ``cases.jsonl``) on the cases both contain.

    Args:
        metrics: per-case fields to compare; by default every known metric either run has a value for.
        correctness: the 0/1 per-case field that McNemar's test and the flip lists use.
        n_boot: bootstrap resamples per metric; ``seed`` makes the intervals reproducible.

    Raises:
        DatasetError: a run directory or its ``cases.jsonl`` is missing or invalid.
        UsageError: a requested metric appears in neither run, or ``n_boot`` < 1.
    """
    if n_boot < 1:
        raise UsageError(f"n_boot must be at least 1, got {n_boot}")
    a, b = _read_cases(Path(run_a)), _read_cases(Path(run_b))
    shared = [i for i in a if i in b]
    present = {k for run in (a, b) for row in run.values() for k, v in row.items() if _is_number(v)}
    if metrics is None:
        names = [m for m in (*HIGHER_IS_BETTER, *LOWER_IS_BETTER) if m in present]
    else:
        names = list(dict.fromkeys(metrics))
        unknown = [m for m in names if m not in present and m not in (*HIGHER_IS_BETTER, *LOWER_IS_BETTER)]
        if unknown:
            raise UsageError(f"unknown metric {unknown[0]!r} (known: {', '.join(sorted(present))})")
    deltas = tuple(_delta(name, [(a[i].get(name), b[i].get(name)) for i in shared], n_boot, seed) for name in names)

    broke: list[str] = []
    fixed: list[str] = []
    for i in shared:
        va, vb = _number(a[i].get(correctness)), _number(b[i].get(correctness))
        if va is None or vb is None or (va >= 0.5) == (vb >= 0.5):
            continue
        (broke if va >= 0.5 else fixed).append(i)
    return Comparison(
        run_a=Path(run_a), run_b=Path(run_b), paired=len(shared),
        only_a=tuple(i for i in a if i not in b), only_b=tuple(i for i in b if i not in a),
        metrics=deltas, correctness=correctness,
        mcnemar=McNemarTest(len(broke), len(fixed), mcnemar_exact(len(broke), len(fixed))),
        broke=tuple(broke), fixed=tuple(fixed),
        config=tuple(manifest_diff(read_manifest(Path(run_a)), read_manifest(Path(run_b)))),
    )  # fmt: skip


def parse_gates(gates: Iterable[str], extra: Iterable[str] = ()) -> list[tuple[str, float]]:
    """Gates like ``"answer_f1:0.02"`` as ``(metric, tolerance)``, checked before any run is read.

    Raises:
        UsageError: a gate is malformed or names a metric ``eval compare`` does not know (nor ``extra``).
    """
    names = (*HIGHER_IS_BETTER, *LOWER_IS_BETTER, *extra)
    out: list[tuple[str, float]] = []
    for gate in gates:
        name, _, raw = gate.strip().partition(":")
        try:
            tolerance = float(raw) if raw.strip() else 0.0
        except ValueError:
            tolerance = -1.0
        if not name or not math.isfinite(tolerance) or tolerance < 0:
            raise UsageError(f"bad regression gate {gate!r}: expected METRIC:TOLERANCE, e.g. answer_f1:0.02")
        if name not in names:
            raise UsageError(f"unknown metric {name!r} in gate {gate!r} (known: {', '.join(names)})")
        out.append((name, tolerance))
    return out


def check_regressions(comparison: Comparison, gates: Iterable[str]) -> list[str]:
    """Check gates like ``"answer_f1:0.02"``; return one message per gate that failed (empty: all passed).

    A gate ``metric:tolerance`` fails when the metric got worse by more than ``tolerance``: its
    delta is below −tolerance (or above +tolerance for ``latency_s`` and ``llm_calls``, where lower
    is better). ``metric`` alone means tolerance 0. A gated metric without paired values fails:
    a gate that cannot be checked must not pass silently.

    Raises:
        UsageError: a gate is malformed or names an unknown metric (``parse_gates``).
    """
    known = {m.metric: m for m in comparison.metrics}
    failures: list[str] = []
    for name, tolerance in parse_gates(gates, known):
        m = known.get(name)
        if m is None or m.delta is None or m.mean_a is None or m.mean_b is None:
            failures.append(f"{name}: no case has a value in both runs, so the gate cannot be checked")
            continue
        worse = m.delta > tolerance if m.lower_is_better else m.delta < -tolerance
        if worse:
            direction = "rose" if m.lower_is_better else "fell"
            failures.append(
                f"{name} {direction} by {abs(m.delta):.4g} ({m.mean_a:.4g} → {m.mean_b:.4g} on {m.n} cases), "
                f"more than the {tolerance:g} allowed"
            )
    return failures


def render_comparison(comparison: Comparison) -> str:
    """The comparison as Markdown: a metrics table, McNemar's test and the flipped cases."""
    c = comparison
    lines = [
        f"## {c.run_b.name or c.run_b} (B) vs {c.run_a.name or c.run_a} (A)",
        "",
        f"{c.paired} paired cases ({len(c.only_a)} only in A, {len(c.only_b)} only in B).",
        "",
        "| metric | A | B | Δ (B−A) | 95% CI | n |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for m in c.metrics:
        arrow = "↓" if m.lower_is_better else "↑"
        ci = "—" if m.ci_low is None or m.ci_high is None else f"[{m.ci_low:+.3f}, {m.ci_high:+.3f}]"
        delta = "—" if m.delta is None else f"{m.delta:+.3f}"
        lines.append(f"| {m.metric} {arrow} | {_fmt(m.mean_a)} | {_fmt(m.mean_b)} | {delta} | {ci} | {m.n} |")
    t = c.mcnemar
    lines += [
        "",
        f"Correctness (`{c.correctness}`): {t.b} cases right in A and wrong in B, {t.c} wrong in A and right "
        f"in B; McNemar exact p = {t.p_value:.3g}.",
    ]
    if c.broke:
        lines.append(f"- A right → B wrong: {', '.join(c.broke)}")
    if c.fixed:
        lines.append(f"- A wrong → B right: {', '.join(c.fixed)}")
    lines += ["", "### Settings that differ", ""]
    if c.config:
        lines += ["| setting | A | B |", "|---|---|---|"]
        lines += [f"| {d.key} | {_cell(d.a)} | {_cell(d.b)} |" for d in c.config]
    else:
        lines.append("None: both manifests hold the same settings.")
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    text = "—" if value is None else value if isinstance(value, str) else json.dumps(value)
    return text.replace("|", "\\|")[:120]


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)  # bools count as 0/1


def _number(value: Any) -> float | None:
    return float(value) if _is_number(value) else None


def _delta(name: str, pairs: list[tuple[Any, Any]], n_boot: int, seed: int) -> MetricDelta:
    lower = name in LOWER_IS_BETTER
    both = [(x, y) for x, y in ((_number(p), _number(q)) for p, q in pairs) if x is not None and y is not None]
    if not both:
        return MetricDelta(name, 0, None, None, None, None, None, lower)
    n = len(both)
    diffs = [y - x for x, y in both]
    low, high = paired_bootstrap(diffs, n_boot=n_boot, seed=seed)
    mean_a, mean_b = sum(x for x, _ in both) / n, sum(y for _, y in both) / n
    return MetricDelta(name, n, mean_a, mean_b, sum(diffs) / n, low, high, lower)


def _read_cases(run: Path) -> dict[str, dict[str, Any]]:
    """A run's ``cases.jsonl`` as id → row, in file order."""
    path = run / "cases.jsonl"
    if not run.is_dir():
        raise DatasetError(f"run directory {run} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc.strerror or exc}") from exc
    rows: dict[str, dict[str, Any]] = {}
    for n, row in json_objects(text, str(path), DatasetError):
        if not isinstance(row.get("id"), str):
            raise DatasetError(f"{path}:{n}: expected an object with a string 'id'")
        if row["id"] in rows:
            raise DatasetError(f"{path}:{n}: case id {row['id']!r} appears twice")
        rows[row["id"]] = row
    return rows
