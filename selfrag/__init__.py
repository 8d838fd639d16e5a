"""selfrag: a Self-RAG corrective workflow engine on LangGraph and Chroma.

The top-level package holds what every caller needs: the settings and a collection's attribute
schema. Every error is in ``selfrag.errors`` (its docstring draws the tree and the stable codes).
The parts live in subpackages: ``selfrag.store``, ``selfrag.ingest``, ``selfrag.query``,
``selfrag.providers``; the workflow itself in ``workflows`` and its graders in ``graders``.

    from selfrag import Settings, load_settings
    settings = load_settings()          # environment and config file, read once at the edge
"""

from importlib.metadata import PackageNotFoundError, version

from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.settings import Settings, load_settings

try:
    __version__ = version("selfrag")
except PackageNotFoundError:  # pragma: no cover - running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = [
    "AttributeInfo",
    "CollectionSchema",
    "Settings",
    "__version__",
    "load_settings",
]
