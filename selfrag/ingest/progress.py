"""A rich progress bar for ``ingest_paths``, kept apart so the ingest core never prints.

    with rich_progress() as progress:
        report = ingest_paths(collection, paths, progress=progress)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from selfrag.store import ProgressCallback

__all__ = ["rich_progress"]


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
