"""Property: whatever the model writes, a usable validated query translates into a where clause Chroma accepts.

Random filter trees (valid and junk attributes, comparators, operators; values of every JSON
type, nested, NaN, huge integers, lone surrogates) over a random schema go through
validate_query and to_where, then into a real (temporary) Chroma collection's get() and query().
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from eval.probes import ProbeChroma, probe_records
from selfrag.query import Comparison, Operation, StructuredQuery, rule_based_query, to_where, validate_query
from selfrag.schema import AttributeInfo, CollectionSchema

NAMES = ["genre", "year", "rating", "director", "free", "pages"]
TODAY = date(2025, 6, 1)
CATALOGUE = {name: ["Greta Gerwig", "Luc Besson", "comedy", "Science Fiction", "x"] for name in NAMES}


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # A private persistent client: ephemeral clients share one in-process system across the suite.
    path = tmp_path_factory.mktemp("chroma-query-property")
    client = chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))
    col = client.get_or_create_collection("selfrag-query-property", embedding_function=None)
    col.add(
        ids=["a", "b", "c"],
        embeddings=[[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]],
        documents=["toys", "dreams", "space"],
        metadatas=[
            {"genre": "comedy", "year": 1995, "rating": 8.3, "director": "John Lasseter", "free": True, "pages": 3},
            {"genre": "science fiction", "year": 2010, "rating": 8.8, "director": "Christopher Nolan", "free": False},
            {"genre": "drama", "year": 1972, "rating": 8.1},
        ],
    )
    yield col
    client.delete_collection("selfrag-query-property")


@st.composite
def schemas(draw: st.DrawFn) -> CollectionSchema:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES), unique=True))
    attributes = []
    for name in names:
        type_ = draw(st.sampled_from(["string", "integer", "float", "boolean"]))
        allowed = None
        if type_ == "string" and draw(st.booleans()):
            allowed = draw(st.lists(st.sampled_from(["comedy", "drama", "science fiction", "Ünïcode"]), min_size=1, unique=True))
        if type_ in ("integer", "float") and draw(st.booleans()):
            allowed = draw(st.lists(st.integers(-5, 5), min_size=1, unique=True))
        bounds = draw(st.none() | st.tuples(st.integers(-10, 0), st.integers(1, 3000))) if type_ != "string" else None
        description = draw(st.sampled_from(["", "the year it was released", "a rating"]))
        attributes.append(
            AttributeInfo(
                name=name,
                type=type_,
                description=description,
                allowed_values=allowed,  # type: ignore[arg-type]
                minimum=bounds[0] if bounds else None,
                maximum=bounds[1] if bounds else None,
            )
        )
    return CollectionSchema(attributes=attributes)


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-3000, 3000)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["2019", "8.5", "yes", "the 90s", "last year", "Comedies", "sci-fi", "greta gerwig", "nolan", "\ud800"])
)
junk_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=2), max_leaves=6
)
values = scalars | st.lists(scalars, max_size=4) | junk_values
comparators = st.sampled_from(["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin"])
junk_comparators = st.sampled_from(["$gt", ">=", "like", "", "EQ"]) | st.none() | st.integers()
operators = st.sampled_from(["and", "or", "not"])
junk_operators = st.sampled_from(["AND", "$or", "xor", ""]) | st.none()
junk_attributes = st.sampled_from(["Genre", "metadata.year", "unknown", ""]) | st.integers()


PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "string": st.sampled_from(["comedy", "Comedies", "drama", "sci-fi", "greta gerwig", "Luc Besson", "x"]) | st.text(max_size=8),
    "integer": st.integers(-5, 3000) | st.sampled_from(["2019", "the 90s", "last year", "3 years ago", 1999.0, 2.5]),
    "float": st.floats(-10, 3000) | st.integers(-5, 10) | st.sampled_from(["8.5", "7"]),
    "boolean": st.booleans() | st.sampled_from(["yes", "no", 0, 1]),
}


def leaves(schema: CollectionSchema) -> st.SearchStrategy[Any]:
    """Mostly plausible comparisons over the schema's attributes, sometimes junk, as models or dicts."""

    @st.composite
    def leaf(draw: st.DrawFn) -> Any:
        if draw(st.integers(0, 9)) < 7:
            attr = draw(st.sampled_from(schema.attributes))
            comparator = draw(comparators)
            one = PLAUSIBLE[attr.type]
            value = draw(st.lists(one, min_size=1, max_size=3) | one if comparator in ("in", "nin") else one)
            attribute: Any = attr.name
        else:
            attribute = draw(st.sampled_from(schema.names) | junk_attributes)
            comparator = draw(comparators | junk_comparators)
            value = draw(values)
        if draw(st.booleans()):
            return Comparison.model_construct(attribute=attribute, comparator=comparator, value=value)
        return {"attribute": attribute, "comparator": comparator, "value": value}

    return leaf()


def operations(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    def build(op: Any, args: list[Any], as_model: bool) -> Any:
        return Operation.model_construct(operator=op, arguments=args) if as_model else {"operator": op, "arguments": args}

    operator = operators | operators | junk_operators
    return st.builds(build, operator, st.lists(children, max_size=4), st.booleans())


@st.composite
def cases(draw: st.DrawFn) -> tuple[CollectionSchema, Any]:
    schema = draw(schemas())
    tree = draw(st.recursive(leaves(schema), operations, max_leaves=8) if draw(st.integers(0, 9)) < 8 else st.none() | junk_values)
    query = draw(st.text(max_size=20) | st.none() | st.integers())
    limit = draw(st.none() | st.integers() | st.text(max_size=3))
    return schema, StructuredQuery.model_construct(query=query, filter=tree, limit=limit)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_usable_validated_queries_are_accepted_by_chroma(collection: Any, case: tuple[CollectionSchema, Any]) -> None:
    schema, sq = case
    validated = validate_query(sq, schema, CATALOGUE, today=TODAY)
    # The repaired query is a valid pydantic object, whatever went in.
    assert StructuredQuery.model_validate(validated.query.model_dump()) == validated.query
    if not validated.usable:
        return
    where = to_where(validated.query.filter)
    event("filter kept" if where is not None else "no filter")
    if where is None:
        return
    collection.get(where=where)
    collection.query(query_embeddings=[[1.0, 0.0]], n_results=2, where=where)


PHRASES = [
    "movies", "about", "toys", "rated", "above", "8.5", "after", "1990", "before", "2005", "between", "and", "the 90s",
    "last 5 years", "not", "a", "comedy", "comedies", "or", "drama", "sci-fi", "by", "Nolan's", "Greta Gerwig",
    "excluding", "non-", "two", "top 3", "from", "to", "at least", "7", "under", "since", "2019", "-", ",", "?", "yes",
]  # fmt: skip
questions = st.lists(st.sampled_from(PHRASES) | st.text(max_size=6), max_size=14).map(" ".join)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas(), question=questions)
def test_rule_based_queries_are_valid_and_accepted_by_chroma(collection: Any, schema: CollectionSchema, question: str) -> None:
    sq = rule_based_query(question, schema, CATALOGUE, today=TODAY)
    if question.strip():
        assert sq.query.strip()
    validated = validate_query(sq, schema, CATALOGUE, today=TODAY)
    where = to_where(validated.query.filter)
    event("filter kept" if where is not None else "no filter")
    if where is not None:
        collection.get(where=where)
        collection.query(query_embeddings=[[0.0, 1.0]], n_results=1, where=where)


# -- every filter the validator emits can select something ------------------------------------------
BOUNDED = [
    AttributeInfo(name="stars", type="integer", description="hotel class, 1 to 5 stars", minimum=1, maximum=5),
    AttributeInfo(name="rating", type="float", description="A 1-10 rating", minimum=1, maximum=10),
    AttributeInfo(name="year", type="integer", description="The year it was released"),
    AttributeInfo(name="genre", type="string", allowed_values=["comedy", "drama", "science fiction"]),
    AttributeInfo(name="director", type="string", description="The director's name"),
    AttributeInfo(name="pool", type="boolean", description="Has a pool"),
    AttributeInfo(name="price", type="float", description="Price in euros", minimum=0),
]
CONTRADICTORY_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "stars": st.integers(-3, 9) | st.floats(-3, 9),
    "rating": st.floats(-5, 15) | st.integers(-5, 15),
    "year": st.integers(1900, 2030),
    "genre": st.sampled_from(["comedy", "drama", "science fiction", "sci-fi", "western"]),
    "director": st.sampled_from(["Greta Gerwig", "Luc Besson", "Agnès Varda"]),
    "pool": st.booleans(),
    "price": st.floats(-50, 500) | st.integers(-50, 500),
}


@st.composite
def bounded_trees(draw: st.DrawFn) -> Any:
    """Trees over one fixed schema that are often contradictory: x == a and x == b, empty ranges, out of bounds."""

    @st.composite
    def leaf(inner: st.DrawFn) -> dict[str, Any]:
        attr = inner(st.sampled_from(BOUNDED))
        comparator = inner(comparators)
        one = CONTRADICTORY_VALUES[attr.name]
        value = inner(st.lists(one, min_size=1, max_size=3)) if comparator in ("in", "nin") else inner(one)
        return {"attribute": attr.name, "comparator": comparator, "value": value}

    def op(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.builds(lambda o, a: {"operator": o, "arguments": a}, operators, st.lists(children, min_size=1, max_size=4))

    return draw(st.recursive(leaf(), op, max_leaves=6))


@pytest.fixture(scope="module")
def probes() -> Iterator[ProbeChroma]:
    chroma = ProbeChroma()
    yield chroma
    chroma.close()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=bounded_trees(), question=st.sampled_from(["", "2019 or 2021", "comedy and drama", "either one"]))
# Found by CI's draw: a range narrower than the probes' six decimal places (0 < price < 7.6e-274).
@example(tree={"operator": "and", "arguments": [{"attribute": "price", "comparator": "ne", "value": 0.0},
                                                {"attribute": "price", "comparator": "lt", "value": 7.570556070196248e-274}]},
         question="")
def test_every_emitted_filter_selects_a_probe_record(probes: ProbeChroma, tree: Any, question: str) -> None:
    schema = CollectionSchema(attributes=BOUNDED)
    validated = validate_query({"query": "q", "filter": tree}, schema, {"director": ["Greta Gerwig", "Luc Besson"]},
                               today=TODAY, question=question)
    where = to_where(validated.query.filter)
    event("filter kept" if where is not None else "no filter")
    if where is None:
        return
    records = probe_records(schema, [where], respect_schema=True)
    with probes.loaded(records) as col:
        selected = probes.select(col, where)  # Chroma accepts it …
    assert selected, f"{where} selects none of {len(records)} probe records"  # … and it can select something
