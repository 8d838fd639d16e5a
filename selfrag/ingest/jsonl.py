"""jsonl input: one document per line, as LangChain ``Document`` dumps or plain records.

Each line is ``{"text" | "page_content": str, "metadata": {...}?, "id": str | int?}``. This is a
dataset file crossing into the program, so each line is validated with pydantic; a bad line
fails the whole file with its line number, before anything is stored.

A line is the document its ``id`` names (ids are collection-wide, so a record can move between
files). A line without one is ``<file's source>#<hash of its text and metadata>``: inserting or
reordering lines changes nothing, and an edited line replaces its old version when the file is
ingested again (the old one is no longer in the file, so it is removed).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from selfrag.errors import IngestError
from selfrag.ingest.types import SourceDocument, reserved_keys_message
from selfrag.jsonl import json_models

__all__ = ["JsonlRecord", "load_jsonl"]


class JsonlRecord(BaseModel):
    """One line of a jsonl file. Other keys (LangChain's ``type``) are ignored."""

    model_config = ConfigDict(extra="ignore")

    text: str | None = None
    page_content: str | None = None
    metadata: dict[str, Any] = {}
    id: str | int | None = None

    @model_validator(mode="after")
    def _has_text(self) -> JsonlRecord:
        content = self.text if self.text is not None else self.page_content
        if content is None:
            raise ValueError("needs a 'text' (or 'page_content') string")
        if not content.strip():
            raise ValueError("'text' is empty")
        return self

    @property
    def content(self) -> str:
        return self.text if self.text is not None else (self.page_content or "")


def load_jsonl(path: str | Path, text: str, file_meta: Mapping[str, Any]) -> list[SourceDocument]:
    """Parse ``text`` (the contents of the file named ``path``) into one document per non-blank line.

    Raises:
        IngestError: a line is not JSON, not an object, lacks text, sets a reserved metadata key or
            repeats another line's ``id``; or the file has no lines.
    """
    docs: list[SourceDocument] = []
    seen: dict[str, int] = {}
    for number, record in json_models(text, str(path), IngestError, JsonlRecord):
        reserved = reserved_keys_message(record.metadata)
        if reserved:
            raise IngestError(f"{path}:{number}: {reserved}")
        metadata = {**file_meta, **record.metadata}
        if record.id is not None:
            doc_id = str(record.id)
            if doc_id in seen:
                raise IngestError(f"{path}:{number}: id {doc_id!r} is also the id of line {seen[doc_id]}")
        else:
            doc_id = f"{file_meta['source']}#{_digest(record.content, record.metadata)}"
            if doc_id in seen:
                continue  # the same text and metadata again: one document
        seen[doc_id] = number
        docs.append(SourceDocument(record.content, metadata, doc_id=doc_id, line=number))
    if not docs:
        raise IngestError(f"{path}: file is empty")
    return docs


def _digest(text: str, metadata: Mapping[str, Any]) -> str:
    payload = json.dumps([" ".join(text.split()), metadata], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]
