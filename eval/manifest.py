"""``manifest.json``: everything needed to say what produced a run, and to reproduce it.

A score means little without the code, configuration, libraries and data behind it: two runs are
comparable only when their manifests differ in the one thing under test. Secrets never enter it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from selfrag.settings import Settings

__all__ = ["PACKAGES", "build_manifest", "git_state", "models_used", "package_versions", "settings_snapshot"]

PACKAGES = (
    "selfrag",
    "langgraph",
    "langchain-core",
    "langchain-openai",
    "chromadb",
    "llama-cpp-python",
    "sentence-transformers",
)
"""Distributions whose versions change answers or scores."""

_SECRET_WORDS = ("api_key", "secret", "password")
_REPO = Path(__file__).resolve().parent.parent


def _git(args: Sequence[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def git_state(cwd: str | Path = _REPO) -> dict[str, Any]:
    """``{"commit", "dirty"}`` of the repository holding the evaluated code; nulls outside git."""
    commit = _git(["rev-parse", "HEAD"], Path(cwd))
    if not commit:
        return {"commit": None, "dirty": None}
    status = _git(["status", "--porcelain", "--untracked-files=no"], Path(cwd))
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def package_versions(names: Sequence[str] = PACKAGES) -> dict[str, str | None]:
    """Installed version of each distribution; None when it is not installed."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def _scrub(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if any(word in key.lower() for word in _SECRET_WORDS):
        return None if value is None else "<set>"
    return value


def models_used(settings: Settings) -> dict[str, str]:
    """The chat and embedding models a run under ``settings`` actually loads or calls.

    ``llm.model`` and ``embeddings.model`` name API models and default to OpenAI's; the local
    profile ignores them, so a manifest that showed them would name models that never ran.
    """
    if settings.llm.provider == "local":
        from selfrag.providers.local_chat import SMOLLM2_FILE

        chat = f"local:{settings.llm.model_path.name if settings.llm.model_path else SMOLLM2_FILE}"
    else:
        chat = f"openai:{settings.llm.model}"
    embed = "local:all-MiniLM-L6-v2" if settings.embeddings.provider == "local" else f"openai:{settings.embeddings.model}"
    return {"chat": chat, "embeddings": embed}


def settings_snapshot(settings: Settings) -> dict[str, Any]:
    """The effective settings as JSON, with every secret replaced by ``"<set>"`` (or null).

    A local provider's ``model`` field (an API model's name, unused) is left out: ``models``
    in the manifest says what ran.
    """
    data: dict[str, Any] = _scrub(settings.model_dump(mode="json"))
    for part in ("llm", "embeddings"):
        if data[part]["provider"] == "local":
            data[part].pop("model", None)
    return data


def build_manifest(
    settings: Settings,
    *,
    dataset_path: str | Path | None,
    dataset_sha256: str | None,
    cases: int,
    cases_sha256: str | None = None,
    limit: int | None,
    concurrency: int,
    command: Sequence[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The manifest of a run about to start (``extra`` adds caller fields, e.g. the cache file).

    ``dataset_sha256`` hashes the dataset file's bytes (as ``eval.datasets.dataset_hash``);
    ``cases_sha256`` the cases actually run, after any split or limit.
    """
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "git": git_state(),
        "settings": settings_snapshot(settings),
        "models": models_used(settings),
        "packages": package_versions(),
        "python": sys.version.split()[0],
        "dataset": {
            "path": None if dataset_path is None else str(dataset_path),
            "sha256": dataset_sha256,
            "cases": cases,
            "cases_sha256": cases_sha256,
        },
        "command": list(sys.argv if command is None else command),
        "limit": limit,
        "concurrency": concurrency,
        **(extra or {}),
    }
