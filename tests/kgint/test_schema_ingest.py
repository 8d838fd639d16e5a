"""Item 1: the companies schema loads (dates, string arrays, named ranges, the graph link), and
ingest stores dates as sortable integers, arrays for ``$contains``, and mentions found in text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag.errors import SchemaError
from selfrag.ingest import MentionExtractor, SourceDocument, prepare_documents, store_batch
from selfrag.kg import FalkorGraphStore
from selfrag.schema import CollectionSchema, load_schema_file
from selfrag.store import Store
from selfrag.values import coerce_list, date_number, date_text
from tests.kgint.conftest import SAMPLE


def test_the_companies_schema_loads_with_its_graph_link() -> None:
    schema = load_schema_file(SAMPLE / "schema.json")
    assert schema.graph is not None and schema.graph.graph == "companies"
    assert [m.attribute for m in schema.graph.mentions] == ["organizations"]
    assert schema.date_attribute is not None and schema.date_attribute.name == "date"
    sentiment = schema.attribute("sentiment")
    assert sentiment is not None and [r.words[0] for r in sentiment.named_ranges] == ["positive", "negative"]
    # The generic readers see only scalar attributes; the stored schema is self-contained JSON.
    assert schema.scalar_view().names == ["title", "sentiment", "topic"]
    assert CollectionSchema.from_json(schema.to_json(), stored=True) == schema


def _write(tmp_path: Path, schema: dict[str, object]) -> Path:
    p = tmp_path / "schema.json"
    p.write_text(json.dumps(schema), encoding="utf-8")
    return p


def test_schema_mistakes_are_one_line_errors(tmp_path: Path) -> None:
    ranged_text = {"attributes": [{"name": "mood", "type": "string",
                                   "named_ranges": [{"words": ["happy"], "comparator": "gt", "value": 1}]}]}
    with pytest.raises(SchemaError, match="named_ranges on 'mood' need a numeric attribute"):
        load_schema_file(_write(tmp_path, ranged_text))
    link = json.loads((SAMPLE / "graph.json").read_text())
    scalar_mentions = {"attributes": [{"name": "organizations", "type": "string"}], "graph": link}
    with pytest.raises(SchemaError, match="must be a declared string\\[\\] attribute"):
        load_schema_file(_write(tmp_path, scalar_mentions))
    with pytest.raises(SchemaError, match="cannot read graph link file"):
        load_schema_file(_write(tmp_path, {"attributes": [], "graph": "missing.json"}))


def test_date_and_list_coercion() -> None:
    assert date_number("2024-03-05") == 20240305 and date_text(20240305) == "2024-03-05"
    assert date_number("2024-03-05T10:00:00Z") == 20240305 and date_number(20240305) == 20240305
    assert date_number("2024-02-30") is None and date_number("2024") is None and date_number(2024) is None
    assert date_number(True) is None
    assert coerce_list(["Neo4j", " Neo4j ", "", "Acme"]) == ["Neo4j", "Acme"] and coerce_list("Acme") == ["Acme"]
    assert coerce_list([1, 2]) is None


def test_the_sample_is_stored_with_sortable_dates_and_array_mentions(companies: Store) -> None:
    coll = companies.get_collection("companies")
    assert coll.count() == 130
    [first] = coll.get(["news-001"])
    assert first.metadata["date"] == "2024-01-10" and first.metadata["organizations"] == ["Orchard Data"]
    hits = coll.search("lawsuit", where={"$and": [{"date": {"$gte": 20240601}}, {"organizations": {"$contains": "Orchard Data"}}]}, k=50)
    assert len(hits) == 2 and all(h.metadata["date"] >= "2024-06-01" and "Orchard Data" in h.metadata["organizations"] for h in hits)  # type: ignore[operator]


def test_mentions_come_from_metadata_or_from_the_text(companies: Store, graph: FalkorGraphStore) -> None:
    coll = companies.get_collection("companies")
    assert coll.schema.graph is not None
    extract = MentionExtractor.from_store(graph, coll.schema.graph)
    docs = [
        SourceDocument("Orchard Data and Tundra Robotics sign a deal; Mercury declines to comment.",
                       {"date": "2025-01-02"}, "x-1"),
        SourceDocument("Tundra Robotics hires.", {"date": "2025-01-03", "organizations": ["Orchard Data"]}, "x-2"),
        SourceDocument("Nothing about any company.", {"date": "2025-01-04"}, "x-3"),
    ]
    store_batch(coll, prepare_documents(coll.schema, docs, mentions=extract))
    by_id = {c.id: c.metadata for c in coll.get(["x-1", "x-2", "x-3"])}
    # Ambiguous "Mercury" is left out; the document's own metadata wins; no mention is no value.
    assert by_id["x-1"]["organizations"] == ["Orchard Data", "Tundra Robotics"]
    assert by_id["x-2"]["organizations"] == ["Orchard Data"]
    assert "organizations" not in by_id["x-3"]
