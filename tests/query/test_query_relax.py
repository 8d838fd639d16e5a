"""relaxations: one top-level condition dropped per step, least trusted first, ending with no filter."""

from __future__ import annotations

from selfrag.query import Comparison, Operation, relaxations


def c(attribute: str, comparator: str, value: object) -> Comparison:
    return Comparison.model_validate({"attribute": attribute, "comparator": comparator, "value": value})


def and_(*arguments) -> Operation:
    return Operation(operator="and", arguments=list(arguments))


def test_nothing_to_relax():
    assert relaxations(None) == []


def test_single_condition_relaxes_to_none():
    steps = relaxations(c("year", "gt", 1990))
    assert [node for node, _ in steps] == [None]
    assert steps[0][1].kind == "relaxed" and "year gt 1990" in steps[0][1].detail


def test_order_unknown_then_bounds_then_equalities_then_negations_then_known(schema, catalogue):
    genre = c("genre", "eq", "comedy")
    unknown = c("director", "eq", "Steven Spielberg")
    bound = c("rating", "gt", 8.5)
    year = c("year", "eq", 1994)
    negation = c("genre", "ne", "drama")
    steps = relaxations(and_(genre, negation, year, bound, unknown), schema=schema, catalogue=catalogue)
    dropped = [change.detail for _, change in steps]
    assert dropped == [
        "dropped director eq 'Steven Spielberg'",
        "dropped rating gt 8.5",
        "dropped year eq 1994",
        "dropped genre ne 'drama'",
        "dropped genre eq 'comedy'",
    ]
    assert steps[0][0] == and_(genre, negation, year, bound)
    assert steps[-2][0] == genre
    assert steps[-1][0] is None


def test_without_catalogue_strings_count_as_known():
    steps = relaxations(and_(c("director", "eq", "Steven Spielberg"), c("rating", "gt", 8.5)))
    assert [change.detail for _, change in steps] == ["dropped rating gt 8.5", "dropped director eq 'Steven Spielberg'"]


def test_or_and_not_groups_are_dropped_whole():
    either = Operation(operator="or", arguments=[c("genre", "eq", "comedy"), c("rating", "gt", 9.0)])
    negated = Operation(operator="not", arguments=[c("genre", "eq", "drama")])
    steps = relaxations(and_(either, negated, c("genre", "eq", "action")))
    assert steps[0][0] == and_(negated, c("genre", "eq", "action"))  # the or-group holds a bound: goes first
    assert steps[1][0] == c("genre", "eq", "action")
    assert steps[2][0] is None


def test_each_step_is_looser_than_the_last(schema, catalogue):
    node = and_(c("genre", "in", ["comedy", "drama"]), c("year", "gte", 1990), c("year", "lte", 1999))
    steps = relaxations(node, schema=schema, catalogue=catalogue)
    sizes = [len(n.arguments) if isinstance(n, Operation) else (0 if n is None else 1) for n, _ in steps]
    assert sizes == [2, 1, 0]
