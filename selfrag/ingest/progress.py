"""Progress displays for long runs, kept apart so the ingest core never prints.

    with stage_progress("movies") as progress:
        report = ingest_paths(collection, paths, progress=progress)

``rich_progress`` draws one bar for a ``progress(done, total)`` callback (evaluation runs);
``stage_progress`` follows an ingest's stages, on a terminal or not.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from selfrag.store import ProgressCallback

__all__ = ["StageProgress", "rich_progress", "stage_progress"]


@contextmanager
def rich_progress(
    label: str = "Embedding chunks", console: Console | None = None, *, transient: bool = False
) -> Iterator[ProgressCallback]:
    """Yield a ``progress(done, total)`` callback that draws a bar on ``console`` (stderr by default)."""
    bars = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
        transient=transient,
    )
    task: list[TaskID] = []

    def update(done: int, total: int) -> None:
        if not task:
            task.append(bars.add_task(label, total=total))
        bars.update(task[0], completed=done, total=total)

    with bars:
        yield update


StageProgress = Callable[[str, int, int], None]
"""Called as ``progress(stage, done, total)``: stage ``reading`` counts files, ``embedding`` chunks."""

_UNITS = {"reading": "files", "embedding": "chunks"}


@contextmanager
def stage_progress(label: str, console: Console | None = None, *, every_s: float = 5.0) -> Iterator[StageProgress]:
    """Yield a ``StageProgress`` that shows an ingest's stages on ``console`` (stderr by default).

    On a terminal: a bar per stage, from the first file read. Elsewhere (a log, a CI job) a bar
    would print nothing useful, so a stage that runs longer than ``every_s`` seconds prints a
    one-line status every ``every_s`` seconds and a last one when it ends; quick runs stay quiet.
    """
    out = console or Console(stderr=True, highlight=False)
    if out.is_terminal:
        bars = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=out, transient=True,
        )
        tasks: dict[str, TaskID] = {}

        def draw(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bars.add_task(f"{label}: {stage} {_UNITS.get(stage, '')}".rstrip(), total=total)
            bars.update(tasks[stage], completed=done, total=total)

        with bars:
            yield draw
        return

    started: dict[str, float] = {}
    printed: dict[str, float] = {}

    def status(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        began = started.setdefault(stage, now)
        last = printed.get(stage, began)
        if now - last >= every_s or (done >= total and stage in printed):
            printed[stage] = now
            out.print(f"{label}: {stage} {done}/{total} {_UNITS.get(stage, '')}".rstrip(), markup=False, soft_wrap=True)

    yield status
