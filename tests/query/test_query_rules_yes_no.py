"""A yes/no question about one thing it names asks whether that thing has a property: the property
is what the documents must tell, never a filter (which would presume the answer and, when it is no,
hide the very document asked about). Conditions that locate the thing, and those of a question
about whether some exist, stay filters."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from selfrag.query import SelfQueryPlanner
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.testing import ScriptedChatModel

TODAY = date(2025, 6, 1)
GALLERY = CollectionSchema(
    description="Catalogue of objects in a city gallery",
    attributes=[
        AttributeInfo(name="artist", type="string", description="artist or maker of the object"),
        AttributeInfo(name="year_made", type="integer", description="year the object was made", kind="year"),
        AttributeInfo(name="year_acquired", type="integer", description="year the gallery acquired the object", kind="year"),
        AttributeInfo(name="medium", type="string", description="material or technique of the object"),
        AttributeInfo(name="room", type="integer", description="gallery room where the object hangs", minimum=1, maximum=9),
        AttributeInfo(name="on_loan", type="boolean", description="whether the object is on loan to another gallery"),
    ],
)
VALUES = {"artist": ["Ada Brenn", "Oskar Vale"], "medium": ["oil on canvas", "watercolour", "bronze"]}


def plan(question: str, model: ScriptedChatModel | None = None) -> Any:
    planner = SelfQueryPlanner(model, mode="rules" if model is None else "auto", today=TODAY, wait_initial=0)
    return planner.plan(question, GALLERY, VALUES)


@pytest.mark.parametrize(
    ("question", "named", "asked"),
    [
        ("Is Portrait of Mira Holt a watercolour?", "Portrait of Mira Holt", "watercolour"),
        ("Is Lighthouse at Noon on loan?", "Lighthouse at Noon", "loan"),
        ("Is Lighthouse at Noon not on loan?", "Lighthouse at Noon", "loan"),
        ("Is Lighthouse at Noon in room 7?", "Lighthouse at Noon", "room 7"),
        ("Was Lighthouse at Noon made by Ada Brenn?", "Lighthouse at Noon", "Ada Brenn"),
        ("Was the Iron Gate acquired before 1960?", "Iron Gate", "1960"),
        ("Is Iron Gate bronze or oil on canvas?", "Iron Gate", "bronze"),
        # an adverb of time or emphasis adds no ask of its own
        ("Is Lighthouse at Noon still on loan?", "Lighthouse at Noon", "loan"),
        ("Is Lighthouse at Noon currently in room 7?", "Lighthouse at Noon", "room 7"),
        ("Was Lighthouse at Noon ever on loan?", "Lighthouse at Noon", "loan"),
    ],
)
def test_what_a_yes_no_question_asks_of_the_thing_it_names_is_searched_not_filtered(question: str, named: str, asked: str) -> None:
    p = plan(question)
    assert p.where is None
    assert named in p.query.query and asked in p.query.query
    assert "asked_property" in [c.kind for c in p.changes]


@pytest.mark.parametrize(
    ("question", "where"),
    [
        # a value before the name locates the thing
        ("Is Ada Brenn's Lighthouse on loan?", {"artist": {"$eq": "Ada Brenn"}}),
        # the subject is a value: it says which documents, the rest is about them
        ("Did Ada Brenn paint any watercolours?", {"$and": [{"artist": {"$eq": "Ada Brenn"}}, {"medium": {"$eq": "watercolour"}}]}),
        # whether some exist: the matching documents answer it
        ("Are there any watercolours by Ada Brenn?", {"$and": [{"medium": {"$eq": "watercolour"}}, {"artist": {"$eq": "Ada Brenn"}}]}),
        ("Does North Hall have any watercolours on loan?", {"$and": [{"medium": {"$eq": "watercolour"}}, {"on_loan": {"$eq": True}}]}),
        ("Does North Hall show objects made before 1900?", {"year_made": {"$lt": 1900}}),
        # not a yes/no question
        ("Which watercolours are on loan?", {"$and": [{"medium": {"$eq": "watercolour"}}, {"on_loan": {"$eq": True}}]}),
    ],
)
def test_conditions_that_locate_the_thing_or_describe_what_may_exist_stay_filters(question: str, where: Any) -> None:
    assert plan(question).where == where


def test_a_model_filter_on_what_the_question_asks_is_set_aside_too() -> None:
    reply = {"query": "Portrait of Mira Holt", "filter": {"attribute": "medium", "comparator": "eq", "value": "watercolour"},
             "limit": None}
    model = ScriptedChatModel.from_rules({"StructuredQuery": json.dumps(reply)})
    p = plan("Is Portrait of Mira Holt a watercolour?", model)
    assert p.where is None
    assert "asked_property" in [c.kind for c in p.changes]


RELEASES = CollectionSchema(
    description="Release notes of software products",
    attributes=[
        AttributeInfo(name="product", type="string", description="software product the release notes describe"),
        AttributeInfo(name="version", type="string", description="version number of the release"),
    ],
)


def test_conditions_that_locate_what_a_yes_no_question_asks_about_stay_filters() -> None:
    # the predicate asks something of its own ("enabled by default"): the product and the release locate it
    planner = SelfQueryPlanner(None, mode="rules", today=TODAY)
    p = planner.plan("Is TLS 1.0 enabled by default in Lumen 2.1?", RELEASES, {"product": ["Lumen", "Quire"], "version": ["2.0", "2.1"]})
    assert p.where == {"$and": [{"product": {"$eq": "Lumen"}}, {"version": {"$eq": "2.1"}}]}
