"""Reading files into chunks for a collection: loaders, metadata extraction, splitting.

    report = ingest_paths(collection, ["docs/", "notes.md"], chunk_size=1000, chunk_overlap=150)

Supported: ``.txt``, ``.md``, ``.pdf`` (pypdf), ``.html``/``.htm`` (BeautifulSoup) and ``.jsonl``
(one ``{"text", "metadata", "id"}`` record per line). Nothing is written unless every file loads.
"""

from selfrag.ingest.extract import MetadataExtractor
from selfrag.ingest.files import SUPPORTED_EXTENSIONS, collect_files
from selfrag.ingest.jsonl import JsonlRecord, load_jsonl
from selfrag.ingest.loaders import file_metadata, load_file, read_text
from selfrag.ingest.pipeline import ingest_paths, prepare_chunks, prepare_documents
from selfrag.ingest.progress import rich_progress
from selfrag.ingest.split import Splitter, chunk_id
from selfrag.ingest.types import IngestReport, SourceDocument

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "IngestReport",
    "JsonlRecord",
    "MetadataExtractor",
    "SourceDocument",
    "Splitter",
    "chunk_id",
    "collect_files",
    "file_metadata",
    "ingest_paths",
    "load_file",
    "load_jsonl",
    "prepare_chunks",
    "prepare_documents",
    "read_text",
    "rich_progress",
]
