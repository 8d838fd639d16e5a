"""What the ``eval`` commands share: settings overrides, the run summary table."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from rich.table import Table

from selfrag.cli._common import fail, out_console

__all__ = ["SUMMARY_KEYS", "load_config", "print_summary"]

SUMMARY_KEYS = (
    "answer_exact", "answer_f1", "answer_contains", "answer_correct", "judged_correct", "faithfulness",
    "context_precision", "context_recall", "answer_relevancy", "abstention_accuracy", "recall_at_4", "mrr",
    "filter_accuracy", "groundedness_rate",
)
"""The summary's metrics the CLI prints, in order; a metric the run has no value for shows "—"."""


def load_config(path: Path | None) -> dict[str, Any]:
    """Settings overrides from a TOML or JSON file (same shape as config.toml)."""
    if path is None:
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        fail(f"cannot read config {path}: {exc.strerror or exc}", "config_invalid")
    try:
        data: Any = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        fail(f"config {path} is not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {exc}", "config_invalid")
    if not isinstance(data, dict):
        fail(f"config {path} must hold a table of settings", "config_invalid")
    return data


def print_summary(s: dict[str, Any], out_dir: Path) -> None:
    """The run's headline numbers as a table on stdout."""
    table = Table(title=f"{s['cases']} cases → {out_dir}")
    table.add_column("metric", no_wrap=True)
    table.add_column("value", justify="right")
    table.add_column("95% CI", justify="right")
    for key in SUMMARY_KEYS:
        v = s.get(key)
        table.add_row(key, "—" if v is None else f"{v['value']:.3f}",
                      "" if v is None else f"[{v['ci_low']:.3f}, {v['ci_high']:.3f}]")
    table.add_row("outcomes", ", ".join(f"{k} {n}" for k, n in s["outcomes"].items() if n), "")
    if s.get("latency_p50_s") is not None:
        table.add_row("latency p50 / p95", f"{s['latency_p50_s']} / {s['latency_p95_s']} s", "")
    if s.get("llm_calls_per_case") is not None:
        table.add_row("LLM calls / case", str(s["llm_calls_per_case"]), "")
    out_console.print(table)
