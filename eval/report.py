"""``report.md`` and ``report.html`` of a run: the numbers with their intervals, and what to look at.

Both are rendered from one model (``_model``: header lines, a warning, sections of tables and
plots), so the two never disagree on what the report says.

The HTML is one self-contained file (plots embedded as base64 PNG) so it can be attached to a
pull request or mailed without its directory. Plots are drawn with matplotlib's object API on
the Agg canvas: no pyplot global state, no display, safe off the main thread.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

__all__ = ["interval_plot", "latency_plot", "outcome_plot", "render_html", "render_markdown", "write_reports"]

METRIC_LABELS = {
    "answer_exact": "exact match",
    "answer_f1": "token F1",
    "answer_contains": "contains reference",
    "recall_at_4": "recall@4",
    "mrr": "MRR",
    "filter_accuracy": "filter accuracy",
    "groundedness_rate": "grounded",
}
SLOWEST = 5


# -- plots -----------------------------------------------------------------------------------------
def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def _empty(ax: Any, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what}", ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def latency_plot(records: Sequence[Mapping[str, Any]]) -> bytes:
    """Histogram of per-case latency (finished cases)."""
    fig = Figure(figsize=(6, 3), dpi=100)
    ax = fig.subplots()
    values = [float(r["latency_s"]) for r in records if not r.get("error") and r.get("latency_s") is not None]
    if values:
        ax.hist(values, bins=min(20, max(5, len(values) // 2)), color="#4c72b0", edgecolor="white")
        ax.set_xlabel("latency (s)")
        ax.set_ylabel("cases")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    else:
        _empty(ax, "finished cases")
    ax.set_title("Latency per case")
    return _png(fig)


def outcome_plot(summary: Mapping[str, Any]) -> bytes:
    """Bar chart of case counts per outcome, errors included."""
    fig = Figure(figsize=(6, 3), dpi=100)
    ax = fig.subplots()
    counts = {**summary.get("outcomes", {}), "error": summary.get("errors", 0)}
    labels = [name.replace("_", "\n") for name in counts]  # "budget_exhausted" would overlap its neighbours
    bars = ax.bar(labels, list(counts.values()), color=["#55a868", "#8172b2", "#c44e52", "#dd8452", "#777777"])
    ax.bar_label(bars)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("cases")
    ax.set_title("Outcomes")
    return _png(fig)


def interval_plot(summary: Mapping[str, Any]) -> bytes:
    """Each scored metric as a point with its 95% interval."""
    fig = Figure(figsize=(6, 3.2), dpi=100)
    ax = fig.subplots()
    shown = [(label, summary[key]) for key, label in METRIC_LABELS.items() if summary.get(key)]
    if shown:
        ys = list(range(len(shown)))
        values = [m["value"] for _, m in shown]
        low = [m["value"] - m["ci_low"] for _, m in shown]
        high = [m["ci_high"] - m["value"] for _, m in shown]
        ax.errorbar(values, ys, xerr=[low, high], fmt="o", capsize=4, color="#4c72b0")
        ax.set_yticks(ys, [label for label, _ in shown])
        ax.set_xlim(-0.02, 1.02)
        ax.invert_yaxis()
        ax.set_xlabel("value (95% interval)")
    else:
        _empty(ax, "scored metric")
    ax.set_title("Metrics")
    return _png(fig)


# -- text ------------------------------------------------------------------------------------------
def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _metric_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for key, label in METRIC_LABELS.items():
        m = summary.get(key)
        if m is None:
            rows.append([label, "—", "—", "0"])
        else:
            rows.append([label, _fmt(m["value"]), f"{_fmt(m['ci_low'])} – {_fmt(m['ci_high'])}", str(m["n"])])
    return rows


def _outcome_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for outcome, count in summary.get("outcomes", {}).items():
        rate = summary.get("outcome_rates", {}).get(outcome)
        ci = "—" if rate is None else f"{_fmt(rate['ci_low'])} – {_fmt(rate['ci_high'])}"
        rows.append([outcome, str(count), "—" if rate is None else _fmt(rate["value"]), ci])
    return rows


def _cost_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    cache = summary.get("cache") or {}
    return [
        ["latency p50 (s)", _fmt(summary.get("latency_p50_s"))],
        ["latency p95 (s)", _fmt(summary.get("latency_p95_s"))],
        ["LLM calls per case", _fmt(summary.get("llm_calls_per_case"), 2)],
        ["tokens per case", _fmt(summary.get("tokens_per_case"), 1)],
        ["cache hits / calls sent to the model", f"{cache.get('hits', 0)} / {cache.get('model_calls', 0)}"],
    ]


def _slowest(records: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    done = sorted((r for r in records if r.get("latency_s") is not None), key=lambda r: -float(r["latency_s"]))
    return [[str(r["id"]), _fmt(float(r["latency_s"]), 2), str(r.get("outcome") or "error"), _fmt(r.get("llm_calls"))]
            for r in done[:SLOWEST]]


def _failures(records: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    return [[str(r["id"]), str(r["error"])] for r in records if r.get("error")]


def _header(summary: Mapping[str, Any], manifest: Mapping[str, Any]) -> list[str]:
    dataset = manifest.get("dataset", {})
    git = manifest.get("git", {})
    llm = manifest.get("settings", {}).get("llm", {})
    model = manifest.get("model") or (llm.get("model") if llm.get("provider") == "openai" else "local")
    commit = (git.get("commit") or "unknown")[:12] + (" (dirty)" if git.get("dirty") else "")
    return [
        f"dataset: {dataset.get('path') or 'in-memory cases'} "
        f"(sha256 {str(dataset.get('sha256') or dataset.get('cases_sha256') or '')[:12]})",
        f"cases: {summary.get('cases')}, errors: {summary.get('errors')}",
        f"model: {llm.get('provider')}/{model}; commit {commit}; {manifest.get('created', '')}",
    ]


@dataclass(frozen=True)
class _Section:
    """One part of the report, whatever it is rendered as."""

    title: str
    head: list[str]
    rows: list[list[str]]
    plot: Callable[[], bytes] | None = None
    """The HTML's figure (drawn only for HTML); alt text is ``alt``."""
    alt: str = ""
    empty: str = ""
    """Said instead of an empty table (an empty string: the table is shown even when empty)."""


def _model(
    summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]], manifest: Mapping[str, Any]
) -> tuple[list[str], str | None, list[_Section]]:
    """The report itself: its header lines, its warning, its sections. Both renderers read this."""
    warning = (
        f"{summary['errors']} case(s) failed; their metrics are excluded (see Failures)." if summary.get("errors") else None
    )
    sections = [
        _Section("Metrics", ["metric", "value", "95% CI", "n"], _metric_rows(summary),
                 lambda: interval_plot(summary), "metrics with 95% intervals"),
        _Section("Outcomes", ["outcome", "cases", "rate", "95% CI"], _outcome_rows(summary),
                 lambda: outcome_plot(summary), "outcome breakdown"),
        _Section("Latency and cost", ["", ""], _cost_rows(summary), lambda: latency_plot(records), "latency distribution"),
        _Section("Slowest cases", ["case", "latency (s)", "outcome", "LLM calls"], _slowest(records)),
        _Section("Failures", ["case", "error"], _failures(records), empty="None."),
    ]
    return _header(summary, manifest), warning, sections


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]], manifest: Mapping[str, Any]) -> str:
    header, warning, sections = _model(summary, records, manifest)
    parts = ["# Evaluation report", "", *[f"- {line}" for line in header], ""]
    if warning:
        parts += [f"**{warning}**", ""]
    for sec in sections:
        table = sec.empty if sec.empty and not sec.rows else _md_table(sec.head, sec.rows)
        parts += [f"## {sec.title}", "", table, ""]
    return "\n".join(parts)


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _img(png: bytes, alt: str) -> str:
    return f'<img src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}" alt="{html.escape(alt)}">'


_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}"
    "table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:.25rem .6rem;text-align:left}"
    "th{background:#f3f3f3}img{max-width:100%;display:block;margin:.5rem 0 1.5rem}.warn{color:#b00}"
)


def render_html(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]], manifest: Mapping[str, Any]) -> str:
    header, warning, sections = _model(summary, records, manifest)
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>Evaluation report</title>",
        f"<style>{_CSS}</style></head><body><h1>Evaluation report</h1><ul>",
        *[f"<li>{html.escape(line)}</li>" for line in header],
        "</ul>",
    ]
    if warning:
        parts.append(f"<p class='warn'>{html.escape(warning)}</p>")
    for sec in sections:
        table = f"<p>{html.escape(sec.empty)}</p>" if sec.empty and not sec.rows else _html_table(sec.head, sec.rows)
        parts += [f"<h2>{html.escape(sec.title)}</h2>", table]
        if sec.plot is not None:
            parts.append(_img(sec.plot(), sec.alt))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_reports(
    out_dir: str | Path, summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]], manifest: Mapping[str, Any]
) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` into ``out_dir``; return their paths."""
    out = Path(out_dir)
    md, page = out / "report.md", out / "report.html"
    md.write_text(render_markdown(summary, records, manifest), encoding="utf-8")
    page.write_text(render_html(summary, records, manifest), encoding="utf-8")
    return md, page
