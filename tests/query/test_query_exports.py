"""The package's public surface: __all__ lists exactly what is importable and public."""

from __future__ import annotations

from selfrag import query


def test_all_is_importable_and_complete():
    assert sorted(query.__all__) == sorted(set(query.__all__))
    for name in query.__all__:
        assert hasattr(query, name), name
    public = {n for n in vars(query) if not n.startswith("_")} - {
        "model", "planner", "relax", "rules", "translate", "validate", "annotations", "anchor", "profiles", "graph_terms",
        "unrecorded", "absent",
    }  # fmt: skip
    assert public <= set(query.__all__)
