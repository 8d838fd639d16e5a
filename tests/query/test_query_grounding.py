"""grounding: how many filter conditions the question supports."""

from __future__ import annotations

from datetime import date

import pytest

from selfrag.query import Comparison, Operation, grounding

TODAY = date(2025, 6, 1)


def c(attribute: str, comparator: str, value: object) -> Comparison:
    return Comparison.model_validate({"attribute": attribute, "comparator": comparator, "value": value})


@pytest.mark.parametrize(
    ("clause", "question"),
    [
        (c("director", "eq", "Greta Gerwig"), "Has greta gerwig directed any movies about women"),
        (c("director", "eq", "Christopher Nolan"), "Nolan's movies about dreams"),
        (c("genre", "eq", "science fiction"), "a sci-fi film"),
        (c("genre", "eq", "comedy"), "some comedies"),
        (c("genre", "in", ["comedy", "drama"]), "comedies or dramas"),
        (c("rating", "gt", 8.5), "rated above 8.5"),
        (c("year", "gte", 1991), "after 1990"),
        (c("year", "gte", 1990), "movies from the 90s"),
        (c("year", "lt", 2000), "movies from the 1990s"),
        (c("year", "gte", 2020), "movies from the last 5 years"),
        (c("year", "eq", 2024), "a film from last year"),
    ],
)
def test_supported_clauses_count(clause, question):
    assert grounding(clause, question, today=TODAY) == 1


@pytest.mark.parametrize(
    ("clause", "question"),
    [
        (c("director", "eq", "Steven Spielberg"), "movies about dinosaurs"),
        (c("director", "eq", "Greta Garbo"), "films by Greta Gerwig"),
        (c("year", "eq", 1993), "movies about dinosaurs"),
        (c("rating", "gt", 8.0), "a highly rated movie"),
        (c("genre", "in", ["comedy", "drama"]), "a comedy"),
    ],
)
def test_unsupported_clauses_do_not(clause, question):
    assert grounding(clause, question, today=TODAY) == 0


def test_counts_every_clause_in_a_tree():
    node = Operation(
        operator="and",
        arguments=[c("genre", "eq", "science fiction"), c("rating", "gt", 8.5), Operation(operator="not", arguments=[c("year", "eq", 1977)])],
    )
    assert grounding(node, "What's a highly rated (above 8.5) science fiction film?", today=TODAY) == 2
    assert grounding(None, "anything") == 0
