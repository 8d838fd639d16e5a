"""The rule-based constructor on two schemas a new user wrote (``schemas/``): a university course
catalogue (codes, levels 100–400, capacities, a ``string[]`` of topics) and incident postmortems
(service, severity and year filled by extractors). Each case is a misreading the user's probe
found, once signed ``answered`` by the deterministic set answer."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from selfrag.query import SelfQueryPlanner, read_question, to_where
from selfrag.schema import CollectionSchema

TODAY = date(2026, 3, 1)
HERE = Path(__file__).parent / "schemas"
COURSES = CollectionSchema.model_validate(json.loads((HERE / "courses.schema.json").read_text()))
POSTMORTEMS = CollectionSchema.model_validate(json.loads((HERE / "postmortems.schema.json").read_text()))
COURSE_VALUES = {
    "code": ["ASTR 110", "ASTR 330", "ASTR 450", "ECON 101", "ECON 201", "LING 101", "LING 215", "PHIL 100",
             "PHIL 230", "PHIL 340", "PHIL 420", "MBIO 310", "MUSC 270"],
    "title": ["Our Place in the Cosmos", "Introduction to Language", "Phonetics Laboratory", "Thinking Clearly",
              "Ethics of Technology", "Philosophy of Language", "Principles of Economics", "Fisheries Science"],
    "instructor": ["Priya Okonkwo", "Tomasz Wierzbicki", "Hannelore Brandt", "Aroha Ngata", "Mirela Stanescu",
                   "Jonas Eklund", "Rafael Domínguez", "Ines Carvalho", "Lucien Abara"],
}  # fmt: skip
SERVICES = {"service": ["accounts", "comments", "database", "dns", "email", "images", "operations", "payments", "search"]}


def read(question: str, schema: CollectionSchema = COURSES, values: dict[str, list[str]] = COURSE_VALUES) -> tuple[Any, int | None]:
    q = read_question(question, schema, values, today=TODAY).query
    return to_where(q.filter), q.limit


def AND(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"$and": list(parts)}


@pytest.mark.parametrize(
    ("question", "where"),
    [
        # A comparative bound is a condition, never a count of results, whatever noun follows it:
        # "places" names no attribute; capacity is the one count it fits (level holds 100–400 only).
        ("Show me Philosophy courses with fewer than 50 places.", AND({"department": {"$eq": "Philosophy"}}, {"capacity": {"$lt": 50}})),
        ("Show me courses taught by Tomasz Wierzbicki with fewer than 20 places.",
         AND({"instructor": {"$eq": "Tomasz Wierzbicki"}}, {"capacity": {"$lt": 20}})),
        ("Philosophy courses with at most 45 seats", AND({"department": {"$eq": "Philosophy"}}, {"capacity": {"$lte": 45}})),
        ("Show me courses with fewer than 30 students.", {"capacity": {"$lt": 30}}),
        # "N-level" and "level N": the word is the attribute's name, the number its value.
        ("Which 100-level courses are taught by Priya Okonkwo?", AND({"level": {"$eq": 100}}, {"instructor": {"$eq": "Priya Okonkwo"}})),
        ("Show me 200-level courses.", {"level": {"$eq": 200}}),
        ("Which Linguistics courses are 400-level?", AND({"department": {"$eq": "Linguistics"}}, {"level": {"$eq": 400}})),
        ("Show me 300-level Marine Biology courses.", AND({"level": {"$eq": 300}}, {"department": {"$eq": "Marine Biology"}})),
        ("Which 300-level courses are not offered in Autumn?", AND({"level": {"$eq": 300}}, {"term": {"$ne": "Autumn"}})),
        ("Show me courses at level 400 with more than 15 places.", AND({"level": {"$eq": 400}}, {"capacity": {"$gt": 15}})),
    ],
)
def test_bounds_are_conditions_not_limits(question: str, where: dict[str, Any]) -> None:
    assert read(question) == (where, None)


@pytest.mark.parametrize(
    ("question", "where", "limit"),
    [
        ("Show me the top 5 Philosophy courses", {"department": {"$eq": "Philosophy"}}, 5),
        ("show me 10 courses", None, 10),
        ("List 3 Linguistics courses with more than 20 places", AND({"department": {"$eq": "Linguistics"}}, {"capacity": {"$gt": 20}}), 3),
    ],
)
def test_stated_counts_stay_limits(question: str, where: dict[str, Any] | None, limit: int) -> None:
    assert read(question) == (where, limit)


def test_a_bound_no_attribute_fits_is_dropped_with_a_record() -> None:
    """Nothing in a schema of prices and ratings counts ports: the bound is no filter, no limit,
    and the plan says so, so its matches are never signed as the answer."""
    schema = CollectionSchema.model_validate({"description": "Laptops for sale", "attributes": [
        {"name": "brand", "type": "string", "description": "The maker"},
        {"name": "price", "type": "float", "description": "Price in US dollars", "minimum": 0},
        {"name": "rating", "type": "float", "description": "Average rating from 1 to 5 stars", "minimum": 1, "maximum": 5},
    ]})  # fmt: skip
    question = "Show me Lenovo laptops with fewer than 3 ports."
    assert read(question, schema, {"brand": ["Lenovo", "Dell"]}) == ({"brand": {"$eq": "Lenovo"}}, None)
    plan = SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, schema, {"brand": ["Lenovo", "Dell"]})
    assert plan.where == {"brand": {"$eq": "Lenovo"}}
    assert [c.detail for c in plan.changes if c.kind == "unread_bound"] == ["'fewer than 3 ports': no attribute it bounds; not filtered"]
    assert plan.asks is None


@pytest.mark.parametrize(
    ("question", "where"),
    [
        # "search" is a request word ("search for ...") and a known service: where a value stands it is the value.
        ("Show me search incidents before 2025.", AND({"service": {"$eq": "search"}}, {"year": {"$lt": 2025}})),
        ("List search incidents.", {"service": {"$eq": "search"}}),
        ("How many search incidents were there?", {"service": {"$eq": "search"}}),
        ("Show me incidents of the search service.", {"service": {"$eq": "search"}}),
        ("Show me incidents in 2025 affecting search.", AND({"year": {"$eq": 2025}}, {"service": {"$eq": "search"}})),
        ("List incidents that were not search incidents", {"service": {"$ne": "search"}}),
        # The verb opening a request is no value.
        ("Search for database incidents", {"service": {"$eq": "database"}}),
        ("Search incidents in 2024", {"year": {"$eq": 2024}}),
        ("Can you please search for incidents in 2024?", {"year": {"$eq": 2024}}),
        ("I want to search through the email incidents", {"service": {"$eq": "email"}}),
    ],
)
def test_a_known_value_that_is_a_request_word(question: str, where: dict[str, Any]) -> None:
    assert read(question, POSTMORTEMS, SERVICES)[0] == where


def test_any_filler_word_that_is_a_known_value() -> None:
    """Not a rule for "search": a shop's category "watch" ("watch" is a request word too)."""
    schema = CollectionSchema.model_validate({"description": "Products of a shop", "attributes": [
        {"name": "category", "type": "string", "description": "Product category"},
        {"name": "price", "type": "float", "description": "Price in euros"},
    ]})  # fmt: skip
    values = {"category": ["watch", "ring", "bracelet"]}
    assert read("Show me watch straps under 50 euros", schema, values)[0] == AND(
        {"category": {"$eq": "watch"}}, {"price": {"$lt": 50.0}})
    assert read("Which watch models cost less than 100 euros?", schema, values)[0] == AND(
        {"category": {"$eq": "watch"}}, {"price": {"$lt": 100.0}})
    assert read("Watch out for rings under 50 euros", schema, values)[0] == AND(
        {"category": {"$eq": "ring"}}, {"price": {"$lt": 50.0}})
    clothes = {"category": ["top", "dress", "skirt"]}
    assert read("Show me the top 5 dresses", schema, clothes) == ({"category": {"$eq": "dress"}}, 5)
    assert read("Show me a top under 30 euros", schema, clothes)[0] == AND({"category": {"$eq": "top"}}, {"price": {"$lt": 30.0}})


def plan(question: str, schema: CollectionSchema = COURSES, values: dict[str, list[str]] = COURSE_VALUES) -> Any:
    return SelfQueryPlanner(None, mode="rules", today=TODAY).plan(question, schema, values)


def test_a_code_attribute_identifies_one_document() -> None:
    assert COURSES.attribute("code").kind == "identifier"  # type: ignore[union-attr]
    assert COURSES.attribute("title").kind is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        # The subject is a known value of an attribute that identifies one document: what the
        # question asks of it is searched, never filtered (a filter would hide it when the answer is no).
        ("Is PHIL 340 cross-listed with Linguistics?", "Linguistics"),
        ("Is LING 101 taught fully online?", "online"),
        ("Is ECON 201 taught online?", "online"),
        ("Does PHIL 340 have more than 40 places?", "40 places"),
        ("Is PHIL 340 a 300-level course?", "300-level"),
        ("Is PHIL 340 taught by Jonas Eklund in Spring?", "Jonas Eklund"),
    ],
)
def test_a_yes_no_question_about_an_identified_thing_filters_only_the_identifier(question: str, asked: str) -> None:
    p = plan(question)
    code = question.split()[1] + " " + question.split()[2]
    assert p.where == {"code": {"$eq": code}}
    assert asked in p.query.query
    assert "asked_property" in [c.kind for c in p.changes]


@pytest.mark.parametrize(
    ("question", "where"),
    [
        # values that name many documents still filter what follows them
        ("Is Mirela Stanescu teaching online courses?", AND({"instructor": {"$eq": "Mirela Stanescu"}}, {"online": {"$eq": True}})),
        ("Are any Philosophy courses taught online?", AND({"department": {"$eq": "Philosophy"}}, {"online": {"$eq": True}})),
        # an identifier that is not the subject is a condition like any other
        ("Which courses taught online does LING 101 lead to?", AND({"online": {"$eq": True}}, {"code": {"$eq": "LING 101"}})),
    ],
)
def test_values_that_name_many_documents_keep_their_conditions(question: str, where: dict[str, Any]) -> None:
    assert plan(question).where == where


@pytest.mark.parametrize(
    ("question", "schema", "values", "where"),
    [
        # A negation holds only for documents that have the attribute (Chroma's $ne/$nin also
        # select documents without it: the on-call policy has no year).
        ("List the incidents that were not in 2025.", POSTMORTEMS, SERVICES, {"$or": [{"year": {"$lt": 2025}}, {"year": {"$gt": 2025}}]}),
        ("List incidents not from 2023 or 2025", POSTMORTEMS, SERVICES,
         {"$and": [{"year": {"$nin": [2023, 2025]}}, {"$or": [{"year": {"$lt": 2023}}, {"year": {"$gte": 2023}}]}]}),
        ("Which courses aren't taught online?", COURSES, COURSE_VALUES, {"online": {"$eq": False}}),
        ("Philosophy courses that are not 100-level", COURSES, COURSE_VALUES,
         AND({"department": {"$eq": "Philosophy"}}, {"level": {"$gt": 100}})),  # below 100 is no level
        # strings stay $ne: the catalogue need not hold every value (see selfrag.query._present)
        ("Which courses are not offered in Autumn?", COURSES, COURSE_VALUES, {"term": {"$ne": "Autumn"}}),
    ],
)
def test_a_negation_holds_only_where_the_attribute_is(question: str, schema: CollectionSchema, values: dict[str, list[str]],
                                                      where: dict[str, Any]) -> None:
    assert plan(question, schema, values).where == where


def test_a_negated_filter_in_chroma_leaves_out_documents_without_the_attribute(tmp_path: Path) -> None:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(tmp_path), settings=Settings(anonymized_telemetry=False))
    col = client.get_or_create_collection("postmortems", embedding_function=None)
    col.add(ids=["pm-01", "pm-05", "pm-12"], embeddings=[[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]],
            metadatas=[{"service": "search", "year": 2024}, {"service": "payments", "year": 2025}, {"service": "operations"}])
    for question in ("List the incidents that were not in 2025.", "List incidents not from 2023 or 2025"):
        where = plan(question, POSTMORTEMS, SERVICES).where
        assert sorted(col.get(where=where)["ids"]) == ["pm-01"], question


LAPTOPS = CollectionSchema.model_validate(json.loads((HERE / "laptops.schema.json").read_text()))


@pytest.mark.parametrize(("question", "where"), [
    # a new user's probe: both were read as weight_kg == 1.45
    ("laptops lighter than 1.45 kg", {"weight_kg": {"$lt": 1.45}}),
    ("laptops heavier than 1.45 kg", {"weight_kg": {"$gt": 1.45}}),
])  # fmt: skip
def test_a_comparative_of_a_measure_is_a_bound(question: str, where: dict[str, Any]) -> None:
    assert read(question, LAPTOPS, {})[0] == where


LAPTOP_MODELS = {"model": ["ZX-14", "ZX-16", "Slate 13", "Aero 14", "Aero 14 Pro", "Volt 17"]}


@pytest.mark.parametrize(("question", "where"), [
    # the number is part of the model's name, not a price or a weight
    ("Aero 14 price?", {"model": {"$eq": "Aero 14"}}),
    ("zx-14 price?", {"model": {"$eq": "ZX-14"}}),
    ("How much does the Volt 17 weigh?", {"model": {"$eq": "Volt 17"}}),
    ("Aero laptops under 14 kg", {"weight_kg": {"$lt": 14.0}}),  # a number no name holds still bounds
])  # fmt: skip
def test_a_number_inside_a_known_name_is_the_name(question: str, where: dict[str, Any]) -> None:
    assert read(question, LAPTOPS, LAPTOP_MODELS)[0] == where
