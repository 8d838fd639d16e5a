"""What ``bench/graph_phrasings.py`` and ``bench/set_phrasings.py`` share: an isolated home with
another checkout's code if asked, and the report of signed answers judged right or wrong."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any


def isolated_home(prefix: str, code_root: Path) -> Path:
    """A fresh ``SELFRAG_HOME`` (default settings, empty store), with ``code_root``'s code first on
    the path: a worktree of an older commit gives the "before" of a before/after."""
    sys.path.insert(0, str(code_root.resolve()))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    home = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ["SELFRAG_HOME"] = str(home)
    os.environ.pop("SELFRAG_CONFIG", None)
    return home


def write_report(cases: list[dict[str, Any]], out: Path, script: str, **extra: Any) -> None:
    """Each case's ``judged`` (``right``/``wrong`` for an answered run, else its outcome), counted."""
    counts = Counter(c["judged"] for c in cases)
    head = {"rows": len(cases), "answered_right": counts["right"], "answered_wrong": counts["wrong"],
            "not_answered": {k: v for k, v in counts.items() if k not in ("right", "wrong")}}
    report = {"command": " ".join([script, *sys.argv[1:]]), **extra, "headline": head, "cases": cases}
    print(json.dumps(head, indent=1))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
