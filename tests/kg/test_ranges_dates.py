"""Named ranges and relative dates: small pure functions with an injected today."""

from __future__ import annotations

from datetime import date

import pytest

from selfrag.kg import NamedRange, find_date_range, find_named_ranges, wants_latest

RANGES = [
    NamedRange(attribute="sentiment", words=("positive", "good", "upbeat"), comparator="gt", value=0.5),
    NamedRange(attribute="sentiment", words=("negative", "bad"), comparator="lt", value=-0.5),
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("negative news about Graphwise", [("negative", "lt", -0.5)]),
        ("Anything upbeat from Canada?", [("positive", "gt", 0.5)]),
        ("Was it reported positively?", [("positive", "gt", 0.5)]),
        ("positive or negative news", []),  # both: no filter
        ("news about Graphwise", []),
        ("goodness gracious", []),  # whole words only
    ],
)
def test_named_ranges(question: str, expected: list[tuple[str, str, float]]) -> None:
    assert [(c.name, c.comparator, c.value) for c in find_named_ranges(question, RANGES)] == expected


TODAY = date(2025, 12, 31)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("news in 2024", date(2024, 1, 1), date(2025, 1, 1)),
        ("since March", date(2025, 3, 1), None),
        ("since March 2024", date(2024, 3, 1), None),
        ("in March 2025", date(2025, 3, 1), date(2025, 4, 1)),
        ("last month", date(2025, 11, 1), date(2025, 12, 1)),
        ("this year", date(2025, 1, 1), None),
        ("last year", date(2024, 1, 1), date(2025, 1, 1)),
        ("in the past 10 days", date(2025, 12, 21), None),
        ("over the last two weeks", date(2025, 12, 17), None),
        ("before 2025", None, date(2025, 1, 1)),
        ("after 2024", date(2025, 1, 1), None),
    ],
)
def test_relative_dates(question: str, start: date | None, end: date | None) -> None:
    found = find_date_range(question, TODAY)
    assert found is not None and (found.start, found.end) == (start, end)


def test_since_a_later_month_means_last_year_and_no_date_means_none() -> None:
    found = find_date_range("since December", date(2025, 6, 10))
    assert found is not None and found.start == date(2024, 12, 1)
    assert find_date_range("news about Graphwise", TODAY) is None


def test_latest() -> None:
    assert wants_latest("What is the latest positive news about Graphwise?")
    assert wants_latest("most recent news")
    assert not wants_latest("news about Graphwise")


@pytest.mark.parametrize(("question", "start", "end"), [
    # "before December 2022" named no date: the records before it were a reader's guess.
    ("Which records had their last reading before December 2022?", None, date(2022, 12, 1)),
    ("recalls announced until March 2024", None, date(2024, 4, 1)),
    ("news before 2024", None, date(2024, 1, 1)),
])
def test_before_or_until_a_month_of_a_year(question: str, start: date | None, end: date | None) -> None:
    found = find_date_range(question, TODAY)
    assert found is not None and (found.start, found.end) == (start, end)
