"""A "how many" question whose filter holds it is answered by the number of matches, never by the
values of the attribute its counted word happens to name ("How many battery replacements were done
before 2024?" of a service type "battery replacement" was signed "alternator belt, battery and
battery terminals", the parts those services replaced)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selfrag.schema import CollectionSchema
from tests.workflows.conftest import records_engine

SCHEMA = CollectionSchema.model_validate({"description": "Service records of a delivery fleet", "attributes": [
    {"name": "service_id", "type": "string", "kind": "identifier", "description": "code of the service record"},
    {"name": "service_type", "type": "string", "kind": "category", "description": "type of service or repair"},
    {"name": "parts_replaced", "type": "string[]", "description": "parts replaced during the service"}]})


def test_how_many_is_the_number_of_matches(chroma_client: Any, tmp_path: Path) -> None:
    rows = [("SR-1", "battery replacement", ["battery"]), ("SR-2", "battery replacement", ["battery", "alternator belt"]),
            ("SR-3", "oil change", ["oil filter"])]
    path = tmp_path / "services.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": f"Service {i}: {t}.", "metadata": {
        "service_id": i, "service_type": t, "parts_replaced": p}}) + "\n" for i, t, p in rows))
    engine, _ = records_engine(chroma_client, "services", SCHEMA, [path], "A model's answer [1].", top_k=10, relevant=False)
    result = engine.run("How many battery replacements were done?", collection="services")
    assert result.short_answer == "2 matching documents"
