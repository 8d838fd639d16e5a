"""Each loader turns its format into SourceDocuments; every bad input is a one-line IngestError."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from selfrag.errors import IngestError
from selfrag.ingest import collect_files, load_file


def test_text_and_markdown(tmp_path: Path) -> None:
    txt = tmp_path / "notes.txt"
    txt.write_text("\ufeffplain notes\n", encoding="utf-8")
    md = tmp_path / "README.MD"
    md.write_text("# Title\n\nBody text.", encoding="utf-8")
    [doc] = load_file(txt)
    assert doc.text == "plain notes\n"  # the BOM is gone
    assert doc.metadata == {"source": "notes.txt", "filename": "notes.txt", "ext": "txt"}  # never an absolute path
    assert doc.doc_id == "notes.txt"
    [named] = load_file(txt, name="in/notes.txt", source="in/notes.txt")
    assert (named.doc_id, named.metadata["source"]) == ("in/notes.txt", "in/notes.txt")
    [doc] = load_file(md)
    assert doc.metadata["ext"] == "md" and doc.text.startswith("# Title")


def test_latin1_text_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes("café crème".encode("latin-1"))
    assert load_file(path)[0].text == "café crème"


def test_html_keeps_title_and_visible_text(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>Quarterly   update</title><style>p {color: red}</style></head>"
        "<body><script>var x = 1;</script><h1>Results</h1><p>Revenue   grew.</p></body></html>",
        encoding="utf-8",
    )
    [doc] = load_file(path)
    assert doc.metadata["title"] == "Quarterly update"
    assert doc.text == "Quarterly update\n\nResults\nRevenue grew."


def test_pdf_pages_are_joined_with_their_offsets(make_pdf: Callable[..., Path]) -> None:
    path = make_pdf(["First page about Walmart", "Second page (fiscal year 2024)"])
    [doc] = load_file(path)
    assert "First page about Walmart" in doc.text and "Second page (fiscal year 2024)" in doc.text
    assert doc.metadata["pages"] == 2 and doc.metadata["ext"] == "pdf"
    assert len(doc.page_starts) == 2 and doc.page_starts[0] == 0
    assert doc.text[doc.page_starts[1]:].startswith("Second page")


def test_jsonl_records(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    lines = [
        {"text": "first", "metadata": {"year": 1993}, "id": "one"},
        {"page_content": "second", "metadata": {"origin": "elsewhere", "filename": "x.txt"}, "type": "Document"},
        {"text": "third", "id": 3},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines[:2]) + "\n\n" + json.dumps(lines[2]) + "\n")
    docs = load_file(path)
    assert [d.text for d in docs] == ["first", "second", "third"]
    assert docs[0].doc_id == "one" and docs[2].doc_id == "3"
    assert re.fullmatch(r"docs\.jsonl#[0-9a-f]{16}", docs[1].doc_id or "")  # no id: the file and the line's content
    assert [d.line for d in docs] == [1, 2, 4]
    assert docs[0].metadata == {"source": "docs.jsonl", "filename": "docs.jsonl", "ext": "jsonl", "year": 1993}
    assert docs[1].metadata["filename"] == "x.txt"  # the record's metadata wins over the file's


def test_jsonl_identities(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    same = json.dumps({"text": "twice"})
    path.write_text(f"{same}\n{json.dumps({'text': 'other'})}\n{same}\n")
    assert [d.line for d in load_file(path)] == [1, 2]  # the same id-less line twice is one document
    path.write_text(json.dumps({"id": "x", "text": "a"}) + "\n" + json.dumps({"id": "x", "text": "b"}) + "\n")
    with pytest.raises(IngestError, match=r"docs\.jsonl:2: id 'x' is also the id of line 1"):
        load_file(path)
    path.write_text(json.dumps({"text": "a", "metadata": {"chunk_index": 3}}) + "\n")
    with pytest.raises(IngestError, match=r"docs\.jsonl:1: metadata key\(s\) 'chunk_index' are reserved"):
        load_file(path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"text": "ok"', r"bad\.jsonl:2: not valid JSON"),
        ('["text"]', r"bad\.jsonl:2: expected a JSON object, got list"),
        ('{"metadata": {}}', r"bad\.jsonl:2: needs a 'text' \(or 'page_content'\) string"),
        ('{"text": "  "}', r"bad\.jsonl:2: 'text' is empty"),
        ('{"text": "x", "metadata": [1]}', r"bad\.jsonl:2: metadata: "),
    ],
)
def test_bad_jsonl_line_names_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "fine"}\n' + line + "\n")
    with pytest.raises(IngestError, match=message) as info:
        load_file(path)
    assert "\n" not in info.value.message


@pytest.mark.parametrize("name", ["empty.txt", "empty.md", "empty.jsonl", "empty.html"])
def test_empty_files_are_errors(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("  \n\n")
    with pytest.raises(IngestError, match=name):
        load_file(path)


def test_corrupt_and_textless_pdfs(tmp_path: Path, make_pdf: Callable[..., Path]) -> None:
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"this is not a pdf")
    with pytest.raises(IngestError, match=r"bad\.pdf: not a PDF file \(no %PDF header\)"):
        load_file(bad)
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")
    with pytest.raises(IngestError, match=r"truncated\.pdf: not a readable PDF"):
        load_file(truncated)
    blank = make_pdf(["  "], name="blank.pdf")
    with pytest.raises(IngestError, match="no extractable text"):
        load_file(blank)


def test_collect_files_walks_directories(tmp_path: Path) -> None:
    (tmp_path / "sub" / ".hidden").mkdir(parents=True)
    (tmp_path / "b.md").write_text("b")
    (tmp_path / "sub" / "a.TXT").write_text("a")
    (tmp_path / "sub" / "data.csv").write_text("x,y")
    (tmp_path / "sub" / ".hidden" / "secret.txt").write_text("s")
    (tmp_path / ".dotfile.txt").write_text("d")
    found = collect_files([tmp_path, tmp_path / "b.md"])
    top = tmp_path.name
    assert [(f.path, f.source, f.listed) for f in found.files] == [
        (tmp_path / "b.md", f"{top}/b.md", False), (tmp_path / "sub" / "a.TXT", f"{top}/sub/a.TXT", False),
    ]
    assert found.ignored == [str(tmp_path / "sub" / "data.csv")]
    assert [(f.path, f.source) for f in found.folders] == [(tmp_path, top)]
    [listed] = collect_files([tmp_path / "sub" / "a.TXT"]).files
    assert (listed.source, listed.listed) == ("a.TXT", True)
    [rooted] = collect_files([tmp_path / "sub" / "a.TXT"], root=tmp_path).files
    assert rooted.source == "sub/a.TXT"


def test_collect_files_errors(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("x")
    (tmp_path / "only-csv").mkdir()
    (tmp_path / "only-csv" / "a.csv").write_text("x")
    with pytest.raises(IngestError, match="no such file or directory"):
        collect_files([tmp_path / "missing.txt"])
    with pytest.raises(IngestError, match=r"unsupported file type '\.csv' \(supported: \.txt"):
        collect_files([tmp_path / "data.csv"])
    with pytest.raises(IngestError, match="no supported files in this directory"):
        collect_files([tmp_path / "only-csv"])
    with pytest.raises(IngestError, match="no files or directories given"):
        collect_files([])
