"""Which value has the most (or the fewest) of the items ("Which region had the most events?",
"What is the most common breed?"): counted in code over every match, ties named together, and
never signed when the records that state no value could change the first place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selfrag.schema import CollectionSchema
from tests.workflows.conftest import records_engine

SCHEMA = CollectionSchema.model_validate({
    "description": "Veterinary visits, one record per visit",
    "attributes": [
        {"name": "visit_id", "type": "string", "kind": "identifier", "description": "visit code"},
        {"name": "clinic", "type": "string", "kind": "place", "description": "clinic branch"},
        {"name": "species", "type": "string", "kind": "category", "description": "species of the pet"},
        {"name": "vaccines", "type": "string[]", "description": "vaccines given at the visit"},
        {"name": "vet", "type": "string", "kind": "name", "description": "vet who saw the pet"},
        {"name": "year", "type": "integer", "kind": "year", "description": "year of the visit"},
        {"name": "weight_kg", "type": "float", "kind": "weight", "unit": "kg", "description": "weight of the pet"},
    ],
})

#        clinic      species  vaccines                vet            year
ROWS = [("Northside", "dog", ["rabies", "parvo"], "Ana Cruz", 2023),
        ("Northside", "dog", ["rabies"], "Ana Cruz", 2023),
        ("Northside", "cat", [], "Ben Ode", 2024),
        ("Harbor", "cat", ["rabies"], "Ben Ode", 2023),
        ("Harbor", "dog", ["parvo"], "Ana Cruz", 2024),
        ("Westgate", "rabbit", ["myxo"], "Cleo Park", 2024),
        ("Westgate", "dog", ["rabies"], None, 2024)]


def _engine(chroma_client: Any, tmp_path: Path, rows: list[tuple[Any, ...]] = ROWS) -> Any:
    path = tmp_path / "visits.jsonl"
    with path.open("w") as f:
        for i, (clinic, species, vaccines, vet, year) in enumerate(rows, 1):
            metadata = {"visit_id": f"V-{i:03d}", "clinic": clinic, "species": species, "vaccines": vaccines,
                        "year": year, "weight_kg": 3.0 + i}
            if vet is not None:
                metadata["vet"] = vet
            f.write(json.dumps({"id": f"V-{i:03d}", "text": f"Visit V-{i:03d}: a {species} at {clinic} in {year}.",
                                "metadata": metadata}) + "\n")
    engine, _ = records_engine(chroma_client, "visits", SCHEMA, [path], "Northside [1].", top_k=4, relevant=False)
    return engine


def test_the_value_with_the_most_items_is_counted(chroma_client: Any, tmp_path: Path) -> None:
    engine = _engine(chroma_client, tmp_path)
    result = engine.run("Which clinic had the most visits?", collection="visits")
    assert result.outcome == "answered"
    assert result.short_answer == "Northside (3)"
    assert "3 of 7" in result.answer
    # Among the matches of the filter only.
    in_2024 = engine.run("Which clinic had the most dog visits in 2024?", collection="visits")
    assert in_2024.outcome == "answered" and in_2024.short_answer == "Harbor and Westgate (1 each)"
    # "most common" counts too, with the attribute named after it.
    common = engine.run("What is the most common species?", collection="visits")
    assert common.outcome == "answered" and common.short_answer == "dog (4)"


def test_a_list_counts_each_element(chroma_client: Any, tmp_path: Path) -> None:
    engine = _engine(chroma_client, tmp_path)
    result = engine.run("Which vaccine was given most often?", collection="visits")
    # "vaccine" names the list attribute: rabies is in four visits' lists.
    assert result.outcome == "answered" and result.short_answer == "rabies (4)"


def test_the_fewest_counts_values_no_match_holds(chroma_client: Any, tmp_path: Path) -> None:
    engine = _engine(chroma_client, tmp_path)
    # Westgate had no cat visit: none is the fewest, not Harbor's or Northside's one.
    result = engine.run("Which clinic had the fewest cat visits?", collection="visits")
    assert result.outcome == "answered" and result.short_answer == "Westgate (0)"


def test_unrecorded_values_that_could_change_the_first_place_are_not_signed(chroma_client: Any, tmp_path: Path) -> None:
    engine = _engine(chroma_client, tmp_path)
    # Ana Cruz saw 3, Ben Ode 2, and one visit states no vet: Ana Cruz leads by one, and the
    # unrecorded visit could make it a tie.
    result = engine.run("Which vet had the most visits?", collection="visits")
    assert result.outcome != "answered"
    # Fewest first, an unrecorded visit may be the fewest's own.
    assert engine.run("Which vet had the fewest visits?", collection="visits").outcome != "answered"


def test_a_lead_larger_than_the_unrecorded_is_signed(chroma_client: Any, tmp_path: Path) -> None:
    rows = [*ROWS, ("Harbor", "dog", ["rabies"], "Ana Cruz", 2023)]
    engine = _engine(chroma_client, tmp_path, rows)
    result = engine.run("Which vet had the most visits?", collection="visits")
    assert result.outcome == "answered" and result.short_answer == "Ana Cruz (4)"
    assert "1 of them states no vet" in result.answer


def test_an_identifier_or_an_unnamed_attribute_is_not_counted(chroma_client: Any, tmp_path: Path) -> None:
    engine = _engine(chroma_client, tmp_path)
    # One visit each: "which visit had the most …" ranks no count.
    assert engine.run("Which visit had the most vaccines?", collection="visits").outcome != "answered"
    # No attribute asked for: what is counted by is not said.
    assert engine.run("Who had the most visits?", collection="visits").outcome != "answered"


def test_one_value_of_the_asked_attribute_on_several_first_records_is_named_once(chroma_client: Any, tmp_path: Path) -> None:
    # Two of Ana Cruz's visits share the heaviest weight: one vet, named once (it listed her twice).
    rows = [("Northside", "dog", [], "Ana Cruz", 2023), ("Northside", "dog", [], "Ana Cruz", 2024),
            ("Harbor", "cat", [], "Ben Ode", 2024)]
    path = tmp_path / "visits.jsonl"
    with path.open("w") as f:
        for i, (clinic, species, vaccines, vet, year) in enumerate(rows, 1):
            f.write(json.dumps({"id": f"V-{i:03d}", "text": f"Visit V-{i:03d} at {clinic}.", "metadata": {
                "visit_id": f"V-{i:03d}", "clinic": clinic, "species": species, "vaccines": vaccines, "vet": vet,
                "year": year, "weight_kg": 30.0 if vet == "Ana Cruz" else 4.0}}) + "\n")
    engine, _ = records_engine(chroma_client, "visits", SCHEMA, [path], "Ana Cruz [1].", top_k=4, relevant=False)
    result = engine.run("Which vet saw the heaviest pet?", collection="visits")
    assert result.outcome == "answered"
    assert result.short_answer == "Ana Cruz (weight_kg: 30)"
    assert result.answer.count("Ana Cruz") == 1 and len(result.citations) == 2


def test_the_most_of_another_attributes_values_counts_them_once(chroma_client: Any, tmp_path: Path) -> None:
    # Northside has three visits by one vet, Harbor two by two vets: "the most vets" is Harbor's.
    rows = [("Northside", "dog", [], "Ana Cruz", 2022), ("Northside", "dog", [], "Ana Cruz", 2023),
            ("Northside", "cat", [], "Ana Cruz", 2024), ("Harbor", "cat", [], "Ben Ode", 2024),
            ("Harbor", "dog", [], "Cleo Park", 2024)]
    engine = _engine(chroma_client, tmp_path, rows)
    result = engine.run("Which clinic has the most vets?", collection="visits")
    assert result.outcome == "answered" and result.short_answer == "Harbor (2)"
    assert "distinct vet" in result.answer

