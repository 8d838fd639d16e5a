"""``selfrag.ingest.__all__`` and ``selfrag.samples.__all__`` list exactly what they export."""

from __future__ import annotations

import types

import pytest

from selfrag import ingest, samples


@pytest.mark.parametrize("package", [ingest, samples])
def test_all_matches_public_names(package: types.ModuleType) -> None:
    for name in package.__all__:
        assert hasattr(package, name), name
    public = {
        n
        for n, v in vars(package).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType) and getattr(v, "__module__", package.__name__).startswith(package.__name__)
    }
    assert public == set(package.__all__)
