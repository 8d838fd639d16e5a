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

__all__ = [
    "interval_plot", "latency_plot", "outcome_plot", "render_html", "render_markdown", "risk_coverage_plot",
    "went_wrong", "write_reports",
]

METRIC_LABELS = {
    "answer_exact": "exact match",
    "answer_f1": "token F1",
    "answer_contains": "contains reference",
    "recall_at_4": "recall@4",
    "mrr": "MRR",
    "filter_accuracy": "filter accuracy",
    "groundedness_rate": "grounded (engine's own check)",
    "answer_correct": "correct (lexical)",
    "judged_correct": "correct (judged)",
    "faithfulness": "faithfulness (judged)",
    "context_precision": "context precision (judged)",
    "context_recall": "context recall (judged)",
    "answer_relevancy": "answer relevancy (judged)",
    "abstention_accuracy": "abstention accuracy",
}
SLOWEST = 5
WENT_WRONG = 100
"""The most rows of the table of cases that went wrong (the rest are in cases.jsonl)."""
_CELL = 160


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
    """Horizontal bars of case counts per outcome, errors included (names on the y axis never overlap)."""
    fig = Figure(figsize=(6, 3.2), dpi=100)
    ax = fig.subplots()
    counts = {**summary.get("outcomes", {}), "error": summary.get("errors", 0)}
    names = list(counts)
    colors = ["#55a868", "#8172b2", "#c44e52", "#dd8452", "#937860", "#da8bc3", "#8c8c8c", "#777777"]
    bars = ax.barh(names, list(counts.values()), color=colors[: len(names)])
    ax.bar_label(bars, padding=2)
    ax.invert_yaxis()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0, max(1, *counts.values()) * 1.12)  # room for the largest bar's label
    ax.set_xlabel("cases")
    ax.set_title("Outcomes")
    return _png(fig)


def interval_plot(summary: Mapping[str, Any]) -> bytes:
    """Each scored metric as a point with its 95% interval."""
    shown = [(label, summary[key]) for key, label in METRIC_LABELS.items() if summary.get(key)]
    fig = Figure(figsize=(6.4, 0.9 + 0.3 * max(3, len(shown))), dpi=100)
    ax = fig.subplots()
    if shown:
        ys = list(range(len(shown)))
        values = [m["value"] for _, m in shown]
        low = [m["value"] - m["ci_low"] for _, m in shown]
        high = [m["ci_high"] - m["value"] for _, m in shown]
        ax.errorbar(values, ys, xerr=[low, high], fmt="o", capsize=4, color="#4c72b0", clip_on=False)
        ax.set_yticks(ys, [label for label, _ in shown])
        # margins on both sides: a value of exactly 0.0 or 1.0 is drawn whole, not cut in half by the frame
        ax.set_xlim(-0.06, 1.06)
        ax.invert_yaxis()
        ax.set_xlabel("value (95% interval)")
    else:
        _empty(ax, "scored metric")
    ax.set_title("Metrics")
    return _png(fig)


def risk_coverage_plot(summary: Mapping[str, Any]) -> bytes:
    """Risk (wrong among kept answers) against coverage, most trusted answers first."""
    fig = Figure(figsize=(6, 3.2), dpi=100)
    ax = fig.subplots()
    rc = summary.get("risk_coverage")
    if rc and rc["points"]:
        xs = [0.0] + [p[0] for p in rc["points"]]
        ys = [rc["points"][0][1]] + [p[1] for p in rc["points"]]
        ax.step(xs, ys, where="post", color="#c44e52")
        ax.plot(xs[1:], ys[1:], "o", markersize=2.5, color="#c44e52", clip_on=False)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, max(0.1, max(ys)) * 1.1)
        ax.set_xlabel("coverage (answers kept / cases)")
        ax.set_ylabel(f"risk (wrong by {rc['correct']})")
    else:
        _empty(ax, "answers with a reference")
    ax.set_title("Risk-coverage")
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


def _cut(text: Any) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= _CELL else flat[: _CELL - 1] + "…"


def went_wrong(records: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """Cases that went wrong: a wrong answer, a flagged one (ungrounded, unverified) or an abstention.

    Wrong is judged correctness when the run was judged, else lexical; each row says which kinds
    apply and the verdict that decided the outcome. Wrong answers first, then flagged, then abstained.
    """
    from eval.abstention import ABSTAINED, FLAGGED

    rows: list[tuple[int, list[str]]] = []
    for r in records:
        if r.get("error") or r.get("outcome") is None:
            continue
        correct = r.get("judged_correct") if r.get("judged_correct") is not None else r.get("answer_correct")
        outcome = str(r["outcome"])
        kinds = [k for k, hit in (("wrong", outcome not in ABSTAINED and correct is not None and correct < 0.5),
                                  ("flagged", outcome in FLAGGED), ("abstained", outcome in ABSTAINED)) if hit]
        if kinds:
            rank = 0 if "wrong" in kinds else 1 if "flagged" in kinds else 2
            rows.append((rank, [str(r["id"]), ", ".join(kinds), _cut(r.get("question")), _cut(r.get("reference_answer")),
                                _cut(r.get("answer")), outcome, _cut(r.get("verdict"))]))
    rows.sort(key=lambda x: x[0])
    return [row for _, row in rows]


def _abstention_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for key, label in (("abstain_rate", "abstained (share of cases)"), ("abstention_accuracy", "abstention accuracy"),
                       ("wrong_among_answered", "wrong among answered")):
        m = summary.get(key)
        rows.append([label, "—" if m is None else _fmt(m["value"]),
                     "—" if m is None else f"{_fmt(m['ci_low'])} – {_fmt(m['ci_high'])}", "0" if m is None else str(m["n"])])
    rc = summary.get("risk_coverage")
    rows.append(["AURC (area under risk-coverage)", "—" if not rc else _fmt(rc["aurc"]), "", "—" if not rc else str(rc["n"])])
    return rows


def _failures(records: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    return [[str(r["id"]), str(r["error"])] for r in records if r.get("error")]


def _header(summary: Mapping[str, Any], manifest: Mapping[str, Any]) -> list[str]:
    dataset = manifest.get("dataset", {})
    git = manifest.get("git", {})
    models = manifest.get("models") or {}
    commit = (git.get("commit") or "unknown")[:12] + (" (dirty)" if git.get("dirty") else "")
    source = manifest.get("answers_from")
    answers = (f"answers from {source.get('kind')} {source.get('url') or source.get('path') or ''}".rstrip()
               if source else f"answers by selfrag ({models.get('chat') or manifest.get('model') or 'unknown model'}, "
               f"embeddings {models.get('embeddings') or 'unknown'})")
    judge = manifest.get("judged_by")
    return [
        f"dataset: {dataset.get('path') or 'in-memory cases'} "
        f"(sha256 {str(dataset.get('sha256') or dataset.get('cases_sha256') or '')[:12]})",
        f"cases: {summary.get('cases')}, errors: {summary.get('errors')}",
        f"{answers}; commit {commit}; {manifest.get('created', '')}",
        f"judged by: {judge['model']} (prompts {judge['prompt_version']})" if judge else "judged by: nobody (no judged metrics)",
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
    note: str = ""
    """A line under the table (e.g. that it was cut)."""


def _model(
    summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]], manifest: Mapping[str, Any]
) -> tuple[list[str], str | None, list[_Section]]:
    """The report itself: its header lines, its warning, its sections. Both renderers read this."""
    warning = (
        f"{summary['errors']} case(s) failed; their metrics are excluded (see Failures)." if summary.get("errors") else None
    )
    wrong = went_wrong(records)
    sections = [
        _Section("Metrics", ["metric", "value", "95% CI", "n"], _metric_rows(summary),
                 lambda: interval_plot(summary), "metrics with 95% intervals"),
        _Section("Outcomes", ["outcome", "cases", "rate", "95% CI"], _outcome_rows(summary),
                 lambda: outcome_plot(summary), "outcome breakdown"),
        _Section("Latency and cost", ["", ""], _cost_rows(summary), lambda: latency_plot(records), "latency distribution"),
        _Section("Slowest cases", ["case", "latency (s)", "outcome", "LLM calls"], _slowest(records)),
        _Section("Abstention", ["", "value", "95% CI", "n"], _abstention_rows(summary),
                 lambda: risk_coverage_plot(summary), "risk-coverage curve"),
        _Section(f"Cases that went wrong ({len(wrong)})", ["case", "kind", "question", "reference", "answer", "outcome",
                 "deciding verdict"], wrong[:WENT_WRONG], empty="None: every answer was right and unflagged.",
                 note=f"First {WENT_WRONG} of {len(wrong)}; every case is in cases.jsonl." if len(wrong) > WENT_WRONG else ""),
        _Section("Failures (cases that raised)", ["case", "error"], _failures(records), empty="None."),
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
        parts += [f"## {sec.title}", "", table, ""] + ([sec.note, ""] if sec.note else [])
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
        parts += [f"<h2>{html.escape(sec.title)}</h2>", table] + ([f"<p>{html.escape(sec.note)}</p>"] if sec.note else [])
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
