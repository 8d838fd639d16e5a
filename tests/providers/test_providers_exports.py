"""``selfrag.providers.__all__`` lists exactly what the package exports."""

from __future__ import annotations

from selfrag import providers


def test_all_names_are_importable() -> None:
    for name in providers.__all__:
        assert hasattr(providers, name), name


def test_every_public_attribute_is_listed() -> None:
    modules = {"embeddings", "factory", "local_chat"}
    public = {n for n in vars(providers) if not n.startswith("_") and n not in modules}
    assert public == set(providers.__all__)
