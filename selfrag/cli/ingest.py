"""``selfrag ingest``: load files (or a shipped sample) into a collection."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from selfrag.cli._client import KEY_HELP, URL_HELP, Remote, remote_for
from selfrag.cli._common import err_console, fail, handle_errors, out_console

if TYPE_CHECKING:
    from selfrag.ingest import IngestReport
    from selfrag.schema import CollectionSchema
    from selfrag.settings import Settings
    from selfrag.store import StoreUse

__all__ = ["ingest"]


@handle_errors
def ingest(
    paths: list[Path] = typer.Argument(None, help="Files or directories (.txt .md .pdf .html .jsonl)."),
    collection: str | None = typer.Option(None, "--collection", "-c", help="Collection to ingest into."),
    schema: Path | None = typer.Option(None, "--schema", help="Attribute schema (JSON) for a new collection."),
    sample: str | None = typer.Option(None, "--sample", help="Ingest a shipped sample: movies, filings or companies."),
    root: Path | None = typer.Option(
        None, "--root", help="Documents are named by their path relative to ROOT (default: the folder above each PATH)."
    ),
    prune: bool = typer.Option(
        False, "--prune", help="Also remove the documents of each folder whose files are no longer in it."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Fail (write nothing) when a file in a folder cannot be read, instead of skipping it."
    ),
    url: str | None = typer.Option(None, "--url", help=URL_HELP),
    key: str | None = typer.Option(None, "--key", help=KEY_HELP),
) -> None:
    """Ingest documents into a collection (created on first use).

    A document is its jsonl id, or its path relative to the folder above each PATH (or to --root):
    ingesting it again replaces it, and an unchanged one costs nothing. Files named explicitly must
    all be readable; unreadable files found in folders are skipped and listed on stderr.

    Through a server (--url), files are uploaded and named by their file name alone; --root, --prune
    and --strict are not available there.

    Examples: selfrag ingest --sample movies
              selfrag ingest reports/ --collection filings --schema filings.schema.json --prune
    """
    remote = remote_for(url, key)
    if remote is not None:
        if root is not None or prune or strict:
            fail("--root, --prune and --strict need the store in this process; they are not available through a server")
        with remote:
            _ingest_remote(remote, paths or [], collection, schema, sample)
        return

    from selfrag.errors import CollectionNotFound
    from selfrag.ingest import MentionExtractor, collect_files, display_path, read_inputs, stage_progress, store_batch
    from selfrag.kg import open_graph_store
    from selfrag.samples import SAMPLES, ingest_sample, load_sample
    from selfrag.schema import CollectionSchema, load_schema_file
    from selfrag.settings import load_settings
    from selfrag.store import validate_collection_name
    from workflows.factory import open_store, refresh_lexical

    if sample is not None:
        if paths or schema is not None or root is not None or prune:
            fail("--sample takes no PATH, --schema, --root or --prune")
        if sample not in SAMPLES:
            fail(f"unknown sample {sample!r}; choose one of: {', '.join(SAMPLES)}")
        name = collection or sample
        settings = load_settings()
        with ExitStack() as stack:
            graph = None
            if load_sample(sample)[0].graph is not None:
                # The sample's knowledge graph goes into the graph store first (embedded or graph.url).
                graph = stack.enter_context(open_graph_store(settings.home, settings.graph.url))
            store = stack.enter_context(open_store(settings, _use(name)))
            progress = stack.enter_context(stage_progress(name, err_console))
            report = ingest_sample(store, sample, collection=collection, progress=progress, graph=graph, **_chunking(settings))
            refresh_lexical(settings, store.get_collection(name))
        _print(name, report)
        return
    if not paths:
        fail("give PATH... to ingest, or --sample movies|filings|companies")
    if not collection:
        fail("--collection NAME is required with PATH")
    validate_collection_name(collection)
    declared = load_schema_file(schema) if schema is not None else None
    for p in paths:
        if not p.exists():
            fail(f"no such file or directory: {display_path(p)}", "ingest_failed")
    settings = load_settings()
    with open_store(settings, _use(collection)) as store, ExitStack() as stack:
        try:
            existing = store.get_collection(collection)
        except CollectionNotFound:
            existing = None
        if existing is not None and declared is not None and declared != existing.schema:
            fail(f"collection {collection!r} exists with another schema; use a new collection name", "collection_exists")
        target_schema = existing.schema if existing else declared or CollectionSchema()
        mentions = None
        if target_schema.graph is not None:
            # Mention attributes the documents' metadata lacks come from their text, by the graph's names.
            graph = stack.enter_context(open_graph_store(settings.home, settings.graph.url))
            mentions = MentionExtractor.from_store(graph, target_schema.graph)
        with stage_progress(collection, err_console) as progress:
            inputs = collect_files(paths, root=root)
            batch = read_inputs(
                target_schema, inputs, strict=strict, progress=progress, mentions=mentions,
                keep=settings.store.write_batch_size, **_chunking(settings),
            )
            # Created only now that the input has been read: a refused ingest leaves no empty
            # collection behind to block a retry with another --schema.
            target = existing or store.create_collection(collection, declared or CollectionSchema())
            _show_kinds(collection, target.schema, created=existing is None)
            try:
                report = store_batch(target, batch, prune=prune, progress=progress)
            except BaseException:
                if existing is None and target.count() == 0:
                    store.delete_collection(collection)
                raise
            refresh_lexical(settings, target)
    _print(collection, report)


def _show_kinds(collection: str, schema: CollectionSchema, *, created: bool) -> None:
    # Shown once, where the guess is made and stored, so a wrong one is seen before it is relied on.
    if created and schema.attributes:
        err_console.print(f"{collection}: attribute kinds (declare \"kind\" in the schema to change one): "
                          f"{schema.kinds()}", markup=False, soft_wrap=True)


def _use(collection: str) -> StoreUse:
    from selfrag.store import StoreUse

    return StoreUse("selfrag ingest", write=True, api=f"POST /v1/collections/{collection}/documents")


def _print(collection: str, report: IngestReport) -> None:
    for skipped in report.skipped:
        err_console.print(f"skipped {skipped.name}: {skipped.reason}", markup=False, soft_wrap=True)
    out_console.print(f"{collection}: {report.summary()}", markup=False, soft_wrap=True)


def _chunking(settings: Settings) -> dict[str, int]:
    return {"chunk_size": settings.store.chunk_size, "chunk_overlap": settings.store.chunk_overlap}


def _ingest_remote(remote: Remote, paths: list[Path], collection: str | None, schema: Path | None, sample: str | None) -> None:
    """Create the collection if asked (or for a sample), then upload the files in one request."""
    from selfrag.errors import CollectionExists
    from selfrag.ingest import collect_files
    from selfrag.samples import SAMPLES, load_sample
    from selfrag.schema import CollectionSchema, load_schema_file

    declared: CollectionSchema | None
    if sample is not None:
        if paths or schema is not None:
            fail("--sample takes no PATH, --schema, --root or --prune")
        if sample not in SAMPLES:
            fail(f"unknown sample {sample!r}; choose one of: {', '.join(SAMPLES)}")
        declared, files = load_sample(sample)
        if declared.graph is not None:
            fail(f"the {sample} sample loads a knowledge graph, which only a local ingest does; stop the server first")
        name = collection or sample
    else:
        if not paths:
            fail("give PATH... to ingest, or --sample movies|filings|companies")
        if not collection:
            fail("--collection NAME is required with PATH")
        declared = load_schema_file(schema) if schema is not None else None
        files = [f.path for f in collect_files(paths).files]
        name = collection
    # Created first, as a local ingest creates it on first use; an existing one must have the same schema.
    wanted = declared or CollectionSchema()
    try:
        remote.request("POST", "/v1/collections", json={"name": name, "schema": wanted.model_dump(mode="json")})
    except CollectionExists:
        existing = CollectionSchema.model_validate(remote.request("GET", f"/v1/collections/{name}")["schema"])
        if declared is not None and sample is None and existing != declared:
            fail(f"collection {name!r} exists with another schema; use a new collection name", "collection_exists")
    uploads = [("files", (f.name, f.read_bytes())) for f in files]
    result = remote.request("POST", f"/v1/collections/{name}/documents", files=uploads)
    out_console.print(
        f"{name}: {len(files)} files, {len(result['documents'])} documents ({result['chunks']} chunks): "
        f"{result['added']} added, {result['replaced']} replaced, {result['unchanged']} unchanged, "
        f"{result['removed']} removed (via {remote.url})",
        markup=False, soft_wrap=True,
    )
