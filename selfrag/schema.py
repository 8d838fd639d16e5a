"""A collection's declared attribute schema: what metadata the self-query step may filter on.

The schema is declared when a collection is created and stored with it (see ``selfrag.store``).
It is a boundary object (read from files, sent over HTTP), hence pydantic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from selfrag.errors import SchemaError
from selfrag.kg.schema import GraphLink, load_graph_link
from selfrag.kinds import AttributeKind, guess_kind
from selfrag.lang import UNITS, lemma, word_set
from selfrag.patterns import MAX_PATTERN_CHARS, CompiledPattern, PatternFlag, compile_pattern
from selfrag.text import content_terms

__all__ = [
    "RESERVED_KEYS",
    "STORED",
    "SCALAR_TYPES",
    "AttributeInfo",
    "AttributeType",
    "CollectionSchema",
    "IndexParams",
    "NamedRangeSpec",
    "RegexExtractor",
    "load_schema_file",
]

AttributeType = Literal["string", "integer", "float", "boolean", "date", "string[]"]
"""``date``: ISO dates in and out, stored as the integer YYYYMMDD so Chroma can range-filter and
order them (see ``selfrag.dates``); ``string[]``: a list of strings, filtered with ``$contains``."""

SCALAR_TYPES: frozenset[str] = frozenset({"string", "integer", "float", "boolean"})
"""The types the generic self-query machinery reads words for; dates, arrays and relations have
their own readers (``selfrag.query.graphq``)."""

RESERVED_KEYS: frozenset[str] = frozenset({"doc_id", "doc_hash", "source", "chunk_index"})
"""Metadata keys selfrag sets on every chunk and relies on: which document a chunk belongs to
(deleting and replacing documents go by ``doc_id``), the fingerprint that makes an unchanged
document free to re-ingest, where it came from, and its place in the document. Input metadata may
not set them (a ``doc_id`` would let one document impersonate another) and no schema may declare them."""

_GENERIC_NAME_WORDS = word_set("generic_name_words")
_LABEL_NAMES = ("name", "title")
"""Attribute names that, by convention, hold what a record is called."""
"""Words of attribute names that say nothing on their own ("total", "number", "count")."""
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")

STORED = "stored"
"""Validation context key: ``{STORED: True}`` reads a schema a collection already holds. Its
patterns are then not re-checked, so a collection created before a check was added stays
readable (and queryable); ingesting into it reports the pattern (see ``RegexExtractor.compiled``)."""


def _default_flags() -> list[PatternFlag]:
    return ["IGNORECASE"]


class RegexExtractor(BaseModel):
    """Extracts one metadata attribute from a document's text at ingest.

    The first match of ``pattern`` wins; ``group`` selects the capture group. ``map`` normalises
    the captured text (e.g. ``{"Wal-Mart": "Walmart"}``), matched case-insensitively. Patterns
    run on RE2, a linear-time engine (see ``selfrag.patterns`` for its syntax), and are checked
    when the schema is declared: one RE2 cannot run is refused then, naming the extractor.
    """

    model_config = ConfigDict(extra="forbid")

    attribute: str
    pattern: str = Field(max_length=MAX_PATTERN_CHARS)
    group: int | str = 1
    flags: list[PatternFlag] = Field(default_factory=_default_flags)
    map: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _runs_safely(self, info: ValidationInfo) -> RegexExtractor:
        if not (isinstance(info.context, dict) and info.context.get(STORED)):
            self.compiled()
        return self

    def compiled(self) -> CompiledPattern:
        """The pattern compiled for RE2, its ``group`` checked.

        Raises:
            ValueError: RE2 cannot run the pattern, or it has no such group; the message names
                the extractor's attribute.
        """
        try:
            pattern = compile_pattern(self.pattern, self.flags)
        except ValueError as exc:
            raise ValueError(f"extractor for {self.attribute!r}: {exc}") from None
        if isinstance(self.group, int) and not 0 <= self.group <= pattern.groups:
            raise ValueError(f"extractor for {self.attribute!r}: pattern has no group {self.group}")
        if isinstance(self.group, str) and self.group not in pattern.groupindex:
            raise ValueError(f"extractor for {self.attribute!r}: pattern has no group named {self.group!r}")
        return pattern


class NamedRangeSpec(BaseModel):
    """Words naming a range of a numeric attribute: ``positive`` → ``sentiment > 0.5``.
    The first word is the range's name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    words: list[str] = Field(min_length=1)
    comparator: Literal["gt", "gte", "lt", "lte"]
    value: float


class AttributeInfo(BaseModel):
    """One filterable metadata attribute."""

    model_config = ConfigDict(extra="forbid")

    name: str
    type: AttributeType
    description: str = ""
    allowed_values: list[str | int | float | bool] | None = None
    minimum: float | None = None
    maximum: float | None = None
    named_ranges: list[NamedRangeSpec] = Field(default_factory=list)
    """Words the self-query maps to a condition on this (numeric) attribute."""
    kind: AttributeKind | None = None
    """What the values mean (year, money, count, name, ...: see ``selfrag.kinds``). Guessed when the
    schema is declared unless given; None: nothing tells (a string whose values will show)."""
    unit: str | None = None
    """The unit stored numbers are in ("minute", "dollar", "km", "star"), when one is stated."""

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError(f"attribute name {v!r} must be an identifier (letters, digits, underscore)")
        return v

    @model_validator(mode="after")
    def _ranges_on_numbers(self) -> AttributeInfo:
        if self.named_ranges and self.type not in ("integer", "float"):
            raise ValueError(f"named_ranges on {self.name!r} need a numeric attribute, not {self.type}")
        return self

    @model_validator(mode="after")
    def _range_not_empty(self, info: ValidationInfo) -> AttributeInfo:
        # No value fits an empty range: every filter on the attribute would be dropped and every
        # document refused. Schemas stored before this was checked still open (context "stored").
        stored = isinstance(info.context, dict) and info.context.get(STORED)
        if self.minimum is not None and self.maximum is not None and self.minimum > self.maximum and not stored:
            raise ValueError(f"minimum {self.minimum:g} of {self.name!r} is above its maximum {self.maximum:g}")
        return self

    @model_validator(mode="after")
    def _kind_known(self) -> AttributeInfo:
        # Guessed once, where the schema is declared: the stored schema then carries it, and a
        # schema stored before kinds existed gets the same guess when it is read.
        if self.kind is None or (self.unit is None and self.kind not in ("year", "count")):
            kind, unit = guess_kind(self.type, self.name, self.description, self.allowed_values)
            if self.kind is None:
                self.kind = kind
            if self.unit is None and self.kind == kind:
                self.unit = unit
        if self.unit is not None and self.unit not in UNITS and lemma(self.unit) in UNITS:
            self.unit = lemma(self.unit)  # "minutes" → "minute"
        if self.unit is not None and self.unit not in UNITS:
            raise ValueError(f"unit {self.unit!r} of {self.name!r} is not one selfrag reads (e.g. minute, dollar, km, star)")
        return self


class IndexParams(BaseModel):
    """A collection's HNSW index parameters, fixed when it is created; None takes ``store.hnsw``'s.

    Chroma reads ``ef_search`` when a process first loads the index, and the other two shape the
    graph as it is built, so none of them changes an existing collection.
    """

    model_config = ConfigDict(extra="forbid")

    ef_search: int | None = Field(None, ge=1, le=10_000)
    """Candidates kept while searching: higher is closer to exact and slower."""
    ef_construction: int | None = Field(None, ge=1, le=10_000)
    """Candidates kept while inserting: a better graph, slower writes."""
    max_neighbors: int | None = Field(None, ge=2, le=256)
    """Links per node (HNSW's M): better recall on hard data, more memory."""


class CollectionSchema(BaseModel):
    """The attributes a collection declares, plus how to extract them at ingest."""

    model_config = ConfigDict(extra="forbid")

    description: str = ""
    attributes: list[AttributeInfo] = Field(default_factory=list)
    extractors: list[RegexExtractor] = Field(default_factory=list)
    index: IndexParams | None = None
    """HNSW parameters for this collection (see ``IndexParams``); None: the settings' defaults."""
    graph: GraphLink | None = None
    """The knowledge graph this collection's mention attributes link to (relations, entities).
    In a schema file it may be a path to the link file, relative to the schema file."""

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> CollectionSchema:
        names = [a.name for a in self.attributes]
        reserved = sorted(set(names) & RESERVED_KEYS)
        # Schemas stored before these names were reserved still open (their context says "stored").
        if reserved and not (isinstance(info.context, dict) and info.context.get("stored")):
            raise ValueError(
                f"attribute name(s) {', '.join(map(repr, reserved))} are reserved: selfrag sets "
                f"{', '.join(sorted(RESERVED_KEYS))} on every chunk itself; choose another name"
            )
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ValueError(f"duplicate attribute(s): {', '.join(sorted(dupes))}")
        for ex in self.extractors:
            if ex.attribute not in names:
                raise ValueError(f"extractor for unknown attribute {ex.attribute!r} (declared: {', '.join(names) or 'none'})")
            if self.attribute(ex.attribute) is not None and self.attribute(ex.attribute).type == "string[]":  # type: ignore[union-attr]
                raise ValueError(f"extractor for {ex.attribute!r}: a regex extracts one value, and it is a string[]")
        if self.graph is not None:
            for m in self.graph.mentions:
                attr = self.attribute(m.attribute)
                if attr is None or attr.type != "string[]":
                    raise ValueError(f"graph mention attribute {m.attribute!r} must be a declared string[] attribute")
        return self

    @property
    def date_attribute(self) -> AttributeInfo | None:
        """The first declared ``date`` attribute: what "latest" orders by."""
        return next((a for a in self.attributes if a.type == "date"), None)

    def scalar_view(self, *, lists: bool = False) -> CollectionSchema:
        """This schema with only its scalar attributes (see ``SCALAR_TYPES``) and, with ``lists``,
        its ``string[]`` ones, for the readers that know no others. The same object when there is
        nothing to hide."""
        types = SCALAR_TYPES | ({"string[]"} if lists else set())
        if all(a.type in types for a in self.attributes):
            return self
        kept = [a for a in self.attributes if a.type in types]
        return self.model_copy(update={"attributes": kept, "graph": None, "extractors": [
            e for e in self.extractors if any(a.name == e.attribute for a in kept)]})

    def kinds(self) -> str:
        """What each attribute's values mean, as the self-query reads them ("founded: year,
        yearly_fee: money in dollar"); shown when a collection is created, so a wrong guess is seen."""
        return ", ".join(f"{a.name}: {a.kind or 'unknown'}" + (f" in {a.unit}" if a.unit else "") for a in self.attributes)

    @property
    def label_attribute(self) -> str | None:
        """The attribute a record is called by: one named ``name`` or ``title``, else the first
        identifier, else the one attribute holding a proper name ("site": "The inspected site's
        name"). With two names (a club's and its president's) which one calls it is not said."""
        for a in self.attributes:
            if a.type == "string" and a.name.lower() in _LABEL_NAMES:
                return a.name
        if (first := next((a for a in self.attributes if a.type == "string" and a.kind == "identifier"), None)) is not None:
            return first.name
        names = [a.name for a in self.attributes if a.type == "string" and a.kind == "name"]
        return names[0] if len(names) == 1 else None

    def attribute(self, name: str) -> AttributeInfo | None:
        for a in self.attributes:
            if a.name == name:
                return a
        return None

    def named_in(self, text: str, *, items: Collection[str] = ()) -> list[AttributeInfo]:
        """The attributes ``text`` names by their own name ("members", "yearly fee" for
        ``yearly_fee``): every word of the name stands in it, however inflected, but a unit
        ("price" names ``price_usd``, "battery" ``battery_hours``: nobody asks for the usd).
        ``items``: the words for the collection's own items (their forms), which name the items
        and not an attribute by them alone ("talks" of talk records is no ``talk_minutes``)."""
        words = content_terms(text)
        named = []
        for a in self.attributes:
            own = content_terms(a.name.replace("_", " "))
            core = {w for w in own if w not in UNITS}
            if not core or core <= _GENERIC_NAME_WORDS or core <= set(items):
                core = own  # "total_minutes" is not named by "total" alone
            if own <= set(items):
                continue  # "tickets" of ticket records names the records, not their ticket_no
            if own and core <= words:
                named.append(a)
        return named

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attributes]

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str, *, stored: bool = False) -> CollectionSchema:
        """Parse a schema; ``stored``: one a collection already holds (see ``STORED``)."""
        return cls.model_validate_json(text, context={STORED: True} if stored else None)


def load_schema_file(path: str | Path) -> CollectionSchema:
    """Read a schema from a JSON file.

    Raises:
        SchemaError: the file is unreadable, not JSON, or not a valid schema (one-line message).
    """
    p = Path(path)
    try:
        raw: Any = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SchemaError(f"cannot read schema file {p}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        # Some of json's messages end in "at" ("Unterminated string starting at"): one "at" is enough.
        what = exc.msg.removesuffix(" at")
        raise SchemaError(f"schema file {p} is not valid JSON: {what} at line {exc.lineno}, column {exc.colno}") from exc
    if isinstance(raw, dict) and isinstance(raw.get("graph"), str):
        # A link file next to the schema: read it now, so the stored schema is self-contained.
        raw = {**raw, "graph": load_graph_link(p.parent / raw["graph"]).model_dump(mode="json")}
    try:
        return CollectionSchema.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "(root)"
        msg = str(first['msg']).removeprefix('Value error, ')
        raise SchemaError(f"schema file {p}: {where}: {msg}") from exc
