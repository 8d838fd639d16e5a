"""``Collection.newest``: the newest matches by a date attribute, found in growing windows, equal
to sorting every match — whatever the filter, including none, and across metadata read pages."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from selfrag.errors import UsageError
from selfrag.store import Store
from selfrag.store import collection as collection_module

TODAY = date(2025, 12, 31)


@pytest.mark.parametrize("where", [
    None,
    {"organizations": {"$contains": "Graphwise"}},
    {"$and": [{"sentiment": {"$lt": -0.5}}, {"date": {"$lt": 20240601}}]},
    {"topic": "no such topic"},
])
def test_newest_equals_sorting_every_match(companies: Store, where: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collection_module, "_READ_PAGE", 7)  # several pages even on a small sample
    coll = companies.get_collection("companies")
    everything = coll.get([f"news-{n:03d}" for n in range(1, 131)])
    from selfrag.testing import matches_where
    from selfrag.values import date_number

    def stored(meta: Any) -> dict[str, Any]:
        return {**meta, "date": date_number(meta["date"])}

    matching = sorted((c for c in everything if matches_where(stored(c.metadata), where)),
                      key=lambda c: str(c.metadata["date"]), reverse=True)
    got = coll.newest(attribute="date", where=where, k=5, today=TODAY)
    assert [h.metadata["date"] for h in got] == [c.metadata["date"] for c in matching[:5]]
    assert all(h.score == 1.0 for h in got)


def test_newest_needs_a_date_attribute(companies: Store) -> None:
    with pytest.raises(UsageError, match="not a date attribute"):
        companies.get_collection("companies").newest(attribute="sentiment", k=3)
