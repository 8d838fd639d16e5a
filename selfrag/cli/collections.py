"""``selfrag collections`` and ``selfrag documents``: see what is stored, and delete it.

Listing opens the embedded store for reading (beside other readers); deleting opens it for writing,
and asks first unless ``--yes`` is given.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

from selfrag.cli._common import err_console, fail, handle_errors, out_console

if TYPE_CHECKING:
    from selfrag.store import Store

__all__ = ["collections_app", "documents_app"]

collections_app = typer.Typer(help="List, show and delete collections.", no_args_is_help=True)
documents_app = typer.Typer(help="List and delete the documents of a collection.", no_args_is_help=True)


@contextmanager
def _store(command: str, *, write: bool, api: str) -> Iterator[Store]:
    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows.factory import open_store

    with open_store(load_settings(), StoreUse(command, write=write, api=api)) as store:
        yield store


def _confirm(question: str, yes: bool) -> None:
    if yes:
        return
    try:
        agreed = typer.confirm(question, default=False, err=True)
    except typer.Abort:  # no answer (end of input)
        agreed = False
    if not agreed:
        fail("nothing deleted: answer y, or pass --yes", "usage_error", 1)


@collections_app.command("list")
@handle_errors
def list_collections() -> None:
    """List collections with their numbers of chunks.

    Example: selfrag collections list
    """
    with _store("selfrag collections list", write=False, api="GET /v1/collections") as store:
        for name in store.list_collections():
            out_console.print(f"{name}  {store.get_collection(name).count()} chunks", markup=False, soft_wrap=True)


@collections_app.command("show")
@handle_errors
def show_collection(
    name: str = typer.Argument(..., help="The collection."),
    as_json: bool = typer.Option(False, "--json", help="Schema, counts and known values as one JSON object."),
) -> None:
    """Show a collection: its schema, how many documents and chunks it holds, and the known values
    of its string attributes.

    Example: selfrag collections show movies
    """
    with _store("selfrag collections show", write=False, api=f"GET /v1/collections/{name}") as store:
        coll = store.get_collection(name)
        documents = coll.documents()
        chunks = sum(d.chunks for d in documents)
        catalogue = coll.catalogue()
    if as_json:
        typer.echo(json.dumps({
            "name": name, "documents": len(documents), "chunks": chunks,
            "schema": coll.schema.model_dump(mode="json"), "known_values": catalogue,
        }, ensure_ascii=False))
        return
    lines = [f"{name}: {len(documents)} documents, {chunks} chunks"]
    if coll.schema.description:
        lines.append(f"  {coll.schema.description}")
    for attr in coll.schema.attributes:
        line = f"  {attr.name} ({attr.type})" + (f": {attr.description}" if attr.description else "")
        known = catalogue.get(attr.name)
        if known:
            shown = ", ".join(known[:10]) + (f", … ({len(known)} values)" if len(known) > 10 else "")
            line += f"  [known: {shown}]"
        lines.append(line)
    for line in lines:
        out_console.print(line, markup=False, soft_wrap=True)
    legacy = sum(1 for d in documents if d.source.startswith("/"))
    if legacy:
        err_console.print(
            f"note: {legacy} documents are named by an absolute path (stored by an earlier selfrag): ingesting "
            "their files again from the same place replaces them; from elsewhere, rebuild the collection",
            markup=False, soft_wrap=True,
        )


@collections_app.command("delete")
@handle_errors
def delete_collection(
    name: str = typer.Argument(..., help="The collection."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
) -> None:
    """Delete a collection and everything in it.

    Example: selfrag collections delete movies --yes
    """
    with _store("selfrag collections delete", write=True, api=f"DELETE /v1/collections/{name}") as store:
        count = store.get_collection(name).count()
        _confirm(f"Delete collection {name!r} and its {count} chunks?", yes)
        store.delete_collection(name)
    from selfrag.settings import load_settings
    from workflows.factory import forget_lexical

    forget_lexical(load_settings(), name)
    err_console.print(f"deleted collection {name!r} ({count} chunks)", markup=False, soft_wrap=True)


@documents_app.command("list")
@handle_errors
def list_documents(collection: str = typer.Option(..., "--collection", "-c", help="The collection.")) -> None:
    """List a collection's documents: id, number of chunks, and where each came from.

    Example: selfrag documents list --collection filings
    """
    with _store("selfrag documents list", write=False, api=f"GET /v1/collections/{collection}") as store:
        documents = store.get_collection(collection).documents()
    for doc in documents:
        out_console.print(f"{doc.id}  {doc.chunks} chunks  {doc.source}".rstrip(), markup=False, soft_wrap=True)


@documents_app.command("delete")
@handle_errors
def delete_document(
    doc_id: str = typer.Argument(..., help="The document's id (see 'selfrag documents list'), or one chunk's id."),
    collection: str = typer.Option(..., "--collection", "-c", help="The collection."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
) -> None:
    """Delete a document (every chunk cut from it) or a single chunk.

    Example: selfrag documents delete reports/walmart-fy2023.md --collection filings --yes
    """
    from selfrag.errors import DocumentNotFound

    api = f"DELETE /v1/collections/{collection}/documents/{doc_id}"
    with _store("selfrag documents delete", write=True, api=api) as store:
        coll = store.get_collection(collection)
        chunks = coll.chunks_of(doc_id)
        if not chunks:
            raise DocumentNotFound(f"no document or chunk {doc_id!r} in collection {collection!r}")
        _confirm(f"Delete document {doc_id!r} ({len(chunks)} chunks) from {collection!r}?", yes)
        deleted = coll.delete(chunks)
        from selfrag.settings import load_settings
        from workflows.factory import refresh_lexical

        refresh_lexical(load_settings(), coll)
    err_console.print(f"deleted {doc_id!r} from {collection!r} ({deleted} chunks)", markup=False, soft_wrap=True)
