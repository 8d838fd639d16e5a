"""A date written to the day ("June 1, 2024", "1 June 2024", "2024-06-01") is that day, not its month
or its year: "reported after June 1, 2024" was read as "after June" of this year, "after 1 June
2024" not at all, and "since 2024-06-01" as "since 2024"."""

from __future__ import annotations

from datetime import date

import pytest

from selfrag.lang.dates import find_date_ranges

TODAY = date(2026, 11, 30)


@pytest.mark.parametrize(("text", "start", "end"), [
    ("reported after June 1, 2024", date(2024, 6, 2), None),
    ("reported after June 1 2024", date(2024, 6, 2), None),
    ("after 1 June 2024", date(2024, 6, 2), None),
    ("since 2024-06-01", date(2024, 6, 1), None),
    ("after 2024-06-01", date(2024, 6, 2), None),
    ("from the 3rd of March 2023", date(2023, 3, 3), None),
    ("on or after Jun 1st, 2024", date(2024, 6, 1), None),
    ("collected before March 15, 2023", None, date(2023, 3, 15)),
    ("until 15 March 2023", None, date(2023, 3, 16)),
    ("on June 1, 2024", date(2024, 6, 1), date(2024, 6, 2)),
    ("issued 2024-06-01", date(2024, 6, 1), date(2024, 6, 2)),
    ("between March 1 and May 31, 2024", date(2024, 3, 1), date(2024, 6, 1)),
    ("between 2023-01-15 and 2023-02-15", date(2023, 1, 15), date(2023, 2, 16)),
    ("after March 15", date(2026, 3, 16), None),  # the last March 15 before today
    ("since December 1", date(2025, 12, 1), None),
])
def test_a_date_to_the_day_is_that_day(text: str, start: date | None, end: date | None) -> None:
    found = find_date_ranges(text, TODAY)
    assert len(found) == 1 and (found[0].start, found[0].end) == (start, end)
    a, b = found[0].span or (0, 0)
    assert any(ch.isdigit() for ch in text[a:b])


@pytest.mark.parametrize(("text", "start", "end"), [
    ("in June 2024", date(2024, 6, 1), date(2024, 7, 1)),
    ("after June 2024", date(2024, 7, 1), None),
    ("since 2024", date(2024, 1, 1), None),
    ("in 2023", date(2023, 1, 1), date(2024, 1, 1)),
])
def test_a_month_or_a_year_stays_one(text: str, start: date | None, end: date | None) -> None:
    found = find_date_ranges(text, TODAY)
    assert len(found) == 1 and (found[0].start, found[0].end) == (start, end)


@pytest.mark.parametrize("text", ["room 2024-06", "version 2.10.1", "June 31, 2024", "2024-13-01"])
def test_no_day_where_none_is_written(text: str) -> None:
    assert all(r.start is None or r.end is None or (r.end - r.start).days != 1 for r in find_date_ranges(text, TODAY))


def test_a_day_without_its_year_takes_the_one_year_the_question_names() -> None:
    # "Which 2021 races were not certified on November 19?" was read as November 19 of this year.
    found = find_date_ranges("Which 2021 races were certified on November 19?", TODAY)
    assert [(r.start, r.end) for r in found if r.end is not None and r.start is not None
            and (r.end - r.start).days == 1] == [(date(2021, 11, 19), date(2021, 11, 20))]
