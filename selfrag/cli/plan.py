"""``selfrag plan``: only the self-query step, for inspecting filters."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from selfrag.cli._common import fail, handle_errors, out_console, shown

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
) -> None:
    """Turn questions into a semantic query, a Chroma filter and a limit, without retrieving.

    Example: selfrag plan --collection movies "What's a highly rated (above 8.5) science fiction film?" --json
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
        p = planner.plan(q, schema, catalogue, graph=graph)
        row: dict[str, object] = {"query": p.query.query, "filter": p.where, "limit": p.query.limit}
        if p.terms or p.latest:
            row.update(graph=[t.model_dump(mode="json") for t in p.terms], latest=p.latest)
        if explain:
            row.update(source=p.source, changes=[c.model_dump(mode="json") for c in p.changes], llm_error=p.llm_error)
        if as_json:
            typer.echo(json.dumps(row, ensure_ascii=False))
        else:
            out_console.print(f"[bold]{shown(q)}[/]\n  query  {shown(repr(p.query.query))}\n  filter {shown(str(p.where))}\n  limit  {p.query.limit}  ({p.source})", markup=True, soft_wrap=True)
            for t in p.terms:
                what = f"{t.relation}({t.value})" if t.relation else f"mentions {t.value}"
                who = t.entity.name if t.entity else "ambiguous: " + ", ".join(c.name for c in t.candidates)
                out_console.print(f"  graph  {shown(what)} → {shown(who)}", markup=True, soft_wrap=True)
            if p.latest:
                out_console.print("  latest first", markup=True)
