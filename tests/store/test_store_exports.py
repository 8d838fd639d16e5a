"""``selfrag.store.__all__`` lists exactly what the package exports."""

from __future__ import annotations

import types

from selfrag import store


def test_all_names_are_importable() -> None:
    for name in store.__all__:
        assert hasattr(store, name), name


def test_every_public_attribute_is_listed() -> None:
    public = {n for n, v in vars(store).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert public == set(store.__all__)
