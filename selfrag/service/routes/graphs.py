"""Knowledge graphs: load (idempotent upsert), list, describe, delete.

A graph lives in the graph store every instance shares (``graph.url``), so a graph loaded through
one instance answers relationship questions on all of them. Scopes: a graph name is checked
against the key's scopes like a collection name (``write`` to load or delete, ``read`` to see it).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from fastapi import Path as PathParam

from selfrag.errors import GraphNotFound
from selfrag.service.deps import AuthenticatedRoute, CurrentPrincipal, CurrentService
from selfrag.service.models import GRAPH_PATTERN, GraphDetail, GraphIn, GraphList, GraphLoaded
from selfrag.service.routes._responses import errors

__all__ = ["router"]

router = APIRouter(prefix="/v1/graphs", tags=["graphs"], route_class=AuthenticatedRoute)

GraphName = Annotated[str, PathParam(pattern=GRAPH_PATTERN, description="Graph name (letters, digits, '_')")]


@router.put("/{name}", response_model=GraphLoaded, responses=errors(400, 401, 403, 413, 429, 503, 504))
async def load_graph(name: GraphName, body: GraphIn, service: CurrentService, principal: CurrentPrincipal) -> GraphLoaded:
    """Load nodes (by ``id``) and edges (by source, type, target) into graph ``name``, creating it;
    loading the same data again changes nothing. An edge naming an unknown node refuses the whole
    load (nothing is written). At most ``max_graph_elements`` nodes and edges an upload (413), one
    upload per tenant at a time (429), each within ``graph_load_deadline_s`` (504: part of it is
    written, and sending it again completes it); uploads never hold the ingest workers."""
    principal.require_write(name)
    report = await service.load_graph(principal, name, body.nodes, body.edges)
    return GraphLoaded(graph=report.graph, nodes=report.nodes, edges=report.edges,
                       nodes_created=report.nodes_created, edges_created=report.edges_created)


@router.get("", response_model=GraphList, responses=errors(401, 503))
async def list_graphs(service: CurrentService, principal: CurrentPrincipal) -> GraphList:
    """The loaded graphs this key may read."""
    store = await service.off_loop(service.graph_store)
    names = await service.off_loop(store.list_graphs)
    return GraphList(graphs=sorted(n for n in names if principal.can_read(n)))


@router.get("/{name}", response_model=GraphDetail, responses=errors(401, 403, 404, 503))
async def show_graph(name: GraphName, service: CurrentService, principal: CurrentPrincipal) -> GraphDetail:
    """Node counts per label and edge counts per relationship type."""
    principal.require_read(name)
    store = await service.off_loop(service.graph_store)
    summary = await service.off_loop(store.summary, name)
    return GraphDetail(graph=summary.graph, labels=dict(summary.labels), types=dict(summary.types))


@router.delete("/{name}", status_code=204, responses=errors(401, 403, 404, 503))
async def delete_graph(name: GraphName, service: CurrentService, principal: CurrentPrincipal) -> None:
    """Delete graph ``name`` (collections linked to it then fail with ``graph_not_found``)."""
    principal.require_write(name)
    store = await service.off_loop(service.graph_store)
    if name not in await service.off_loop(store.list_graphs):
        raise GraphNotFound(name)
    await service.off_loop(store.delete_graph, name)
