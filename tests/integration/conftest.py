"""What the integration modules share: the real defaults, whatever the developer's shell exports."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def default_environment(home: Path) -> Iterator[None]:
    """No ``SELFRAG_*`` variable but ``SELFRAG_HOME`` = ``home``, for the block.

    Module fixtures run before the per-test environment guard (tests/conftest.py), so they clear
    the variables themselves.
    """
    with pytest.MonkeyPatch.context() as mp:
        for key in list(os.environ):
            if key.startswith("SELFRAG_"):
                mp.delenv(key)
        mp.setenv("SELFRAG_HOME", str(home))
        yield
