"""Reading files into documents for a collection: loaders, metadata extraction, splitting, identity.

    report = ingest_paths(collection, ["docs/", "notes.md"], chunk_size=1000, chunk_overlap=150)

Supported: ``.txt``, ``.md``, ``.pdf`` (pypdf), ``.html``/``.htm`` (BeautifulSoup) and ``.jsonl``
(one ``{"text", "metadata", "id"}`` record per line). A document is identified by its id (or its
path relative to the ingest root); ingesting it again replaces it. Nothing is written unless every
file named explicitly loads; unreadable files found in folders are skipped and reported.
"""

from selfrag.ingest.extract import MetadataExtractor
from selfrag.ingest.files import SUPPORTED_EXTENSIONS, InputFile, InputFolder, Inputs, collect_files
from selfrag.ingest.jsonl import JsonlRecord, load_jsonl
from selfrag.ingest.loaders import file_metadata, load_file
from selfrag.ingest.mentions import MentionExtractor
from selfrag.ingest.pipeline import ingest_paths, store_batch
from selfrag.ingest.prepare import ReadBatch, prepare_documents, read_inputs
from selfrag.ingest.progress import rich_progress, stage_progress
from selfrag.ingest.split import Splitter
from selfrag.ingest.text import decode_text, display_path, read_text
from selfrag.ingest.types import IngestReport, SkippedFile, SourceDocument, reserved_keys_message

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "IngestReport",
    "InputFile",
    "InputFolder",
    "Inputs",
    "JsonlRecord",
    "MentionExtractor",
    "MetadataExtractor",
    "ReadBatch",
    "SkippedFile",
    "SourceDocument",
    "Splitter",
    "collect_files",
    "decode_text",
    "display_path",
    "file_metadata",
    "ingest_paths",
    "load_file",
    "load_jsonl",
    "prepare_documents",
    "read_inputs",
    "read_text",
    "reserved_keys_message",
    "rich_progress",
    "stage_progress",
    "store_batch",
]
