"""Reading one file into ``SourceDocument``s: plain text, Markdown, HTML, PDF and jsonl.

Every failure — unreadable, binary, undecodable, corrupt, empty — becomes an ``IngestError``
whose one-line message starts with the file's name, so the user knows which one to fix.

Each document gets its identity here: a file's ``source`` (its path relative to the ingest root,
see ``selfrag.ingest.files``) is the id of the one document it holds; a jsonl line is the document
its ``id`` names, or ``<source>#<hash of its text and metadata>`` when it has none.
"""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from selfrag.errors import IngestError, one_line
from selfrag.ingest.jsonl import load_jsonl
from selfrag.ingest.text import display_path, read_text
from selfrag.ingest.types import SourceDocument

__all__ = ["file_metadata", "load_file"]


def file_metadata(path: Path, source: str | None = None) -> dict[str, Any]:
    """Metadata every document from ``path`` carries; ``source`` defaults to the file's name."""
    name = display_path(path.name)
    return {"source": source or name, "filename": name, "ext": path.suffix.lower().lstrip(".")}


def load_file(path: str | Path, *, name: str | None = None, source: str | None = None) -> list[SourceDocument]:
    """Read one supported file.

    Args:
        name: How messages name the file (default: its path).
        source: Its identity (default: its file name); see the module docstring.

    Returns:
        One document per file, except jsonl: one per non-blank line.

    Raises:
        IngestError: the file is unsupported, unreadable, binary, malformed or has no text.
    """
    p = Path(path)
    shown = name or display_path(p)
    loader = _LOADERS.get(p.suffix.lower())
    if loader is None:
        raise IngestError(f"{shown}: unsupported file type '{display_path(p.suffix)}'")
    return loader(p, shown, file_metadata(p, source))


def _one(text: str, metadata: dict[str, Any], **extra: Any) -> list[SourceDocument]:
    return [SourceDocument(text, metadata, doc_id=str(metadata["source"]), **extra)]


def _load_text(path: Path, shown: str, meta: dict[str, Any]) -> list[SourceDocument]:
    text = read_text(path, shown)
    if not text.strip():
        raise IngestError(f"{shown}: file is empty")
    return _one(text, meta)


def _load_html(path: Path, shown: str, meta: dict[str, Any]) -> list[SourceDocument]:
    from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, XMLParsedAsHTMLWarning

    html = read_text(path, shown)
    with warnings.catch_warnings():
        # bs4 second-guesses odd-looking input; we only want its text, whatever it looks like.
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(html, "html.parser")
    title = " ".join(soup.title.get_text(" ").split()) if soup.title else ""
    for tag in soup(["head", "script", "style", "noscript", "template"]):
        tag.decompose()
    body = soup.get_text("\n")
    lines = [" ".join(line.split()) for line in body.splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if not text:
        raise IngestError(f"{shown}: no text in this HTML page")
    if title:
        meta["title"] = title
        if not text.startswith(title):
            text = f"{title}\n\n{text}"
    return _one(text, meta)


def _load_pdf(path: Path, shown: str, meta: dict[str, Any]) -> list[SourceDocument]:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    # pypdf logs a warning for every oddity it repairs (and a page of them for a file that is not a
    # PDF at all); what it cannot read raises, and becomes our one line below.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        with open(path, "rb") as handle, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if b"%PDF-" not in handle.read(1024):  # where readers look for the header
                raise IngestError(f"{shown}: not a PDF file (no %PDF header)")
            handle.seek(0)
            reader = PdfReader(handle)
            if reader.is_encrypted and not reader.decrypt(""):
                raise IngestError(f"{shown}: PDF is encrypted with a password")
            pages = [page.extract_text() or "" for page in reader.pages]
    except IngestError:
        raise
    except OSError as exc:
        raise IngestError(f"{shown}: cannot read file: {exc.strerror or exc}") from None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        raise IngestError(f"{shown}: not a readable PDF: {one_line(exc) or type(exc).__name__}") from None
    starts: list[int] = []
    parts: list[str] = []
    offset = 0
    for page in pages:
        starts.append(offset)
        parts.append(page)
        offset += len(page) + 2  # the "\n\n" joining pages
    text = "\n\n".join(parts)
    if not text.strip():
        raise IngestError(f"{shown}: no extractable text in this PDF (scanned images need OCR first)")
    meta["pages"] = len(pages)
    return _one(text, meta, page_starts=tuple(starts))


def _load_jsonl(path: Path, shown: str, meta: dict[str, Any]) -> list[SourceDocument]:
    return load_jsonl(shown, read_text(path, shown), meta)


_LOADERS: dict[str, Callable[[Path, str, dict[str, Any]], list[SourceDocument]]] = {
    ".txt": _load_text,
    ".md": _load_text,
    ".markdown": _load_text,
    ".html": _load_html,
    ".htm": _load_html,
    ".pdf": _load_pdf,
    ".jsonl": _load_jsonl,
}
