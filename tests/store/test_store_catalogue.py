"""The catalogue records string attribute values: sorted, one spelling per value, bounded."""

from __future__ import annotations

import pytest

import selfrag.store.catalogue as catalogue_module
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.store import Catalogue

SCHEMA = CollectionSchema(
    attributes=[AttributeInfo(name="genre", type="string"), AttributeInfo(name="year", type="integer")]
)


def test_merge_sorts_and_deduplicates_case_insensitively() -> None:
    cat = Catalogue()
    assert cat.merge([{"genre": "drama"}, {"genre": "Comedy"}, {"genre": "comedy", "year": 1990}], SCHEMA)
    assert cat.values == {"genre": ["Comedy", "drama"]}
    assert not cat.merge([{"genre": "DRAMA"}], SCHEMA)  # known spelling kept, nothing changed
    assert cat.merge([{"genre": "action"}], SCHEMA)
    assert cat.values["genre"] == ["action", "Comedy", "drama"]


def test_only_string_attributes_and_short_values_are_recorded() -> None:
    cat = Catalogue()
    cat.merge([{"year": 1999, "genre": "x" * 500, "other": "free"}], SCHEMA)
    assert cat.values == {}


def test_merge_is_bounded_and_marks_the_attribute_incomplete(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalogue_module, "MAX_VALUES", 3)
    cat = Catalogue()
    cat.merge([{"genre": g} for g in ["e", "d", "c", "b", "a"]], SCHEMA)
    assert cat.values["genre"] == ["a", "b", "c"]
    assert cat.incomplete == {"genre"}


def test_json_round_trip_and_malformed_input() -> None:
    cat = Catalogue({"genre": ["a"]}, {"genre"})
    again = Catalogue.from_json_obj(cat.to_json_obj())
    assert again == cat
    assert Catalogue.from_json_obj("garbage") == Catalogue()
    assert Catalogue.from_json_obj({"values": {"genre": ["a", 3]}, "incomplete": 7}) == Catalogue({"genre": ["a"]})


def test_a_list_attribute_s_elements_are_recorded_as_its_values() -> None:
    # "Which towns have the Harrow Fen station?" reads a known element of ``stations``.
    schema = CollectionSchema(attributes=[AttributeInfo(name="stations", type="string[]")])
    cat = Catalogue()
    assert cat.merge([{"stations": ["Harrow Fen", "Kel Bridge"]}, {"stations": ["harrow fen", "Moor Top"]}], schema)
    assert cat.values == {"stations": ["Harrow Fen", "Kel Bridge", "Moor Top"]}
