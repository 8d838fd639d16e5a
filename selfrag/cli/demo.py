"""``selfrag demo``: ingest the samples and answer a handful of questions, node by node."""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING

from selfrag.cli._common import err_console, handle_errors, out_console, shown
from selfrag.cli._progress import print_event
from selfrag.cli.ask import print_result

if TYPE_CHECKING:
    from workflows import SelfRagEngine

__all__ = ["DEMO_QUESTIONS", "demo"]

# (collection, question, thread): questions sharing a thread show follow-up condensing.
DEMO_QUESTIONS: list[tuple[str, str, str | None]] = [
    ("movies", "What are some movies about dinosaurs?", None),
    ("movies", "Has Greta Gerwig directed any movies about women?", None),
    ("movies", "What's a highly rated (above 8.5) science fiction film?", None),
    ("movies", "What's a movie after 1990 but before 2005 that's all about toys, and preferably is animated?", None),
    ("movies", "Which movie is about toys that come alive?", None),
    ("filings", "What was Walmart's revenue in fiscal year 2023?", "demo-walmart"),
    ("filings", "and in 2024?", "demo-walmart"),
    ("filings", "What did I just ask you?", "demo-walmart"),
    ("filings", "How many employees did Costco have in 2023?", None),
    ("filings", "What was Microsoft's revenue in fiscal year 2023?", None),
    # Relationship filters through the companies knowledge graph: a relation resolved to an entity
    # set, an ambiguous name asked about and answered on the thread, and latest-first.
    ("companies", "Did any of the companies where Rod Halverson sits on the board implement a new work-from-home policy?", None),
    ("companies", "Are there negative news about companies that supply Mercury?", "demo-mercury"),
    ("companies", "the first one", "demo-mercury"),
    ("companies", "What is the latest positive news about Graphwise?", None),
]
"""Questions that used to go wrong are kept here: the net-income figure given as Walmart's revenue,
a segment's revenue given as Microsoft's, the toys question lost to an invented search text, and a
question about the conversation itself. tests/integration/test_demo_answers.py checks each answer
against what the sample documents state."""


@handle_errors
def demo() -> None:
    """Ingest the movies, filings and companies samples, then answer sample questions offline.

    Example: selfrag demo
    """
    from selfrag.ingest import stage_progress
    from selfrag.samples import ingest_sample
    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows.factory import build_engine, open_store

    settings = load_settings()
    started = time.perf_counter()
    store = open_store(settings, StoreUse("selfrag demo"))
    engine = build_engine(settings, store=store)
    graphs = engine.components.graphs
    try:
        for name in ("movies", "filings", "companies"):
            with stage_progress(f"ingesting {name}", err_console) as progress:
                report = ingest_sample(
                    store, name, progress=progress, chunk_size=settings.store.chunk_size,
                    chunk_overlap=settings.store.chunk_overlap,
                    # companies loads its knowledge graph first (embedded FalkorDB, or graph.url)
                    graph=graphs.store if graphs is not None and name == "companies" else None,
                )
            out_console.print(f"[bold]{name}[/]: {report.summary()}", markup=True, soft_wrap=True)
        _ask_all(engine, started)
    finally:
        engine.close()  # its graph store and rerank client


def _ask_all(engine: SelfRagEngine, started: float) -> None:
    from workflows import NodeEvent, Result

    run = uuid.uuid4().hex[:8]  # fresh threads each demo run, so follow-ups start clean
    outcomes: dict[str, int] = {}
    for collection, question, thread in DEMO_QUESTIONS:
        out_console.rule(f"[bold]{shown(question)}[/]  [dim]({collection})[/]")
        result = None
        for event in engine.stream(question, collection=collection, thread_id=f"{thread}-{run}" if thread else None):
            if isinstance(event, NodeEvent):
                print_event(err_console, event.node, event.update)
            elif isinstance(event, Result):
                result = event
        assert result is not None
        if result.standalone_question != question:
            out_console.print(f"[dim]   standalone question: {shown(result.standalone_question)}[/]", markup=True)
        print_result(out_console, result)
        outcomes[result.outcome.value] = outcomes.get(result.outcome.value, 0) + 1
    elapsed = time.perf_counter() - started
    summary = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    out_console.print(f"\n[bold]demo finished[/] in {elapsed:.1f} s: {len(DEMO_QUESTIONS)} questions — {summary}", markup=True)
