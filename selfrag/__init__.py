"""selfrag: a Self-RAG corrective workflow engine on LangGraph and Chroma.

The top-level package holds what every caller needs: the settings and a collection's attribute
schema. Every error is in ``selfrag.errors`` (its docstring draws the tree and the stable codes).
The parts live in subpackages: ``selfrag.store``, ``selfrag.ingest``, ``selfrag.query``,
``selfrag.providers``; the workflow itself in ``workflows`` and its graders in ``graders``.

    from selfrag import Settings, load_settings
    settings = load_settings()          # environment and config file, read once at the edge
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from selfrag.schema import AttributeInfo, CollectionSchema
    from selfrag.settings import Settings, load_settings

__all__ = [
    "AttributeInfo",
    "CollectionSchema",
    "Settings",
    "__version__",
    "load_settings",
]

# Importing any ``selfrag.x`` runs this file first: the CLI's ``--help`` and the errors module
# must not pay for pydantic-settings and the schema's knowledge-graph imports (a fifth of a
# second), so the public names load on first use.
_LAZY = {
    "AttributeInfo": "selfrag.schema",
    "CollectionSchema": "selfrag.schema",
    "Settings": "selfrag.settings",
    "load_settings": "selfrag.settings",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("selfrag")
        except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
            value = "0.0.0+unknown"
    elif name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'selfrag' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY, "__version__"])
