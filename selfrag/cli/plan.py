"""``selfrag plan``: only the self-query step, for inspecting filters."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from selfrag.cli._client import KEY_HELP, URL_HELP, remote_for
from selfrag.cli._common import err_console, fail, handle_errors, out_console, shown

if TYPE_CHECKING:
    from selfrag.kg import GraphContext
    from selfrag.query import SelfQueryPlanner
    from selfrag.schema import CollectionSchema

__all__ = ["plan"]


@handle_errors
def plan(
    question: str | None = typer.Argument(None, help="The question to plan (or use --file)."),
    collection: str = typer.Option(..., "--collection", "-c", help="The collection whose schema the plan uses."),
    file: Path | None = typer.Option(None, "--file", "-f", help="A file of questions, one per line."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per question: query, filter, limit."),
    explain: bool = typer.Option(False, "--explain", help="With --json, add source and validation changes."),
    url: str | None = typer.Option(None, "--url", help=URL_HELP),
    key: str | None = typer.Option(None, "--key", help=KEY_HELP),
) -> None:
    """Turn questions into a semantic query, a Chroma filter and a limit, without retrieving.

    Example: selfrag plan --collection movies "What's a highly rated (above 8.5) science fiction film?" --json
    Example: selfrag plan -c movies "films by Christopher Nolan" --url http://127.0.0.1:8000
    """
    from selfrag.errors import IngestError, InvalidQuestion
    from selfrag.ingest import display_path, read_text
    from selfrag.providers import make_embeddings
    from selfrag.query import build_planner
    from selfrag.settings import load_settings
    from selfrag.store import Store, StoreUse
    from workflows import SelfRagEngine

    if (question is None) == (file is None):
        fail("give exactly one of QUESTION or --file FILE")
    if file is not None:
        # The same decoder as ingest: UTF-8, or a legacy encoding such as Latin-1; binary is refused.
        try:
            text = read_text(file, f"--file {display_path(file)}")
        except IngestError as exc:  # the question file is a usage matter, not an ingest
            fail(exc.one_line(), "usage_error")
        questions = [ln.strip() for ln in text.splitlines() if ln.strip()]
    else:
        questions = [question or ""]
    if not questions:
        raise InvalidQuestion("the question is empty")
    for number, q in enumerate(questions, 1):  # held to the engine's own check, as ask is
        SelfRagEngine.check_question(q, f"question {number}" if file is not None else "the question")
    remote = remote_for(url, key)
    if remote is not None:
        # A running server holds the store: its own planner plans (POST /v1/collections/{name}/plan).
        err_console.print(f"[dim]  planning on {shown(remote.url)}[/]", markup=True, soft_wrap=True)
        with remote:
            for q in questions:
                # The text shows which constructor planned it (``source``), as the local one does.
                _show(q, remote.request("POST", f"/v1/collections/{collection}/plan",
                                        json={"question": q, "explain": explain or not as_json}), as_json=as_json)
        return

    settings = load_settings()
    embeddings = make_embeddings(settings.embeddings)
    store = Store.from_settings(settings, embeddings, use=StoreUse("selfrag plan", write=False))
    coll = store.get_collection(collection)
    planner = build_planner(settings, embeddings=embeddings)
    schema, catalogue = coll.schema, coll.catalogue()
    graph_store = None
    graph: GraphContext | None = None
    if schema.graph is not None:
        # Relation conditions and entity mentions need the linked graph's entities (not resolved here).
        from selfrag.kg import GraphContext, open_graph_store

        graph_store = open_graph_store(settings.home, settings.graph.url)
        graph = GraphContext.build(schema.graph, graph_store)
    try:
        _plan_all(questions, planner, schema, catalogue, graph, as_json=as_json, explain=explain)
    finally:
        if graph_store is not None:
            graph_store.close()


def _plan_all(
    questions: list[str], planner: SelfQueryPlanner, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]],
    graph: GraphContext | None, *, as_json: bool, explain: bool,
) -> None:
    for q in questions:
        _show(q, planner.plan(q, schema, catalogue, graph=graph).shown(explain=explain or not as_json), as_json=as_json)


def _show(question: str, row: Mapping[str, Any], *, as_json: bool) -> None:
    """One plan (``Plan.shown``, here or from a server) as a JSON line or as text."""
    if as_json:
        typer.echo(json.dumps(row, ensure_ascii=False))
        return
    out_console.print(f"[bold]{shown(question)}[/]\n  query  {shown(repr(row['query']))}\n  filter {shown(str(row['filter']))}"
                      f"\n  limit  {row['limit']}" + (f"  ({row['source']})" if row.get("source") else ""),
                      markup=True, soft_wrap=True)
    for t in row.get("graph") or ():
        what = f"{t['relation']}({t['value']})" if t.get("relation") else f"mentions {t['value']}"
        who = t["entity"]["name"] if t.get("entity") else "ambiguous: " + ", ".join(c["name"] for c in t.get("candidates", ()))
        out_console.print(f"  graph  {shown(what)} → {shown(who)}", markup=True, soft_wrap=True)
    if row.get("latest"):
        out_console.print("  latest first", markup=True)
