"""``GET /v1/collections/{name}/documents``: what ``selfrag documents list`` shows, over HTTP.

Its own module (the rest of the collection routes are in ``collections``) so that the listing and
its response shapes stay one small, separately readable piece.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from fastapi import Path as PathParam
from pydantic import BaseModel, Field

from selfrag.service.deps import AuthenticatedRoute, CurrentPrincipal, CurrentService
from selfrag.service.models import COLLECTION_PATTERN
from selfrag.service.routes._responses import errors

__all__ = ["DocumentList", "DocumentSummary", "router"]

router = APIRouter(prefix="/v1/collections", tags=["collections"], route_class=AuthenticatedRoute)


class DocumentSummary(BaseModel):
    id: str = Field(description="The document's id (delete it with DELETE …/documents/{id}).")
    chunks: int = Field(description="Chunks cut from it.")
    source: str = Field(description="Where it came from (a path relative to its ingest root, api:<id>, ...); empty if unknown.")


class DocumentList(BaseModel):
    collection: str
    documents: list[DocumentSummary] = Field(description="Every stored document, sorted by id.")


@router.get("/{name}/documents", response_model=DocumentList, responses=errors(400, 401, 403, 404, 503))
def list_documents(
    name: Annotated[str, PathParam(pattern=COLLECTION_PATTERN, description="Collection name")],
    service: CurrentService,
    principal: CurrentPrincipal,
) -> DocumentList:
    """The collection's documents: id, number of chunks and source (a full scan of the collection)."""
    collection = service.readable_collection(principal, name)
    return DocumentList(
        collection=name,
        documents=[DocumentSummary(id=d.id, chunks=d.chunks, source=d.source) for d in collection.documents()],
    )
