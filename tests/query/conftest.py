"""Fixtures for the self-query tests: the movies schema of LangChain's self-query guide."""

from __future__ import annotations

from datetime import date

import pytest

from selfrag.schema import AttributeInfo, CollectionSchema

GENRES = ["science fiction", "comedy", "drama", "thriller", "romance", "action", "animated"]
DIRECTORS = [
    "Greta Gerwig",
    "Christopher Nolan",
    "Satoshi Kon",
    "Steven Lisberger",
    "Andrei Tarkovsky",
    "John Lasseter",
    "Luc Besson",
]
TODAY = date(2025, 6, 1)


@pytest.fixture
def schema() -> CollectionSchema:
    return CollectionSchema(
        description="Brief summaries of movies",
        attributes=[
            AttributeInfo(name="genre", type="string", description="The genre of the movie", allowed_values=GENRES),
            AttributeInfo(name="year", type="integer", description="The year the movie was released"),
            AttributeInfo(name="director", type="string", description="The name of the movie director"),
            AttributeInfo(name="rating", type="float", description="A 1-10 rating for the movie", minimum=1, maximum=10),
        ],
    )


@pytest.fixture
def catalogue() -> dict[str, list[str]]:
    return {"director": list(DIRECTORS)}


@pytest.fixture
def today() -> date:
    return TODAY
