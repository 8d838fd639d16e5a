"""``selfrag ask``: one question through the Self-RAG graph."""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.console import Console

from selfrag.cli._client import KEY_HELP, URL_HELP, Remote, remote_for
from selfrag.cli._common import check_thread_id, err_console, handle_errors, out_console, shown
from selfrag.cli._progress import print_event
from selfrag.errors import UsageError

__all__ = ["ask", "print_answer", "print_result"]


def print_result(console: Console, result: object) -> None:
    """A human rendering of a ``workflows.Result``: outcome, answer, citations, figures."""
    from workflows import Outcome, Result

    assert isinstance(result, Result)
    colour = {Outcome.ANSWERED: "green", Outcome.ABSTAINED: "yellow"}.get(result.outcome, "red")
    console.print(f"[bold {colour}]{result.outcome.value}[/]  {shown(result.answer, lines=True)}", markup=True, soft_wrap=True)
    for c in result.citations:
        meta = ", ".join(f"{k}={v}" for k, v in c.metadata.items() if k not in ("source", "ext", "chunk", "doc_hash"))
        source = f"{c.resource}: " if c.resource and len(result.collections) > 1 else ""
        console.print(f"   [{c.number}] {shown(source + c.id)}  {shown(c.text[:100])}  [dim]{shown(meta)}[/]",
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
    url: str | None = typer.Option(None, "--url", help=URL_HELP),
    key: str | None = typer.Option(None, "--key", help=KEY_HELP),
) -> None:
    """Answer QUESTION from a collection, correcting itself on the way.

    Progress goes to stderr node by node; the answer (or, with --json, the full result) to stdout.
    With several collections, one that fails is reported in the trace and the others answer.

    Example: selfrag ask "Which movies did Greta Gerwig direct?" --collection movies
    Example: selfrag ask "Who directed Alien?" -c movies -c reviews --search reviews:k=2,self_query=off
    Example: selfrag ask "Who directed Alien?" -c movies --url http://127.0.0.1:8000
    """
    if thread is not None:
        check_thread_id(thread)
    names = list(dict.fromkeys(collection))
    settings_for: dict[str, Any] = {}
    if search:  # the engine's own parser; imported only when needed (it loads the engine's package)
        from workflows.resources import parse_search

        settings_for = dict(parse_search(s) for s in search)
    unknown = sorted(set(settings_for) - set(names))
    if unknown:
        raise UsageError(f"--search names {', '.join(map(repr, unknown))}, not given with --collection")
    remote = remote_for(url, key)
    if remote is not None:
        with remote:
            _ask_remote(remote, question, names, settings_for, thread, max_rewrites, max_generations, as_json)
        return

    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows import NodeEvent, Result
    from workflows.factory import build_engine, close_checkpointer, open_store
    from workflows.resources import Resource

    resources = [Resource(n, settings_for[n]) if n in settings_for else Resource(n) for n in names]
    settings = load_settings()
    with open_store(settings, StoreUse("selfrag ask", write=False, api="POST /v1/answers")) as store:
        # A collection named that does not exist is a mistake (a typo), refused as POST /v1/answers
        # refuses it; before a thread's checkpoints are opened, which would create them.
        for missing in [n for n in names if not store.has_collection(n)][:1]:
            store.get_collection(missing)
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


def _ask_remote(
    remote: Remote, question: str, names: list[str], search: dict[str, Any], thread: str | None,
    max_rewrites: int | None, max_generations: int | None, as_json: bool,
) -> None:
    body: dict[str, Any] = {"question": question, "collections": names, "include_trace": as_json}
    if search:
        body["search"] = {name: _search_body(s) for name, s in search.items()}
    for field, value in (("thread_id", thread), ("max_rewrites", max_rewrites), ("max_generations", max_generations)):
        if value is not None:
            body[field] = value
    err_console.print(f"[dim]  asking {shown(remote.url)}[/]", markup=True, soft_wrap=True)
    answer = remote.request("POST", "/v1/answers", json=body)
    if as_json:
        typer.echo(json.dumps(answer, indent=2, ensure_ascii=False))
    else:
        print_answer(out_console, answer)


def print_answer(console: Console, answer: dict[str, Any]) -> None:
    """A human rendering of the API's answer body (``POST /v1/answers``), as ``print_result`` renders a result."""
    outcome = str(answer["outcome"])
    colour = {"answered": "green", "abstained": "yellow"}.get(outcome, "red")
    console.print(f"[bold {colour}]{outcome}[/]  {shown(str(answer['answer']), lines=True)}", markup=True, soft_wrap=True)
    several = len(answer.get("collections") or []) > 1
    for c in answer.get("citations") or []:
        meta = ", ".join(f"{k}={v}" for k, v in c["metadata"].items() if k not in ("source", "ext", "chunk", "doc_hash"))
        source = f"{c['resource']}: " if c.get("resource") and several else ""
        console.print(f"   [{c['number']}] {shown(source + c['id'])}  {shown(c['text'][:100])}  [dim]{shown(meta)}[/]",
                      markup=True, soft_wrap=True)
    usage = answer.get("usage") or {}
    console.print(f"[dim]   filter {answer.get('filter')}  ·  {usage.get('calls', 0)} LLM calls  ·  via the server[/]",
                  markup=True, soft_wrap=True)


def _search_body(search: Any) -> dict[str, Any]:
    """A ``ResourceSearch`` as the API's ``SearchOptions`` (its ``where`` is the API's ``filter``)."""
    from dataclasses import asdict

    fields = {("filter" if k == "where" else k): v for k, v in asdict(search).items()}
    return {k: v for k, v in fields.items() if v is not None}
