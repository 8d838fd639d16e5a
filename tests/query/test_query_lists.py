"""A list attribute's known elements named in a question are filters on its elements
(``$contains``): "Which laptops have Thunderbolt 4?" selects the laptops whose ``ports`` list
holds it, as "Which laptops are made by Acme?" selects by ``brand``."""

from __future__ import annotations

from datetime import date

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.schema import AttributeInfo as A
from selfrag.schema import CollectionSchema

TODAY = date(2025, 6, 1)
LAPTOPS = CollectionSchema(description="Laptop spec sheets", attributes=[
    A(name="model", type="string", kind="identifier"),
    A(name="brand", type="string", allowed_values=["Acme", "Brisk"]),
    A(name="price_usd", type="float", description="Price in US dollars"),
    A(name="ports", type="string[]", description="The ports it has"),
])  # fmt: skip
KNOWN = {"model": ["Aero 14", "Volt 17"], "ports": ["HDMI", "Thunderbolt 4", "USB-C", "SD card reader"]}


def plan(question: str) -> object:
    return SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, LAPTOPS, KNOWN)


@pytest.mark.parametrize(("question", "where"), [
    ("Which laptops have Thunderbolt 4?", {"ports": {"$contains": "Thunderbolt 4"}}),
    ("laptops with an sd card reader", {"ports": {"$contains": "SD card reader"}}),
    ("Acme laptops with HDMI", {"$and": [{"brand": {"$eq": "Acme"}}, {"ports": {"$contains": "HDMI"}}]}),
    ("laptops with HDMI and USB-C under $1000", {"$and": [{"ports": {"$contains": "HDMI"}},
                                                          {"ports": {"$contains": "USB-C"}},
                                                          {"price_usd": {"$lt": 1000}}]}),
    ("laptops without HDMI", {"ports": {"$not_contains": "HDMI"}}),
])
def test_a_known_element_named_is_a_filter_on_the_list(question: str, where: dict[str, object]) -> None:
    p = plan(question)
    assert p.where == where  # type: ignore[attr-defined]
    assert p.asks == "documents"  # type: ignore[attr-defined]  # the filter holds the whole question


def test_an_element_no_document_has_is_no_filter() -> None:
    assert plan("Which laptops have FireWire?").where is None  # type: ignore[attr-defined]


@pytest.mark.parametrize("question", ["Which Acme laptops cost under $1000?", "Which Acme laptops have HDMI ports?",
                                      "What laptops have Thunderbolt 4?"])
def test_which_items_the_filter_holds_whole_asks_for_the_documents(question: str) -> None:
    # "Which laptops have Thunderbolt 4?" was read to one passage: one laptop of several, signed.
    assert plan(question).asks == "documents"  # type: ignore[attr-defined]


@pytest.mark.parametrize("question", ["Which laptop port is fastest?", "Which laptops have the best keyboards?",
                                      "Which is better, Acme or Brisk laptops?"])
def test_which_questions_that_ask_more_than_the_filter_are_not_listed(question: str) -> None:
    assert plan(question).asks is None  # type: ignore[attr-defined]


RAIN = CollectionSchema(description="Yearly rainfall records, one per town and year", attributes=[
    A(name="town", type="string", description="town where the rain was measured", kind="name"),
    A(name="stations", type="string[]", description="weather stations whose readings were used"),
])  # fmt: skip
RAIN_KNOWN = {"town": ["Pellham", "Ostby", "Wexcombe"], "stations": ["Pellham Mill", "Ostby", "Wexcombe Lock"]}


def test_a_list_element_wins_over_a_shorter_value_inside_it() -> None:
    # "Pellham Mill" (a station) was read as town = Pellham: Wexcombe, whose readings come from
    # Pellham Mill too, was lost and the answer signed.
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan("Which towns have readings from Pellham Mill?",
                                                                  RAIN, RAIN_KNOWN)
    assert plan.where == {"stations": {"$contains": "Pellham Mill"}}


def test_an_element_that_is_also_a_value_of_a_string_attribute_is_that_value() -> None:
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan("rain records from Ostby", RAIN, RAIN_KNOWN)
    assert plan.where == {"town": {"$eq": "Ostby"}}
