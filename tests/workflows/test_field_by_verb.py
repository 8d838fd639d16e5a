"""A figure asked by the verb its description uses ("What did LST-6001 sell for?" of a list price
and a sale price, "price the property sold for") is the record's value of that attribute."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selfrag.schema import CollectionSchema
from tests.workflows.conftest import records_engine

SCHEMA = CollectionSchema.model_validate({
    "description": "Residential property sale records, one record per listing",
    "attributes": [
        {"name": "listing_id", "type": "string", "kind": "identifier", "description": "listing code"},
        {"name": "list_price", "type": "integer", "kind": "money", "unit": "pound",
         "description": "asking price the property was listed at, in pounds"},
        {"name": "sale_price", "type": "integer", "kind": "money", "unit": "pound",
         "description": "price the property sold for, in pounds"},
        {"name": "listed_date", "type": "date", "description": "date the property was listed"},
    ],
})


def _engine(chroma_client: Any, tmp_path: Path) -> Any:
    path = tmp_path / "sales.jsonl"
    rows = [("LST-6001", 410000, 402000), ("LST-6002", 480000, 480000), ("LST-6003", 275000, None)]
    with path.open("w") as f:
        for ident, listed, sold in rows:
            metadata = {"listing_id": ident, "list_price": listed, "listed_date": "2023-03-01"}
            if sold is not None:
                metadata["sale_price"] = sold
            f.write(json.dumps({"id": ident, "text": f"{ident}: a flat in Harwood.", "metadata": metadata}) + "\n")
    engine, _ = records_engine(chroma_client, "sales", SCHEMA, [path], "£1 [1].", top_k=4, relevant=False)
    return engine


def test_the_figure_the_verb_records_is_the_answer(chroma_client: Any, tmp_path: Path) -> None:
    engine = _engine(chroma_client, tmp_path)
    for question, short in [("What did LST-6001 sell for?", "402000"), ("How much did LST-6001 sell for?", "402000"),
                            ("How much was LST-6001 listed for?", "410000")]:
        result = engine.run(question, collection="sales")
        assert result.outcome == "answered" and result.short_answer == short, question


def test_a_figure_the_record_lacks_is_not_the_other_one(chroma_client: Any, tmp_path: Path) -> None:
    # LST-6003 never sold: its list price is no answer to what it sold for.
    result = _engine(chroma_client, tmp_path).run("What did LST-6003 sell for?", collection="sales")
    assert result.short_answer != "275000"


def test_what_a_verb_did_is_no_count_of_it() -> None:
    # "What was fixed in Lumen 2025.2?" was signed "24", the release's fixes_count ("number of bug
    # fixes in the release"): what was fixed is asked, not how many.
    from workflows.set_answers import asked_attribute

    schema = CollectionSchema.model_validate({"description": "Software releases", "attributes": [
        {"name": "product", "type": "string", "kind": "name", "description": "product released"},
        {"name": "version", "type": "string", "kind": "identifier", "description": "release version"},
        {"name": "fixes_count", "type": "integer", "kind": "count", "description": "number of bug fixes in the release"}]})
    where = {"operator": "and", "arguments": [{"attribute": "product", "comparator": "eq", "value": "Lumen"},
                                              {"attribute": "version", "comparator": "eq", "value": "2025.2"}]}
    assert asked_attribute("What was fixed in Lumen 2025.2?", "What was fixed", schema, where) is None
    assert asked_attribute("What did LST-6001 sell for?", "What did sell for", SCHEMA,
                           {"attribute": "listing_id", "comparator": "eq", "value": "LST-6001"}).name == "sale_price"
