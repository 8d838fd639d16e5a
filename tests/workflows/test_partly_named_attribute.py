"""An attribute the question names by one word of its name ("rent" of monthly_rent): its value is
what is asked, not another attribute of the same kind whose description shares the question's verb
("deposit paid by the tenant" for "How much rent does Emma Holloway pay?")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from selfrag.schema import CollectionSchema
from workflows.set_answers import asked_attribute

TENANCIES = CollectionSchema.model_validate(json.loads(
    (Path(__file__).parent.parent / "query" / "schemas" / "tenancies.json").read_text()))
EMMA: dict[str, Any] = {"attribute": "tenant", "comparator": "eq", "value": "Emma Holloway"}


@pytest.mark.parametrize(("question", "search"), [
    ("How much rent does Emma Holloway pay?", "How much rent does pay?"),
    ("What is the rent of Emma Holloway?", "What is the rent of"),
    ("what rent does Emma Holloway pay", "what rent does pay"),
])
def test_a_word_of_one_name_asks_that_attribute(question: str, search: str) -> None:
    # "How much rent does Emma Holloway pay?" was signed her deposit ("paid by the tenant").
    found = asked_attribute(question, search, TENANCIES, EMMA)
    assert found is not None and found.name == "monthly_rent"



def test_a_name_word_the_search_text_lost_still_names_the_price() -> None:
    # The planner's search text for "How much rent does Emma Holloway pay?" is "pay": the question's
    # own "rent" still names monthly_rent, not the deposit "paid by the tenant".
    found = asked_attribute("How much rent does Emma Holloway pay?", "pay", TENANCIES, EMMA)
    assert found is not None and found.name == "monthly_rent"


HILL: dict[str, Any] = {"attribute": "tenant", "comparator": "eq", "value": "George Hill"}


@pytest.mark.parametrize(("question", "search", "expected"), [
    ("What is the rent of the Hill tenancy?", "What is the rent of the Hill tenancy?", "monthly_rent"),
    ("What is the deposit of the Hill tenancy?", "deposit of the tenancy", "deposit"),
    ("What's the rent of the George Hill tenancies?", "What's the rent of the tenancies?", "monthly_rent"),
])
def test_the_items_own_word_asks_nothing_more(question: str, search: str, expected: str) -> None:
    # "What is the rent of the Hill tenancy?" was signed as a listing of George Hill's tenancy that
    # never stated its rent: "tenancy", the records' own word, was taken for something more asked.
    found = asked_attribute(question, search, TENANCIES, HILL)
    assert found is not None and found.name == expected


def test_another_word_beside_the_items_word_still_asks_more() -> None:
    # The landlord's deposit is no attribute: the items' word does not hide "landlord".
    assert asked_attribute("What is the deposit of the Hill tenancy's landlord?",
                           "deposit of the tenancy's landlord", TENANCIES, HILL) is None
