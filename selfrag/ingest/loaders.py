"""Reading one file into ``SourceDocument``s: plain text, Markdown, HTML, PDF and jsonl.

Every failure — unreadable, undecodable, corrupt, empty — becomes an ``IngestError`` whose
one-line message starts with the path, because ingest reads all files before writing anything
and the user needs to know which one to fix.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from selfrag.errors import IngestError
from selfrag.ingest.jsonl import load_jsonl
from selfrag.ingest.types import SourceDocument

__all__ = ["file_metadata", "load_file", "read_text"]


def file_metadata(path: Path) -> dict[str, Any]:
    """Metadata every document from ``path`` carries."""
    return {"source": str(path), "filename": path.name, "ext": path.suffix.lower().lstrip(".")}


def load_file(path: str | Path) -> list[SourceDocument]:
    """Read one supported file.

    Returns:
        One document per file, except jsonl: one per non-blank line.

    Raises:
        IngestError: the file is unsupported, unreadable, malformed or has no text.
    """
    p = Path(path)
    loader = _LOADERS.get(p.suffix.lower())
    if loader is None:
        raise IngestError(f"{p}: unsupported file type '{p.suffix}'")
    return loader(p)


def read_text(path: Path) -> str:
    """The file's text: UTF-8 (BOM tolerated), else Latin-1 so legacy files still load."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: cannot read file: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _load_text(path: Path) -> list[SourceDocument]:
    text = read_text(path)
    if not text.strip():
        raise IngestError(f"{path}: file is empty")
    return [SourceDocument(text, file_metadata(path))]


def _load_html(path: Path) -> list[SourceDocument]:
    from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, XMLParsedAsHTMLWarning

    html = read_text(path)
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
        raise IngestError(f"{path}: no text in this HTML page")
    metadata = file_metadata(path)
    if title:
        metadata["title"] = title
        if not text.startswith(title):
            text = f"{title}\n\n{text}"
    return [SourceDocument(text, metadata)]


def _load_pdf(path: Path) -> list[SourceDocument]:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError(f"{path}: PDF is encrypted with a password")
        pages = [page.extract_text() or "" for page in reader.pages]
    except IngestError:
        raise
    except OSError as exc:
        raise IngestError(f"{path}: cannot read file: {exc.strerror or exc}") from None
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise IngestError(f"{path}: not a readable PDF: {' '.join(str(exc).split()) or type(exc).__name__}") from None
    starts: list[int] = []
    parts: list[str] = []
    offset = 0
    for page in pages:
        starts.append(offset)
        parts.append(page)
        offset += len(page) + 2  # the "\n\n" joining pages
    text = "\n\n".join(parts)
    if not text.strip():
        raise IngestError(f"{path}: no extractable text in this PDF (scanned images need OCR first)")
    metadata = file_metadata(path)
    metadata["pages"] = len(pages)
    return [SourceDocument(text, metadata, page_starts=tuple(starts))]


def _load_jsonl(path: Path) -> list[SourceDocument]:
    return load_jsonl(path, read_text(path), file_metadata(path))


_LOADERS: dict[str, Callable[[Path], list[SourceDocument]]] = {
    ".txt": _load_text,
    ".md": _load_text,
    ".markdown": _load_text,
    ".html": _load_html,
    ".htm": _load_html,
    ".pdf": _load_pdf,
    ".jsonl": _load_jsonl,
}
