"""``selfrag ingest``: load files (or a shipped sample) into a collection."""

from __future__ import annotations

from pathlib import Path

import typer

from selfrag.cli._common import err_console, fail, handle_errors, out_console
from selfrag.settings import Settings

__all__ = ["ingest"]


@handle_errors
def ingest(
    paths: list[Path] = typer.Argument(None, help="Files or directories (.txt .md .pdf .html .jsonl)."),
    collection: str | None = typer.Option(None, "--collection", "-c", help="Collection to ingest into."),
    schema: Path | None = typer.Option(None, "--schema", help="Attribute schema (JSON) for a new collection."),
    sample: str | None = typer.Option(None, "--sample", help="Ingest a shipped sample: movies or filings."),
) -> None:
    """Ingest documents into a collection (created on first use); re-ingesting is idempotent.

    Examples: selfrag ingest --sample movies
              selfrag ingest reports/ --collection filings --schema filings.schema.json
    """
    from selfrag.ingest import ingest_paths, rich_progress
    from selfrag.samples import SAMPLES, ingest_sample
    from selfrag.schema import CollectionSchema, load_schema_file
    from selfrag.settings import load_settings
    from workflows.factory import open_store

    if sample is not None:
        if paths or schema is not None:
            fail("--sample takes no PATH or --schema")
        if sample not in SAMPLES:
            fail(f"unknown sample {sample!r}; choose one of: {', '.join(SAMPLES)}")
        settings = load_settings()
        store = open_store(settings)
        with rich_progress(f"embedding {sample}", err_console, transient=True) as bar:
            report = ingest_sample(store, sample, collection=collection, progress=bar, **_chunking(settings))
        out_console.print(f"{collection or sample}: {report.summary()}", markup=False, soft_wrap=True)
        return
    if not paths:
        fail("give PATH... to ingest, or --sample movies|filings")
    if not collection:
        fail("--collection NAME is required with PATH")
    declared = load_schema_file(schema) if schema is not None else None
    for p in paths:
        if not p.exists():
            fail(f"no such file or directory: {p}", "ingest_failed")
    settings = load_settings()
    store = open_store(settings)
    from selfrag.errors import CollectionNotFound

    try:
        coll = store.get_collection(collection)
        if declared is not None and declared != coll.schema:
            fail(f"collection {collection!r} exists with another schema; use a new collection name", "collection_exists")
    except CollectionNotFound:
        coll = store.create_collection(collection, declared or CollectionSchema())
    with rich_progress(f"embedding into {collection}", err_console, transient=True) as bar:
        report = ingest_paths(coll, [str(p) for p in paths], progress=bar, **_chunking(settings))
    out_console.print(f"{collection}: {report.summary()}", markup=False, soft_wrap=True)


def _chunking(settings: Settings) -> dict[str, int]:
    return {"chunk_size": settings.store.chunk_size, "chunk_overlap": settings.store.chunk_overlap}
