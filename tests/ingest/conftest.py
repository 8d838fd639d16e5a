"""Fixtures for the ingest tests: a private store per test, and small input files written per test.

The store sits on a ``PersistentClient`` under ``tmp_path`` rather than ``EphemeralClient()``,
whose single shared in-process system clashes with other modules' settings (see tests/store).

``make_pdf`` writes a real (minimal) PDF by hand — one Helvetica text line per page with a
correct xref table — because pypdf can read PDFs but not easily write text into them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from chromadb.api import ClientAPI

from selfrag.schema import AttributeInfo, CollectionSchema, RegexExtractor
from selfrag.store import Collection, Store
from selfrag.testing import HashEmbeddings


@pytest.fixture
def store(chroma_client: ClientAPI) -> Store:
    return Store(chroma_client, HashEmbeddings(), batch_size=8)


@pytest.fixture
def report_schema() -> CollectionSchema:
    return CollectionSchema(
        attributes=[
            AttributeInfo(name="company", type="string"),
            AttributeInfo(name="fiscal_year", type="integer"),
            AttributeInfo(name="year", type="integer"),
            AttributeInfo(name="title", type="string"),
        ],
        extractors=[
            RegexExtractor(
                attribute="company",
                pattern=r"\b(Wal-?Mart|Acme)\b",
                map={"walmart": "Walmart", "wal-mart": "Walmart"},
            ),
            RegexExtractor(attribute="fiscal_year", pattern=r"fiscal(?: year)? (\d{4})"),
        ],
    )


@pytest.fixture
def collection(store: Store, report_schema: CollectionSchema) -> Collection:
    return store.create_collection("reports", report_schema)


def _pdf_bytes(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of text per page."""
    n = len(pages)
    font_id = 3 + 2 * n
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{3 + 2 * i} 0 R".encode() for i in range(n))
        + f"] /Count {n} >>".encode(),
    ]
    for i, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


@pytest.fixture
def make_pdf(tmp_path: Path) -> Callable[..., Path]:
    def make(pages: list[str], name: str = "doc.pdf") -> Path:
        path = tmp_path / name
        path.write_bytes(_pdf_bytes(pages))
        return path

    return make
