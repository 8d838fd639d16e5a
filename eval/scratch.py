"""The scratch store of an evaluation run: its collections live and die with the run.

An evaluation builds a collection per corpus (``halueval-qa-1-60``, ``eval-<hash>``); built in
the user's store, they stay there after the run, and a run could not start while ``selfrag
serve`` held that store's writer lock. So a run whose cases bring their own corpus gets a data
directory of its own (``<run>/store``): the embedded Chroma, lexical indexes, graph store and
locks all resolve under ``Settings.home``, so moving ``home`` moves all of them at once. The
LLM cache is not under it: callers resolve the cache path from the user's settings first.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from selfrag.settings import Settings

__all__ = ["drop_scratch", "scratch_settings"]


def scratch_settings(settings: Settings, where: Path) -> Settings:
    """``settings`` with its data directory at ``where`` (a Chroma server, if set, is still used)."""
    where.mkdir(parents=True, exist_ok=True)
    return settings.model_copy(update={"home": where})


def drop_scratch(where: Path) -> None:
    """Remove a scratch store; a file still open elsewhere must not fail the run that made it."""
    shutil.rmtree(where, ignore_errors=True)
