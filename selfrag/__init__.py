"""selfrag: a Self-RAG corrective workflow engine on LangGraph and Chroma.

The top-level package holds what every caller needs: the settings, a collection's attribute
schema, and the error hierarchy (see ``selfrag.errors`` for the tree and the stable codes).
The parts live in subpackages: ``selfrag.store``, ``selfrag.ingest``, ``selfrag.query``,
``selfrag.providers``; the workflow itself in ``workflows`` and its graders in ``graders``.

    from selfrag import Settings, load_settings
    settings = load_settings()          # environment and config file, read once at the edge
"""

from importlib.metadata import PackageNotFoundError, version

from selfrag.errors import (
    CollectionExists,
    CollectionNotFound,
    ConfigError,
    DatasetError,
    DeadlineExceeded,
    DocumentNotFound,
    Forbidden,
    GraderError,
    IngestError,
    InvalidFilter,
    InvalidQuestion,
    ModelIntegrityError,
    Overloaded,
    PayloadTooLarge,
    ProviderError,
    RuntimeFailure,
    SchemaError,
    SelfRagError,
    StoreError,
    StoreLocked,
    ThreadBusy,
    ThreadNotFound,
    Unauthenticated,
    UsageError,
    VariantsError,
)
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.settings import Settings, load_settings

try:
    __version__ = version("selfrag")
except PackageNotFoundError:  # pragma: no cover - running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = [
    "AttributeInfo",
    "CollectionExists",
    "CollectionNotFound",
    "CollectionSchema",
    "ConfigError",
    "DatasetError",
    "DeadlineExceeded",
    "DocumentNotFound",
    "Forbidden",
    "GraderError",
    "IngestError",
    "InvalidFilter",
    "InvalidQuestion",
    "ModelIntegrityError",
    "Overloaded",
    "PayloadTooLarge",
    "ProviderError",
    "RuntimeFailure",
    "SchemaError",
    "SelfRagError",
    "Settings",
    "StoreError",
    "StoreLocked",
    "ThreadBusy",
    "ThreadNotFound",
    "Unauthenticated",
    "UsageError",
    "VariantsError",
    "__version__",
    "load_settings",
]
