"""Regex extractors fill schema attributes from a document's text, in time linear in the text."""

from __future__ import annotations

import json
import subprocess
import sys

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


def test_an_extracted_value_outside_the_declared_range_is_skipped() -> None:
    schema = CollectionSchema(
        attributes=[AttributeInfo(name="room", type="integer", minimum=1, maximum=8)],
        extractors=[RegexExtractor(attribute="room", pattern=r"[Rr]oom (\d+)")],
    )
    extract = MetadataExtractor(schema)
    assert extract("Room 99, formerly room 4") == {}  # the first match is out of range: no value
    assert extract("Room 4") == {"room": 4}


def test_missing_group_is_refused_when_the_schema_is_declared() -> None:
    with pytest.raises(ValueError, match="extractor for 'year': pattern has no group 1"):
        RegexExtractor(attribute="year", pattern=r"\d{4}", group=1)
    with pytest.raises(ValueError, match="extractor for 'year': pattern has no group named 'y'"):
        RegexExtractor(attribute="year", pattern=r"(?P<x>\d{4})", group="y")


# A pattern that backtracks catastrophically in Python's ``re``: 2^n steps on n "a"s not followed
# by the end. Run in a child process, so that the old engine (which never let go of the GIL)
# fails this test by its timeout instead of hanging the whole test session.
_HOSTILE_EXTRACTION = """
import json, time
from selfrag.ingest import MetadataExtractor
from selfrag.schema import CollectionSchema
schema = CollectionSchema.model_validate({
    "attributes": [{"name": "x", "type": "string"}],
    "extractors": [{"attribute": "x", "pattern": "(a+)+$"}],
})
extract = MetadataExtractor(schema)
start = time.perf_counter()
found = [extract("a" * 40_000 + "!"), extract("a" * 40_000), extract("b" + "a" * 28 + "!")]
print(json.dumps({"seconds": time.perf_counter() - start, "found": [sorted(f.items()) for f in found]}))
"""


def test_a_catastrophically_backtracking_pattern_runs_in_linear_time() -> None:
    try:
        done = subprocess.run([sys.executable, "-c", _HOSTILE_EXTRACTION], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("extracting (a+)+$ from 40,000 characters did not finish within 60 s")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["seconds"] < 1.0, out["seconds"]  # linear: milliseconds; backtracking: never
    assert out["found"] == [[], [["x", "a" * 40_000]], []]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"(?<=CEO )(\w+)", "extractor for 'who': lookbehind '(?<=' is not supported"),
        (r"(?=CEO)(\w+)", "extractor for 'who': lookahead '(?=' is not supported"),
        (r"(\w+) and \1", "extractor for 'who': backreferences are not supported"),
        (r"(\w+)\Z", "extractor for 'who': write the end of text as '\\z'"),
        (r"(a{2000})", "extractor for 'who': repetition counts above 1000 are not supported"),
        (r"(unclosed", "extractor for 'who': the pattern does not compile"),
        ("(" + "a" * 1001 + ")", "at most 1000 characters"),
    ],
)
def test_a_pattern_the_linear_engine_cannot_run_is_refused_naming_the_extractor(pattern: str, expected: str) -> None:
    with pytest.raises(ValueError) as refused:
        CollectionSchema.model_validate(
            {"attributes": [{"name": "who", "type": "string"}], "extractors": [{"attribute": "who", "pattern": pattern}]}
        )
    assert expected in str(refused.value)


def test_a_stored_schema_with_an_unsupported_pattern_stays_readable_but_cannot_ingest() -> None:
    """A collection declared before patterns were checked: it can still be opened (and queried),
    and an ingest into it fails with a one-line error naming the extractor."""
    raw = json.dumps({"attributes": [{"name": "who", "type": "string"}],
                      "extractors": [{"attribute": "who", "pattern": "(?<=CEO )(\\w+)"}]})
    schema = CollectionSchema.from_json(raw, stored=True)
    assert schema.extractors[0].pattern == "(?<=CEO )(\\w+)"
    with pytest.raises(SchemaError, match="extractor for 'who': lookbehind"):
        MetadataExtractor(schema)
    with pytest.raises(ValueError, match="lookbehind"):
        CollectionSchema.from_json(raw)


def test_flags_and_groups_keep_their_python_meaning() -> None:
    schema = CollectionSchema(
        attributes=[AttributeInfo(name="title", type="string"), AttributeInfo(name="body", type="string"),
                    AttributeInfo(name="year", type="integer")],
        extractors=[
            RegexExtractor(attribute="title", pattern=r"^# (.+)$", flags=["MULTILINE"]),
            RegexExtractor(attribute="body", pattern=r"BEGIN(.+)END", flags=["DOTALL"]),
            RegexExtractor(attribute="year", pattern=r"fiscal (?P<y>\d{4})", group="y"),
        ],
    )
    extract = MetadataExtractor(schema)
    text = "preamble\n# Annual Report\nBEGIN one\ntwo END in FISCAL 2024"
    assert extract(text) == {"title": "Annual Report", "body": "one two", "year": 2024}
    assert extract("# Title only") == {"title": "Title only"}
    assert MetadataExtractor(schema.model_copy(update={"extractors": [
        RegexExtractor(attribute="title", pattern=r"^# (.+)$", flags=[])]}))("x\n# Not first line") == {}


def test_an_extracted_value_not_among_the_allowed_values_is_skipped() -> None:
    schema = CollectionSchema(
        attributes=[AttributeInfo(name="medium", type="string", allowed_values=["Oil", "Watercolour"])],
        extractors=[RegexExtractor(attribute="medium", pattern=r"[Mm]edium: (\w+)")],
    )
    extract = MetadataExtractor(schema)
    assert extract("Medium: Gouache") == {}
    assert extract("medium: oil") == {"medium": "Oil"}
