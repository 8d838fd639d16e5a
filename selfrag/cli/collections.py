"""``selfrag collections`` and ``selfrag documents``: see what is stored, and delete it.

Listing opens the embedded store for reading (beside other readers); deleting opens it for writing,
and asks first unless ``--yes`` is given. With a server (``--url``, ``SELFRAG_URL``, or the one
holding the data directory) every command goes through its API instead (``selfrag.cli._client``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer

from selfrag.cli._client import KEY_HELP, URL_HELP, remote_for
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
def list_collections(
    as_json: bool = typer.Option(False, "--json", help="Print {\"collections\": [{\"name\", \"count\"}]} on stdout."),
    url: str | None = typer.Option(None, "--url", help=URL_HELP),
    key: str | None = typer.Option(None, "--key", help=KEY_HELP),
) -> None:
    """List collections with their numbers of chunks.

    Example: selfrag collections list --json
    """
    remote = remote_for(url, key)
    if remote is not None:
        with remote:
            rows = [(c["name"], int(c["count"])) for c in remote.request("GET", "/v1/collections")["collections"]]
    else:
        with _store("selfrag collections list", write=False, api="GET /v1/collections") as store:
            rows = [(name, store.get_collection(name).count()) for name in store.list_collections()]
    if as_json:
        typer.echo(json.dumps({"collections": [{"name": n, "count": c} for n, c in rows]}, ensure_ascii=False))
        return
    if not rows:
        err_console.print("no collections yet: create one with 'selfrag ingest'", markup=False, soft_wrap=True)
    for name, count in rows:
        out_console.print(f"{name}  {count} chunks", markup=False, soft_wrap=True)


@collections_app.command("show")
@handle_errors
def show_collection(
    name: str = typer.Argument(..., help="The collection."),
    as_json: bool = typer.Option(False, "--json", help="Schema, counts and known values as one JSON object."),
    url: str | None = typer.Option(None, "--url", help=URL_HELP),
    key: str | None = typer.Option(None, "--key", help=KEY_HELP),
) -> None:
    """Show a collection: its schema, how many documents and chunks it holds, and the known values
    of its string attributes.

    Example: selfrag collections show movies
    """
    remote = remote_for(url, key)
    if remote is not None:
        with remote:
            detail = remote.request("GET", f"/v1/collections/{name}")
            documents = remote.request("GET", f"/v1/collections/{name}/documents")["documents"]
        _print_collection(name, detail["schema"], len(documents), sum(d["chunks"] for d in documents),
                          detail["known_values"], as_json=as_json)
        return
    with _store("selfrag collections show", write=False, api=f"GET /v1/collections/{name}") as store:
        coll = store.get_collection(name)
        documents = coll.documents()
        chunks = sum(d.chunks for d in documents)
        catalogue = coll.catalogue()
    _print_collection(name, coll.schema.model_dump(mode="json"), len(documents), chunks, catalogue, as_json=as_json)
    if as_json:
        return
    legacy = sum(1 for d in documents if d.source.startswith("/"))
    if legacy:
        err_console.print(
            f"note: {legacy} documents are named by an absolute path (stored by an earlier selfrag): ingesting "
            "their files again from the same place replaces them; from elsewhere, rebuild the collection",
            markup=False, soft_wrap=True,
        )


def _print_collection(
    name: str, schema: dict[str, Any], documents: int, chunks: int, catalogue: dict[str, list[str]], *, as_json: bool
) -> None:
    if as_json:
        typer.echo(json.dumps({
            "name": name, "documents": documents, "chunks": chunks, "schema": schema, "known_values": catalogue,
        }, ensure_ascii=False))
        return
    lines = [f"{name}: {documents} documents, {chunks} chunks"]
    if schema.get("description"):
        lines.append(f"  {schema['description']}")
    for attr in schema.get("attributes") or []:
        line = f"  {attr['name']} ({attr['type']})" + (f": {attr['description']}" if attr.get("description") else "")
        if attr.get("kind"):
            line += f"  [kind: {attr['kind']}" + (f" in {attr['unit']}]" if attr.get("unit") else "]")
        known = catalogue.get(attr["name"])
        if known:
            shown = ", ".join(known[:10]) + (f", … ({len(known)} values)" if len(known) > 10 else "")
            line += f"  [known: {shown}]"
        lines.append(line)
    for line in lines:
        out_console.print(line, markup=False, soft_wrap=True)


@collections_app.command("delete")
@handle_errors
def delete_collection(
    name: str = typer.Argument(..., help="The collection."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    url: str | None = typer.Option(None, "--url", help=URL_HELP),
    key: str | None = typer.Option(None, "--key", help=KEY_HELP),
) -> None:
    """Delete a collection and everything in it.

    Example: selfrag collections delete movies --yes
    """
    remote = remote_for(url, key)
    if remote is not None:
        with remote:
            count = int(remote.request("GET", f"/v1/collections/{name}")["count"])
            _confirm(f"Delete collection {name!r} and its {count} chunks?", yes)
            remote.request("DELETE", f"/v1/collections/{name}")
        err_console.print(f"deleted collection {name!r} ({count} chunks)", markup=False, soft_wrap=True)
        return
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
def list_documents(
    collection: str = typer.Option(..., "--collection", "-c", help="The collection."),
    as_json: bool = typer.Option(False, "--json", help="Print {\"collection\", \"documents\": [{\"id\", \"chunks\", \"source\"}]} on stdout."),
    url: str | None = typer.Option(None, "--url", help=URL_HELP),
    key: str | None = typer.Option(None, "--key", help=KEY_HELP),
) -> None:
    """List a collection's documents: id, number of chunks, and where each came from.

    Example: selfrag documents list --collection filings
    """
    remote = remote_for(url, key)
    if remote is not None:
        with remote:
            rows = remote.request("GET", f"/v1/collections/{collection}/documents")["documents"]
    else:
        api = f"GET /v1/collections/{collection}/documents"
        with _store("selfrag documents list", write=False, api=api) as store:
            rows = [{"id": d.id, "chunks": d.chunks, "source": d.source} for d in store.get_collection(collection).documents()]
    if as_json:
        typer.echo(json.dumps({"collection": collection, "documents": rows}, ensure_ascii=False))
        return
    if not rows:
        err_console.print(f"collection {collection!r} has no documents", markup=False, soft_wrap=True)
    for doc in rows:
        out_console.print(f"{doc['id']}  {doc['chunks']} chunks  {doc['source']}".rstrip(), markup=False, soft_wrap=True)


@documents_app.command("delete")
@handle_errors
def delete_document(
    doc_id: str = typer.Argument(..., help="The document's id (see 'selfrag documents list'), or one chunk's id."),
    collection: str = typer.Option(..., "--collection", "-c", help="The collection."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    url: str | None = typer.Option(None, "--url", help=URL_HELP),
    key: str | None = typer.Option(None, "--key", help=KEY_HELP),
) -> None:
    """Delete a document (every chunk cut from it) or a single chunk.

    Example: selfrag documents delete reports/walmart-fy2023.md --collection filings --yes
    """
    from selfrag.errors import DocumentNotFound

    remote = remote_for(url, key)
    if remote is not None:
        with remote:
            _confirm(f"Delete document {doc_id!r} from {collection!r}?", yes)
            deleted = remote.request("DELETE", f"/v1/collections/{collection}/documents/{doc_id}")["deleted"]
        err_console.print(f"deleted {doc_id!r} from {collection!r} ({deleted} chunks)", markup=False, soft_wrap=True)
        return

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
