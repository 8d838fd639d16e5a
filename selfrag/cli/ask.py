"""``selfrag ask``: one question through the Self-RAG graph."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

from selfrag.cli._common import check_thread_id, err_console, handle_errors, out_console
from selfrag.cli._progress import print_event
from selfrag.errors import UsageError
from selfrag.settings import load_settings

__all__ = ["ask", "print_result"]


def print_result(console: Console, result: object) -> None:
    """A human rendering of a ``workflows.Result``: outcome, answer, citations, figures."""
    from workflows import Outcome, Result

    assert isinstance(result, Result)
    colour = {Outcome.ANSWERED: "green", Outcome.ABSTAINED: "yellow"}.get(result.outcome, "red")
    console.print(f"[bold {colour}]{result.outcome.value}[/]  {escape(result.answer)}", markup=True, soft_wrap=True)
    for c in result.citations:
        meta = ", ".join(f"{k}={v}" for k, v in c.metadata.items() if k not in ("source", "ext", "chunk", "doc_hash"))
        source = f"{c.resource}: " if c.resource and len(result.collections) > 1 else ""
        console.print(f"   [{c.number}] {escape(source + c.id[:16])}  {escape(c.text[:100])}  [dim]{escape(meta)}[/]",
                      markup=True, soft_wrap=True)
    t = result.trace
    sure = f"  ·  reader p={result.confidence:.2f}" if result.confidence is not None else ""
    console.print(
        f"[dim]   filter {result.filter}{sure}  ·  {len(t.path)} steps  ·  {t.llm.calls} LLM calls, "
        f"{t.llm.total_tokens} tokens  ·  {t.total_ms / 1000:.1f} s[/]", markup=True, soft_wrap=True,
    )


@handle_errors
def ask(
    question: str = typer.Argument(..., help="The question to answer."),
    collection: list[str] = typer.Option(
        ..., "--collection", "-c", help="Collection to answer from; repeat for several (searched concurrently, merged)."
    ),
    search: list[str] = typer.Option(
        [], "--search", help="Per-collection search settings, e.g. movies:k=10,min_score=0.3,self_query=off (repeatable)."
    ),
    thread: str | None = typer.Option(None, "--thread", help="Conversation id: follow-ups use its history."),
    as_json: bool = typer.Option(False, "--json", help="Print the full result with its trace as JSON on stdout."),
    max_rewrites: int | None = typer.Option(None, min=0, max=10, help="Override the rewrite budget."),
    max_generations: int | None = typer.Option(None, min=1, max=10, help="Override the generation budget."),
) -> None:
    """Answer QUESTION from a collection, correcting itself on the way.

    Progress goes to stderr node by node; the answer (or, with --json, the full result) to stdout.
    With several collections, one that fails is reported in the trace and the others answer.

    Example: selfrag ask "Which movies did Greta Gerwig direct?" --collection movies
    Example: selfrag ask "Who directed Alien?" -c movies -c reviews --search reviews:k=2,self_query=off
    """
    from selfrag.store import StoreUse
    from workflows import NodeEvent, Result
    from workflows.factory import build_engine, close_checkpointer, open_store
    from workflows.resources import Resource, parse_search

    if thread is not None:
        check_thread_id(thread)
    names = list(dict.fromkeys(collection))
    settings_for = dict(parse_search(s) for s in search)
    unknown = sorted(set(settings_for) - set(names))
    if unknown:
        raise UsageError(f"--search names {', '.join(map(repr, unknown))}, not given with --collection")
    resources = [Resource(n, settings_for[n]) if n in settings_for else Resource(n) for n in names]
    settings = load_settings()
    with open_store(settings, StoreUse("selfrag ask", write=False, api="POST /v1/answers")) as store:
        engine = build_engine(settings, store=store, memory=thread is not None)
        try:
            options = engine.with_options(max_rewrites=max_rewrites, max_generations=max_generations)
            result = None
            for event in engine.stream(question, resources=resources, thread_id=thread, options=options):
                if isinstance(event, NodeEvent):
                    print_event(err_console, event.node, event.update)
                elif isinstance(event, Result):
                    result = event
        finally:
            if engine.checkpointer is not None:
                close_checkpointer(engine.checkpointer)
            engine.close()
    assert result is not None
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        print_result(out_console, result)
