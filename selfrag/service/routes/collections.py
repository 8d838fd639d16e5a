"""Collections: create with a schema, list, describe, ingest documents, delete a document.

Every route checks the key's scope for the *name* before looking the collection up, so a
tenant learns nothing about collections outside its scopes (the same 403 whether they exist).
Writes to one collection are serialised, across instances too (see ``selfrag.service.locks``).
"""

from __future__ import annotations

import functools
import hashlib
import tempfile
from pathlib import Path, PurePath
from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException

from selfrag.errors import DocumentNotFound, IngestError
from selfrag.ingest import (
    SUPPORTED_EXTENSIONS,
    MentionExtractor,
    MetadataExtractor,
    SourceDocument,
    load_file,
    prepare_documents,
    reserved_keys_message,
    store_batch,
)
from selfrag.service.auth import Principal
from selfrag.service.context import Service
from selfrag.service.deps import AuthenticatedRoute, CurrentPrincipal, CurrentService
from selfrag.service.models import (
    COLLECTION_PATTERN,
    DOCUMENT_ID_PATTERN,
    CollectionCreate,
    CollectionDetail,
    CollectionList,
    CollectionSummary,
    DocumentsDeleted,
    DocumentsIn,
    IngestResult,
    PlanOut,
    PlanRequest,
)
from selfrag.service.routes._responses import errors
from selfrag.store import Collection

__all__ = ["router"]

router = APIRouter(prefix="/v1/collections", tags=["collections"], route_class=AuthenticatedRoute)

CollectionName = Annotated[str, PathParam(pattern=COLLECTION_PATTERN, description="Collection name")]
MAX_UPLOAD_FILES = 100


def _detail(collection: Collection) -> CollectionDetail:
    catalogue = collection.catalogue()
    return CollectionDetail(
        name=collection.name,
        count=collection.count(),
        attributes_schema=collection.schema.model_dump(mode="json"),
        known_values=catalogue,
        incomplete=[a for a in catalogue if not collection.catalogue_complete(a)],
    )


@router.post("", status_code=201, response_model=CollectionDetail, responses=errors(400, 401, 403, 409, 413))
def create_collection(body: CollectionCreate, service: CurrentService, principal: CurrentPrincipal) -> CollectionDetail:
    """Create a collection with its attribute schema (what the self-query may filter on)."""
    principal.require_write(body.name)
    if body.attributes_schema.graph is not None:
        principal.require_graph(body.attributes_schema.graph.graph)
    MetadataExtractor(body.attributes_schema)  # an extractor naming a group its pattern lacks: 400 now, not at ingest
    with service.locks.hold(body.name):
        collection = service.store.create_collection(body.name, body.attributes_schema)
    return _detail(collection)


@router.get("", response_model=CollectionList, responses=errors(401, 403, 503))
def list_collections(service: CurrentService, principal: CurrentPrincipal) -> CollectionList:
    """The collections this key may read (others are not even named)."""
    names = [n for n in service.store.list_collections() if principal.can_read(n)]
    return CollectionList(
        collections=[CollectionSummary(name=n, count=service.store.get_collection(n).count()) for n in names]
    )


@router.get("/{name}", response_model=CollectionDetail, responses=errors(400, 401, 403, 404, 503))
def get_collection(name: CollectionName, service: CurrentService, principal: CurrentPrincipal) -> CollectionDetail:
    """Schema, document count and the known values of each string attribute."""
    return _detail(service.readable_collection(principal, name))


@router.post("/{name}/plan", response_model=PlanOut, response_model_exclude_unset=True,
             responses=errors(400, 401, 403, 404, 503))
async def plan(name: CollectionName, body: PlanRequest, service: CurrentService, principal: CurrentPrincipal) -> PlanOut:
    """Plan a question over the collection's schema without retrieving: the search text, the
    Chroma filter and the limit the self-query step would use (``selfrag plan``). Nothing is
    searched and nothing is stored."""
    return await run_in_threadpool(service.plan, principal, name, body)


@router.delete("/{name}", status_code=204, responses=errors(400, 401, 403, 404, 503))
def delete_collection(name: CollectionName, service: CurrentService, principal: CurrentPrincipal) -> None:
    """Delete a collection and everything in it."""
    principal.require_write(name)
    with service.locks.hold(name):
        service.store.delete_collection(name)
        service.engine.components.retrieval.forget(name)


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema with its ``$defs`` substituted in place: an OpenAPI document resolves ``$ref``
    from its own root, where a model's ``$defs`` do not exist."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return resolve(defs[ref.removeprefix("#/$defs/")])
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    resolved: dict[str, Any] = resolve(schema)
    return resolved


_INGEST_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": _inline(DocumentsIn.model_json_schema())},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                        "chunk_size": {"type": "integer", "minimum": 50, "maximum": 20000},
                        "chunk_overlap": {"type": "integer", "minimum": 0, "maximum": 10000},
                    },
                    "required": ["files"],
                }
            },
        },
    }
}


@router.post(
    "/{name}/documents",
    status_code=201,
    response_model=IngestResult,
    responses=errors(400, 401, 403, 404, 413, 415, 503),
    openapi_extra=_INGEST_BODY,
)
async def add_documents(
    name: CollectionName, request: Request, service: CurrentService, principal: CurrentPrincipal
) -> IngestResult:
    """Ingest documents: JSON (`{"documents": [{"id", "text", "metadata"}]}`) or uploaded files
    (multipart `files`: .txt, .md, .html, .pdf, .jsonl). A document is its id (an uploaded file: its
    name; a jsonl line: its `id`): sending it again replaces it, and an unchanged one costs nothing.
    Everything is checked against the schema before the first write, so a bad document leaves the
    collection as it was."""
    principal.require_write(name)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    files: list[str] = []
    if content_type == "application/json":
        documents, sizes = await _json_documents(request)
    elif content_type == "multipart/form-data":
        documents, sizes, files = await _uploaded_documents(request, service)
    else:
        raise StarletteHTTPException(415, "send documents as application/json or files as multipart/form-data")
    return await service.off_loop(_ingest, service, principal, name, documents, sizes, files)


def _ingest(
    service: Service,
    principal: Principal,
    name: str,
    documents: list[SourceDocument],
    sizes: dict[str, int],
    files: list[str],
) -> IngestResult:
    # Split (the slow, CPU-bound part) before taking the lock; the schema cannot change meanwhile.
    schema = service.readable_collection(principal, name).schema
    store_defaults = service.settings.store
    # A collection linked to a graph: mention attributes the documents lack come from their text.
    mentions = MentionExtractor.from_store(service.graph_store(), schema.graph) if schema.graph is not None else None
    batch = prepare_documents(
        schema,
        documents,
        chunk_size=sizes.get("chunk_size", store_defaults.chunk_size),
        chunk_overlap=sizes.get("chunk_overlap", store_defaults.chunk_overlap),
        sources=files,
        mentions=mentions,
    )
    with service.writing(principal, name) as collection:
        report = store_batch(collection, batch)
    return IngestResult(
        collection=name,
        documents=[d.id for d in batch.documents],
        chunks=report.chunks,
        added=len(report.added),
        replaced=len(report.replaced),
        unchanged=len(report.unchanged),
        removed=len(report.removed),
        embedded=report.embedded,
    )


async def _json_documents(request: Request) -> tuple[list[SourceDocument], dict[str, int]]:
    raw = await request.body()
    try:
        body = DocumentsIn.model_validate_json(raw)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None
    documents = []
    for n, doc in enumerate(body.documents, 1):
        doc_id = doc.id or hashlib.sha256(doc.text.encode()).hexdigest()[:32]
        reserved = reserved_keys_message(doc.metadata)
        if reserved:
            raise IngestError(f"document {n} ({doc_id!r}): {reserved}")
        meta = {k: v for k, v in doc.metadata.items() if v is not None}
        meta["source"] = f"api:{doc_id}"
        documents.append(SourceDocument(text=doc.text, metadata=meta, doc_id=doc_id))
    sizes = {k: v for k, v in (("chunk_size", body.chunk_size), ("chunk_overlap", body.chunk_overlap)) if v is not None}
    return documents, sizes


async def _uploaded_documents(
    request: Request, service: Service
) -> tuple[list[SourceDocument], dict[str, int], list[str]]:
    form = await request.form(max_files=MAX_UPLOAD_FILES, max_fields=10)
    try:
        uploads = [f for f in form.getlist("files") if isinstance(f, UploadFile)]
        if not uploads:
            raise StarletteHTTPException(400, "no files: send them as multipart form field 'files'")
        sizes: dict[str, int] = {}
        for key in ("chunk_size", "chunk_overlap"):
            value = form.get(key)
            if value is not None:
                try:
                    sizes[key] = int(str(value))
                except ValueError:
                    raise StarletteHTTPException(400, f"{key} must be an integer") from None
        documents: list[SourceDocument] = []
        names: list[str] = []
        with tempfile.TemporaryDirectory(prefix="selfrag-upload-") as tmp:
            for n, upload in enumerate(uploads):
                filename = _safe_filename(upload.filename, n)
                # Each file in its own directory under its own (sanitised) name: loaders dispatch on
                # the extension, and two uploads of the same name must not overwrite each other.
                path = Path(tmp) / str(n) / filename
                path.parent.mkdir()
                path.write_bytes(await upload.read())
                # Named and identified by the upload's file name: never the temporary path.
                documents += await service.off_loop(functools.partial(load_file, path, name=filename, source=filename))
                names.append(filename)
        return documents, sizes, names
    finally:
        await form.close()


def _safe_filename(name: str | None, n: int) -> str:
    """The upload's base name only (no directories, no '..'), or a placeholder; its extension kept."""
    base = PurePath((name or "").replace("\\", "/")).name.strip()
    if not base or base in (".", "..") or any(ord(ch) < 32 for ch in base):
        raise StarletteHTTPException(400, f"file {n + 1} has no usable file name")
    if Path(base).suffix.lower() not in SUPPORTED_EXTENSIONS:
        raise IngestError(f"{base}: unsupported file type (supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))})")
    return base[:200]


@router.delete(
    "/{name}/documents/{doc_id:path}", response_model=DocumentsDeleted, responses=errors(400, 401, 403, 404, 503)
)
def delete_document(
    name: CollectionName,
    doc_id: Annotated[str, PathParam(pattern=DOCUMENT_ID_PATTERN, description="A document id (all its chunks) or a chunk id")],
    service: CurrentService,
    principal: CurrentPrincipal,
) -> DocumentsDeleted:
    """Delete a document (every chunk cut from it) or a single chunk, by id."""
    with service.writing(principal, name) as collection:
        deleted = collection.delete_document(doc_id)
    if deleted == 0:
        raise DocumentNotFound(f"no document or chunk {doc_id!r} in collection {name!r}")
    return DocumentsDeleted(collection=name, id=doc_id, deleted=deleted)
