"""``selfrag kg``: knowledge graphs for relationship filters (load, list, show, delete).

The graph server is the embedded FalkorDB under the data directory (started for the command and
stopped after it, unless another process still uses it), or an external one with ``--url``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from selfrag.cli._common import handle_errors, out_console

if TYPE_CHECKING:
    from selfrag.kg import FalkorGraphStore

__all__ = ["kg_app"]

kg_app = typer.Typer(help="Manage knowledge graphs: entities and their relationships.", no_args_is_help=True)

_URL_HELP = "External FalkorDB server (redis://host:port); default: the embedded one under the data directory."


def _store(url: str | None) -> FalkorGraphStore:
    from selfrag.kg import open_graph_store
    from selfrag.settings import load_settings

    settings = load_settings()
    return open_graph_store(settings.home, url or settings.graph.url)


@kg_app.command("load")
@handle_errors
def load(
    graph: str = typer.Argument(..., help="Graph name (letters, digits, '_'), e.g. companies."),
    nodes: Path = typer.Option(..., "--nodes", help="nodes.jsonl: id, label, name, aliases, properties."),
    edges: Path | None = typer.Option(None, "--edges", help="edges.jsonl: source, type, target, properties."),
    url: str | None = typer.Option(None, "--url", envvar="SELFRAG_GRAPH__URL", help=_URL_HELP),
) -> None:
    """Load (or update) a graph from JSON-lines files; loading the same files again changes nothing.

    Example: selfrag kg load companies --nodes nodes.jsonl --edges edges.jsonl
    """
    from selfrag.kg import read_edges, read_nodes

    node_records = read_nodes(nodes)
    edge_records = read_edges(edges) if edges is not None else []
    with _store(url) as store:
        report = store.load(graph, node_records, edge_records)
    out_console.print(
        f"graph {graph!r}: {report.nodes} nodes ({report.nodes_created} new), {report.edges} edges ({report.edges_created} new)",
        markup=False, soft_wrap=True,
    )


@kg_app.command("list")
@handle_errors
def list_graphs(url: str | None = typer.Option(None, "--url", envvar="SELFRAG_GRAPH__URL", help=_URL_HELP)) -> None:
    """List the loaded graphs."""
    with _store(url) as store:
        for name in store.list_graphs():
            out_console.print(name, markup=False, soft_wrap=True)


@kg_app.command("show")
@handle_errors
def show(
    graph: str = typer.Argument(..., help="Graph name."),
    url: str | None = typer.Option(None, "--url", envvar="SELFRAG_GRAPH__URL", help=_URL_HELP),
) -> None:
    """Show a graph's node labels and relationship types with their counts.

    Example: selfrag kg show companies
    """
    with _store(url) as store:
        summary = store.summary(graph)
    out_console.print(f"graph {graph!r}", markup=False)
    for label, count in summary.labels.items():
        out_console.print(f"  node  {label}: {count}", markup=False, soft_wrap=True)
    for rtype, count in summary.types.items():
        out_console.print(f"  edge  {rtype}: {count}", markup=False, soft_wrap=True)


@kg_app.command("delete")
@handle_errors
def delete(
    graph: str = typer.Argument(..., help="Graph name."),
    url: str | None = typer.Option(None, "--url", envvar="SELFRAG_GRAPH__URL", help=_URL_HELP),
) -> None:
    """Delete a graph and everything in it.

    Example: selfrag kg delete companies
    """
    with _store(url) as store:
        store.delete_graph(graph)
    typer.echo(f"graph {graph!r} deleted", err=True)
