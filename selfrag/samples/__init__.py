"""Sample collections shipped with selfrag, for the demo, the tests and trying things out.

- ``movies``: LangChain's self-query example films plus a dozen more, as jsonl with metadata.
- ``filings``: short annual-report style documents (illustrative figures) whose ``company``,
  ``fiscal_year`` and ``doc_type`` come from the schema's regex extractors.

Each sample is a folder holding ``schema.json``, an optional ``README.md`` and its documents.
"""

from __future__ import annotations

from pathlib import Path

from selfrag.errors import UsageError
from selfrag.ingest import IngestReport, ingest_paths
from selfrag.ingest.files import SUPPORTED_EXTENSIONS as _SUPPORTED
from selfrag.ingest.progress import StageProgress
from selfrag.schema import CollectionSchema, load_schema_file
from selfrag.store import Store

__all__ = ["SAMPLES", "ingest_sample", "load_sample", "sample_dir"]

SAMPLES: tuple[str, ...] = ("movies", "filings")

_ROOT = Path(__file__).resolve().parent
_NOT_DOCUMENTS = {"schema.json", "readme.md"}


def sample_dir(name: str) -> Path:
    """The folder of one sample.

    Raises:
        UsageError: there is no sample of that name.
    """
    if name not in SAMPLES:
        raise UsageError(f"unknown sample {name!r} (available: {', '.join(SAMPLES)})")
    return _ROOT / name


def load_sample(name: str) -> tuple[CollectionSchema, list[Path]]:
    """The schema of a sample and the paths of its documents (sorted; README and schema excluded)."""
    folder = sample_dir(name)
    schema = load_schema_file(folder / "schema.json")
    paths = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and p.suffix.lower() in _SUPPORTED and p.name.lower() not in _NOT_DOCUMENTS
    )
    return schema, paths


def ingest_sample(
    store: Store,
    name: str,
    *,
    collection: str | None = None,
    chunk_size: int = 1000,
    chunk_overlap: int = 150,
    progress: StageProgress | None = None,
) -> IngestReport:
    """Create the sample's collection (named after the sample unless ``collection`` is given) and ingest it.

    Idempotent: running it twice leaves one copy of every document (its files are named one by one,
    so each document's id is its file name, or its jsonl ``id``).

    Raises:
        CollectionExists: a collection of that name exists with a different schema.
    """
    schema, paths = load_sample(name)
    target = store.create_collection(collection or name, schema, exist_ok=True)
    return ingest_paths(target, paths, chunk_size=chunk_size, chunk_overlap=chunk_overlap, progress=progress)
