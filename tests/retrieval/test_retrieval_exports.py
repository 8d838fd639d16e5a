"""The public surface of the new packages, checked like every other package's (tests/test_exports.py)."""

from __future__ import annotations

import importlib

import pytest

from tests.test_exports import _all, _isort_key

PACKAGES = ["selfrag.retrieval", "selfrag.rerank"]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_importable_sorted_unique_and_complete(package: str) -> None:
    module = importlib.import_module(package)
    names = _all(package)
    assert all(hasattr(module, n) for n in names)
    assert len(names) == len(set(names)) and names == sorted(names, key=_isort_key)
    public = {n for n, v in vars(module).items() if not n.startswith("_") and getattr(v, "__module__", "").startswith(package)}
    assert public <= set(names), sorted(public - set(names))
