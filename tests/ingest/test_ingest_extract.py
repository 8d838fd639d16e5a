"""Regex extractors fill schema attributes from a document's text."""

from __future__ import annotations

import pytest

from selfrag.errors import SchemaError
from selfrag.ingest import MetadataExtractor
from selfrag.schema import AttributeInfo, CollectionSchema, RegexExtractor


def test_first_match_mapping_and_coercion(report_schema: CollectionSchema) -> None:
    extract = MetadataExtractor(report_schema)
    text = "WAL-MART Stores annual report for fiscal year 2023. Acme is a rival. In fiscal 2022 we ..."
    assert extract(text) == {"company": "Walmart", "fiscal_year": 2023}
    assert extract("Acme results, fiscal 2021") == {"company": "Acme", "fiscal_year": 2021}
    assert extract("nothing to see") == {}


def test_first_extractor_that_matches_wins_and_uncoercible_values_are_skipped() -> None:
    schema = CollectionSchema(
        attributes=[AttributeInfo(name="year", type="integer")],
        extractors=[
            RegexExtractor(attribute="year", pattern=r"FY(\w+)"),
            RegexExtractor(attribute="year", pattern=r"year (?P<y>\d{4})", group="y"),
        ],
    )
    extract = MetadataExtractor(schema)
    assert extract("FY2024 and year 2023") == {"year": 2024}
    assert extract("FYtwenty and year 2023") == {"year": 2023}  # 'twenty' is no integer: next extractor


def test_missing_group_is_a_schema_error() -> None:
    schema = CollectionSchema(
        attributes=[AttributeInfo(name="year", type="integer")],
        extractors=[RegexExtractor(attribute="year", pattern=r"\d{4}", group=1)],
    )
    with pytest.raises(SchemaError, match="has no group 1"):
        MetadataExtractor(schema)
