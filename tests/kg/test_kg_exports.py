"""``selfrag.kg``'s public surface: listed names import, in isort order, and nothing public is unlisted."""

from __future__ import annotations

import re

import selfrag.kg as kg


def _key(name: str) -> tuple[int, str]:
    if re.fullmatch(r"[A-Z0-9_]+", name):
        return 0, name
    return (1 if name[:1].isupper() else 2), name


def test_all_is_importable_sorted_and_unique() -> None:
    names = list(kg.__all__)
    assert names == sorted(set(names), key=_key)
    for name in names:
        assert getattr(kg, name) is not None


def test_no_public_name_is_left_out() -> None:
    public = {n for n, v in vars(kg).items() if not n.startswith("_") and getattr(v, "__module__", "").startswith("selfrag.kg")}
    assert public <= set(kg.__all__)
