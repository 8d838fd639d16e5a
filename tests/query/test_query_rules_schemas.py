"""The rule-based constructor on schemas it was never tuned on: every phrasing family, read from the
schema alone (units and currencies in descriptions, names of booleans, declared ranges)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from selfrag.query import read_question, to_where
from selfrag.schema import AttributeInfo, CollectionSchema

TODAY = date(2025, 6, 1)
PRODUCTS = CollectionSchema(
    description="Consumer electronics products",
    attributes=[
        AttributeInfo(name="brand", type="string", description="The manufacturer's brand"),
        AttributeInfo(name="category", type="string", description="Product category",
                      allowed_values=["smartphone", "laptop", "headphones", "tablet", "smartwatch", "camera"]),
        AttributeInfo(name="price", type="float", description="Price in US dollars", minimum=0),
        AttributeInfo(name="rating", type="float", description="Average customer rating from 1 to 5 stars", minimum=1, maximum=5),
        AttributeInfo(name="in_stock", type="boolean", description="Whether the product is currently in stock"),
        AttributeInfo(name="release_year", type="integer", description="Year the product was released"),
    ],
)  # fmt: skip
PRODUCT_VALUES = {"brand": ["Apple", "Samsung", "Sony", "Lenovo", "Bose", "Google"]}
FILMS = CollectionSchema(
    description="Films with runtime, budget and awards",
    attributes=[
        AttributeInfo(name="runtime", type="integer", description="Running time in minutes"),
        AttributeInfo(name="budget", type="integer", description="Production budget in US dollars"),
        AttributeInfo(name="release_year", type="integer", description="Year of release"),
        AttributeInfo(name="oscar_winner", type="boolean", description="Won at least one Academy Award"),
        AttributeInfo(name="language", type="string", description="Original language"),
        AttributeInfo(name="imdb_score", type="float", description="IMDb user score out of 10", minimum=0, maximum=10),
    ],
)
FILM_VALUES = {"language": ["English", "French", "Japanese", "Korean", "Spanish"]}


def read(question: str, schema: CollectionSchema = PRODUCTS, values: dict[str, list[str]] = PRODUCT_VALUES) -> tuple[Any, int | None]:
    q = read_question(question, schema, values, today=TODAY).query
    return to_where(q.filter), q.limit


def AND(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"$and": list(parts)}


@pytest.mark.parametrize(
    ("question", "where"),
    [
        # currency signs, slang, "k", written-out scales
        ("smartphones under $500", AND({"category": {"$eq": "smartphone"}}, {"price": {"$lt": 500.0}})),
        ("laptops under 800 bucks", AND({"category": {"$eq": "laptop"}}, {"price": {"$lt": 800.0}})),
        ("tablets for less than 1.2k", AND({"category": {"$eq": "tablet"}}, {"price": {"$lt": 1200.0}})),
        ("smartphones between $200 and $400", AND({"category": {"$eq": "smartphone"}}, {"price": {"$gte": 200.0}}, {"price": {"$lte": 400.0}})),
        # stars, postfix bounds
        ("headphones rated 4 stars or more", AND({"category": {"$eq": "headphones"}}, {"rating": {"$gte": 4.0}})),
        ("cameras with 4.5+ stars", AND({"category": {"$eq": "camera"}}, {"rating": {"$gte": 4.5}})),
        # booleans by their name, negated by a phrase
        ("Samsung tablets that are in stock", AND({"brand": {"$eq": "Samsung"}}, {"category": {"$eq": "tablet"}}, {"in_stock": {"$eq": True}})),
        ("cameras that are out of stock", AND({"category": {"$eq": "camera"}}, {"in_stock": {"$eq": False}})),
        # unknown names for a name-like attribute
        ("from Fairphone", {"brand": {"$eq": "Fairphone"}}),
        ("Fairphone smartphones", AND({"brand": {"$eq": "Fairphone"}}, {"category": {"$eq": "smartphone"}})),
        # or-lists on years and on names, negation of a name
        ("laptops from 2022 or 2023", AND({"category": {"$eq": "laptop"}}, {"release_year": {"$in": [2022, 2023]}})),
        ("Sony or Bose headphones", AND({"brand": {"$in": ["Sony", "Bose"]}}, {"category": {"$eq": "headphones"}})),
        ("anything but Apple", {"brand": {"$ne": "Apple"}}),
        ("tablets released in the last 2 years", AND({"category": {"$eq": "tablet"}}, {"release_year": {"$gte": 2023}})),
    ],
)
def test_products(question: str, where: dict[str, Any]) -> None:
    assert read(question)[0] == where


@pytest.mark.parametrize(
    ("question", "where"),
    [
        # units written out, converted into the attribute's own unit
        ("films longer than 2 hours", {"runtime": {"$gt": 120}}),
        ("a movie shorter than an hour and a half", {"runtime": {"$lt": 90}}),
        ("films over two and a half hours", {"runtime": {"$gt": 150}}),
        ("low budget films under 5 million dollars", {"budget": {"$lt": 5000000}}),
        # a boolean negated by "didn't", an attribute named in the question is not a value
        ("films that didn't win an oscar", {"oscar_winner": {"$eq": False}}),
        ("movies with an IMDb score of at least 8", {"imdb_score": {"$gte": 8.0}}),
        ("French or Japanese films scored 7+", AND({"language": {"$in": ["French", "Japanese"]}}, {"imdb_score": {"$gte": 7.0}})),
        # decades joined by "or", a written-out decade, a year range, negation of a value
        ("oscar winners from the 2010s or 2020s", AND({"oscar_winner": {"$eq": True}}, {"$or": [
            AND({"release_year": {"$gte": 2010}}, {"release_year": {"$lte": 2019}}), {"release_year": {"$gte": 2020}}]})),
        ("films from the nineties that are not oscar winners",
         AND({"release_year": {"$gte": 1990}}, {"release_year": {"$lte": 1999}}, {"oscar_winner": {"$eq": False}})),
        ("films released 2015-2020 not in English",
         AND({"release_year": {"$gte": 2015}}, {"release_year": {"$lte": 2020}}, {"language": {"$ne": "English"}})),
    ],
)  # fmt: skip
def test_films(question: str, where: dict[str, Any]) -> None:
    assert read(question, FILMS, FILM_VALUES)[0] == where


@pytest.mark.parametrize(
    ("question", "limit"),
    [("give me 3 cheap laptops", 3), ("a couple of Spanish movies", 2), ("three films over 2 hours", 3),
     ("films over two and a half hours", None), ("the 3 best Korean films", 3)],
)  # fmt: skip
def test_limits_are_counts_of_results_not_quantities(question: str, limit: int | None) -> None:
    schema, values = (PRODUCTS, PRODUCT_VALUES) if "laptops" in question else (FILMS, FILM_VALUES)
    assert read(question, schema, values)[1] == limit


@pytest.mark.parametrize("question", ["Cheap laptops", "Modern laptops", "a 12 inch laptop", "what about the weather"])
def test_ordinary_words_and_numbers_without_an_attribute_are_not_conditions(question: str) -> None:
    assert read(question)[0] in (None, {"category": {"$eq": "laptop"}})
