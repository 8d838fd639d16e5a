"""What differs between two runs' configurations, read from their manifests.

Two runs are comparable only when they differ in the thing under test, so ``eval compare``
lists every setting that differs: the effective settings (secrets already scrubbed), the models
actually used, the judge, where the answers came from (engine, predictions file, endpoint), the
dataset and the code. Keys are dotted paths (``settings.workflow.max_rewrites``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["COMPARED", "SettingDiff", "manifest_diff", "read_manifest"]

COMPARED = ("settings", "models", "judged_by", "answers_from", "store", "dataset", "git", "limit", "concurrency", "seed")
"""Manifest fields whose differences matter; time, duration, command and packages' paths do not."""

_IGNORED = {"dataset.path", "settings.home", "store.kept", "judged_by.cache", "dataset.cases"}
"""Where a file lives is not a setting (a run in another directory is the same configuration)."""


class SettingDiff(NamedTuple):
    key: str
    a: Any
    """The value in run A (None: absent)."""
    b: Any


def read_manifest(run: Path) -> dict[str, Any]:
    """A run's ``manifest.json``; empty when it has none (older or hand-made run directories)."""
    try:
        data = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping) and value:
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    else:
        out[prefix] = value


def manifest_diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[SettingDiff]:
    """Every compared key whose value differs between manifests ``a`` and ``b``, sorted by key."""
    flat_a: dict[str, Any] = {}
    flat_b: dict[str, Any] = {}
    for field in COMPARED:
        _flatten(a.get(field), field, flat_a)
        _flatten(b.get(field), field, flat_b)
    keys = sorted(set(flat_a) | set(flat_b))
    return [SettingDiff(k, flat_a.get(k), flat_b.get(k)) for k in keys
            if k not in _IGNORED and flat_a.get(k) != flat_b.get(k)]
