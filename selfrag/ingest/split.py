"""Cutting source documents into chunks with stable, content-derived ids.

The id is a hash of the source and the whitespace-normalised text, so re-ingesting the same
file yields the same ids and stores nothing new, whatever the collection is called. A jsonl
record's own ``id`` is used as-is instead, so callers (and eval datasets) can name documents.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Mapping
from typing import Any

from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

from selfrag.ingest.types import SourceDocument
from selfrag.store import Chunk

__all__ = ["Splitter", "chunk_id"]

_MARKDOWN_EXTS = {"md", "markdown"}


def chunk_id(text: str, source: str) -> str:
    """32 hex digits of sha256 over the source and the whitespace-normalised text."""
    normal = " ".join(text.split())
    return hashlib.sha256(f"{source}\x00{normal}".encode()).hexdigest()[:32]


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

    def split(self, doc: SourceDocument, metadata: Mapping[str, Any]) -> list[Chunk]:
        """Chunks of ``doc``, each carrying ``metadata`` plus ``chunk_index``, ``doc_id`` (the document's
        id, or its source when it has none) and, for PDFs, ``page``."""
        splitter = self._markdown if metadata.get("ext") in _MARKDOWN_EXTS else self._plain
        pieces = splitter.create_documents([doc.text])
        source = str(metadata.get("source", ""))
        chunks: list[Chunk] = []
        for index, piece in enumerate(p for p in pieces if p.page_content.strip()):
            meta = dict(metadata)
            meta["chunk_index"] = index
            # Which document a chunk came from, so a whole document can be deleted by its id.
            meta.setdefault("doc_id", doc.doc_id if doc.doc_id is not None else source)
            if doc.page_starts:
                start = int(piece.metadata.get("start_index", 0))
                meta["page"] = max(1, bisect.bisect_right(doc.page_starts, start))
            if doc.doc_id is not None:
                cid = doc.doc_id if index == 0 else f"{doc.doc_id}:{index}"
            else:
                cid = chunk_id(piece.page_content, source)
            chunks.append(Chunk(cid, piece.page_content, meta))
        return chunks
