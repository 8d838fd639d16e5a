"""Splitting: chunks named after their document, Markdown-aware separators, PDF page labels."""

from __future__ import annotations

from selfrag.ingest import SourceDocument, Splitter


def test_chunks_are_named_after_their_document() -> None:
    text = "\n\n".join(f"Paragraph {i} " + "word " * 30 for i in range(3))
    chunks = Splitter(200, 0).split(SourceDocument(text, {"source": "a/b.txt"}, doc_id="a/b.txt"), {"source": "a/b.txt"})
    assert [c.id for c in chunks] == ["a/b.txt", "a/b.txt:1", "a/b.txt:2"]
    assert {c.metadata["doc_id"] for c in chunks} == {"a/b.txt"}
    # Without an id the document is its source; metadata never overrides the document's id.
    forged = Splitter(200, 0).split(SourceDocument("x", {}), {"source": "s.txt", "doc_id": "victim"})
    assert [(c.id, c.metadata["doc_id"]) for c in forged] == [("s.txt", "s.txt")]


def test_split_carries_metadata_and_indexes_chunks() -> None:
    text = "\n\n".join(f"Paragraph {i} " + "word " * 30 for i in range(6))
    doc = SourceDocument(text, {"source": "a.txt", "ext": "txt"})
    chunks = Splitter(200, 20).split(doc, {"source": "a.txt", "ext": "txt", "company": "Acme"})
    assert len(chunks) >= 6
    assert [c.metadata["chunk_index"] for c in chunks] == list(range(len(chunks)))
    assert all(c.metadata["company"] == "Acme" and len(c.text) <= 200 for c in chunks)
    again = Splitter(200, 20).split(doc, {"source": "a.txt", "ext": "txt"})
    assert [c.id for c in again] == [c.id for c in chunks]


def test_markdown_splits_at_headings() -> None:
    text = "# Report\n\n## Revenue\n" + "Revenue grew. " * 8 + "\n## People\n" + "We hired. " * 8
    doc = SourceDocument(text, {"source": "r.md", "ext": "md"})
    chunks = Splitter(150, 0).split(doc, doc.metadata)
    assert any(c.text.startswith("## People") for c in chunks)


def test_pdf_chunks_get_page_numbers() -> None:
    pages = ["alpha " * 40, "beta " * 40]
    text = "\n\n".join(pages)
    doc = SourceDocument(text, {"source": "d.pdf", "ext": "pdf"}, page_starts=(0, len(pages[0]) + 2))
    chunks = Splitter(100, 0).split(doc, doc.metadata)
    assert {c.metadata["page"] for c in chunks if "alpha" in c.text} == {1}
    assert {c.metadata["page"] for c in chunks if "beta" in c.text} == {2}


def test_given_document_ids_name_the_chunks() -> None:
    doc = SourceDocument("one two three " * 20, {"source": "d.jsonl"}, doc_id="doc-7")
    chunks = Splitter(100, 0).split(doc, doc.metadata)
    assert [c.id for c in chunks][:3] == ["doc-7", "doc-7:1", "doc-7:2"]
