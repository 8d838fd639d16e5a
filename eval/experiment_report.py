"""Write a grader experiment to a directory: ``results.json``, ``report.md`` and the sweep plots.

The markdown is for a person deciding which grader configuration to ship: metrics with their
intervals first (so a 0.05 difference on 30 cases is not mistaken for a win), then where the
errors are (confusion matrices, worst misses), then how far a threshold change would go.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from eval.classification import Estimate
from eval.experiment_results import CaseOutcome, Choice, ExperimentResult, VariantResult
from eval.sweep import plot_sweep

__all__ = ["render_markdown", "write_experiment"]

_COLUMNS = [("accuracy", "acc"), ("balanced_accuracy", "bal. acc"), ("precision", "P"), ("recall", "R"),
            ("f1", "F1"), ("kappa", "κ"), ("mcc", "MCC")]


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _est(e: Estimate) -> str:
    if e.value is None:
        return "—"
    return f"{e.value:.3f} [{_num(e.low)}, {_num(e.high)}]" if e.low is not None else f"{e.value:.3f}"


# A variant name is never cut (it is what a reader copies into --variants); other cells are.
def _cell(text: str, limit: int = 120) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "variant"


def _setup(v: VariantResult) -> str:
    var = v.variant
    thr = "" if var.combine.value == "llm" else f" @ {var.threshold:g}"
    if not var.uses_llm:
        return f"signal{thr}"
    prompt = var.prompt.version if var.prompt else "default"
    llm = ", ".join(f"{k}={val}" for k, val in var.llm.items() if k != "api_key")
    return f"{var.combine.value}{thr}, prompt {prompt}" + (f", {llm}" if llm else "")


def _misses(rows: list[CaseOutcome]) -> list[str]:
    out = ["| case | score | LLM | reason |", "|---|---|---|---|"]
    for o in rows:
        out.append(f"| {_cell(o.id, 40)} | {_num(o.score)} | {o.llm_label or ('failed' if o.failed else '—')} | {_cell(o.reason)} |")
    return out


def render_markdown(result: ExperimentResult, plots: dict[str, str], choice: Choice | None = None) -> str:
    """The report as markdown; ``plots`` maps variant names to their sweep image file names."""
    n, pos = len(result.case_ids), result.positives
    lines = [
        f"# Grader experiment: {result.kind}",
        "",
        f"Split **{result.split or 'all'}**: {n} cases, {pos} positive, {n - pos} negative. "
        "Intervals are 95% percentile bootstrap over cases (seeded); accuracy's Wilson interval is in results.json.",
        "",
        "## Metrics",
        "",
        "| variant | setup | n | " + " | ".join(h for _, h in _COLUMNS) + " | LLM failures |",
        "|---|---|---|" + "---|" * len(_COLUMNS) + "---|",
    ]
    for v in result.variants:
        cells = " | ".join(_est(v.report.metrics[m]) for m, _ in _COLUMNS)
        lines.append(f"| {_cell(v.name, 1000)} | {_cell(_setup(v), 80)} | {v.report.n} | {cells} | {v.failures} |")
    lines += ["", "## Confusion matrices", "", "| variant | tp | fp | tn | fn |", "|---|---|---|---|---|"]
    for v in result.variants:
        c = v.report.confusion
        lines.append(f"| {_cell(v.name, 1000)} | {c.tp} | {c.fp} | {c.tn} | {c.fn} |")
    if result.groups:
        lines += ["", "## LLM calls", "", "Verdicts are computed once per model and prompt and shared by the variants listed.", "",
                  "| model | prompt | method | variants | cases | attempts | failures | seconds |", "|---|---|---|---|---|---|---|---|"]
        for g in result.groups:
            lines.append(f"| {g.model} | {g.prompt_version} | {g.method} | {', '.join(g.variants)} | {g.cases} | {g.attempts} | {g.failures} | {g.seconds:.1f} |")
    swept = [v for v in result.variants if v.sweep is not None]
    if swept:
        lines += ["", "## Threshold sweeps", "",
                  "Best points are chosen on these same cases, so they flatter; confirm on the test split.", "",
                  "| variant | threshold | bal. acc | best threshold | best bal. acc | F1 at best | MCC at best |", "|---|---|---|---|---|---|---|"]
        for v in swept:
            assert v.sweep is not None
            b = v.sweep.best.metrics
            lines.append(f"| {_cell(v.name, 1000)} | {v.sweep.current:g} | {_num(v.report.value('balanced_accuracy'))} | "
                         f"{v.sweep.best.threshold:g} | {_num(b['balanced_accuracy'])} | {_num(b['f1'])} | {_num(b['mcc'])} |")
        lines.append("")
        lines += [f"![{v.name}]({plots[v.name]})" for v in swept if v.name in plots]
    lines += ["", "## Worst misses", "", "The signal's most confident wrong decisions first."]
    kinds: tuple[tuple[Literal["fp", "fn"], str], ...] = (("fp", "false positives"), ("fn", "false negatives"))
    for v in result.variants:
        for outcome, title in kinds:
            rows = v.misses(outcome, limit=5)
            if rows:
                lines += ["", f"### {v.name}: {title}", "", *_misses(rows)]
    if choice is not None:
        test = choice.test.variants[0]
        lines += ["", "## Chosen on dev, evaluated on test", "", choice.reason + ".", "",
                  "| variant | n | " + " | ".join(h for _, h in _COLUMNS) + " |", "|---|---|" + "---|" * len(_COLUMNS),
                  f"| {_cell(test.name, 1000)} | {test.report.n} | " + " | ".join(_est(test.report.metrics[m]) for m, _ in _COLUMNS) + " |"]
    return "\n".join(lines) + "\n"


def write_experiment(result: ExperimentResult, out_dir: str | Path, *, choice: Choice | None = None) -> dict[str, Path]:
    """Write ``results.json``, ``report.md`` and one ``sweep-NN-<variant>.png`` per swept variant.

    Returns the written paths by role (``results``, ``report``, ``plot:<variant>``).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    plots: dict[str, str] = {}
    for i, v in enumerate(result.variants, start=1):
        if v.sweep is not None:
            name = f"sweep-{i:02d}-{_slug(v.name)}.png"
            written[f"plot:{v.name}"] = plot_sweep(v.sweep, out / name, f"{result.kind}: {v.name}")
            plots[v.name] = name
    data: dict[str, Any] = {**result.to_dict(), "plots": plots}
    if choice is not None:
        data["choice"] = choice.to_dict()
    written["results"] = out / "results.json"
    written["results"].write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written["report"] = out / "report.md"
    written["report"].write_text(render_markdown(result, plots, choice), encoding="utf-8")
    return written
