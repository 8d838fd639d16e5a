"""Cutting source documents into chunks named after their document.

A document's chunks are ``<doc id>``, ``<doc id>:1``, ``<doc id>:2``, ...: a citation names its
document, a new version of a document overwrites its chunks in place (see
``Collection.write_documents``), and evaluation datasets can name gold documents by id.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import Any

from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

from selfrag.ingest.types import SourceDocument
from selfrag.store import Chunk

__all__ = ["Splitter"]

_MARKDOWN_EXTS = {"md", "markdown"}


class Splitter:
    """Splits documents with LangChain's recursive splitter; Markdown splits at headings first.

    Raises:
        ValueError: ``chunk_overlap`` is not smaller than ``chunk_size``, or either is negative.
    """

    def __init__(self, chunk_size: int, chunk_overlap: int) -> None:
        if chunk_size < 1 or chunk_overlap < 0 or chunk_overlap >= chunk_size:
            raise ValueError(f"need 0 <= chunk_overlap < chunk_size, got size {chunk_size}, overlap {chunk_overlap}")
        self._plain = RecursiveCharacterTextSplitter(
            chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True
        )
        self._markdown = RecursiveCharacterTextSplitter.from_language(
            Language.MARKDOWN, chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True
        )

    def kind(self, metadata: Mapping[str, Any]) -> str:
        """Which splitter ``split`` uses for a document with ``metadata``: ``markdown`` or ``plain``."""
        return "markdown" if metadata.get("ext") in _MARKDOWN_EXTS else "plain"

    def split(self, doc: SourceDocument, metadata: Mapping[str, Any]) -> list[Chunk]:
        """Chunks of ``doc``, each carrying ``metadata`` plus ``chunk_index``, ``doc_id`` (the document's
        id, or its source when it has none) and, for PDFs, ``page``."""
        splitter = self._markdown if self.kind(metadata) == "markdown" else self._plain
        pieces = splitter.create_documents([doc.text])
        doc_id = doc.doc_id if doc.doc_id is not None else str(metadata.get("source", ""))
        chunks: list[Chunk] = []
        for index, piece in enumerate(p for p in pieces if p.page_content.strip()):
            meta = dict(metadata)
            meta["chunk_index"] = index
            meta["doc_id"] = doc_id  # which document a chunk came from: replacing and deleting go by it
            if doc.page_starts:
                start = int(piece.metadata.get("start_index", 0))
                meta["page"] = max(1, bisect.bisect_right(doc.page_starts, start))
            chunks.append(Chunk(doc_id if index == 0 else f"{doc_id}:{index}", piece.page_content, meta))
        return chunks
