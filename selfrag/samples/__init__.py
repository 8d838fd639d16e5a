"""Sample collections shipped with selfrag, for the demo, the tests and trying things out.

- ``movies``: LangChain's self-query example films plus a dozen more, as jsonl with metadata.
- ``filings``: short annual-report style documents (illustrative figures) whose ``company``,
  ``fiscal_year`` and ``doc_type`` come from the schema's regex extractors.
- ``companies``: invented news articles linked to a knowledge graph of organizations, people,
  cities and countries (``graph/``, loaded into the graph store first), for relationship filters.

Each sample is a folder holding ``schema.json``, an optional ``README.md`` and its documents.
"""

from __future__ import annotations

from pathlib import Path

from selfrag.errors import UsageError
from selfrag.ingest import IngestReport, MentionExtractor, ingest_paths
from selfrag.ingest.files import SUPPORTED_EXTENSIONS as _SUPPORTED
from selfrag.ingest.progress import StageProgress
from selfrag.kg.data import read_edges, read_nodes
from selfrag.kg.records import LoadReport
from selfrag.kg.schema import load_graph_link
from selfrag.kg.store import GraphStore
from selfrag.schema import CollectionSchema, load_schema_file
from selfrag.store import Store

__all__ = ["SAMPLES", "ingest_sample", "load_sample", "load_sample_graph", "sample_dir"]

SAMPLES: tuple[str, ...] = ("movies", "filings", "companies")

_ROOT = Path(__file__).resolve().parent
_NOT_DOCUMENTS = {"schema.json", "readme.md", "graph.json"}
_GRAPH_DIR = "graph"
"""A sample's knowledge graph (``nodes.jsonl``, ``edges.jsonl``): loaded into the graph store, not ingested."""


def sample_dir(name: str) -> Path:
    """The folder of one sample.

    Raises:
        UsageError: there is no sample of that name.
    """
    if name not in SAMPLES:
        raise UsageError(f"unknown sample {name!r} (available: {', '.join(SAMPLES)})")
    return _ROOT / name


def load_sample(name: str) -> tuple[CollectionSchema, list[Path]]:
    """The schema of a sample and the paths of its documents (sorted; README and schema excluded)."""
    folder = sample_dir(name)
    schema = load_schema_file(folder / "schema.json")
    paths = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and p.suffix.lower() in _SUPPORTED and p.name.lower() not in _NOT_DOCUMENTS
        and _GRAPH_DIR not in p.relative_to(folder).parts[:-1]
    )
    return schema, paths


def ingest_sample(
    store: Store,
    name: str,
    *,
    collection: str | None = None,
    chunk_size: int = 1000,
    chunk_overlap: int = 150,
    progress: StageProgress | None = None,
    graph: GraphStore | None = None,
) -> IngestReport:
    """Create the sample's collection (named after the sample unless ``collection`` is given) and ingest it.

    A sample linked to a knowledge graph (``companies``) first loads its graph into ``graph``
    (idempotent), then fills each article's mention attributes its metadata lacks from the text.

    Idempotent: running it twice leaves one copy of every document (its files are named one by one,
    so each document's id is its file name, or its jsonl ``id``).

    Raises:
        CollectionExists: a collection of that name exists with a different schema.
        UsageError: the sample needs a graph store and none was given.
        GraphUnavailable: the graph server is down.
    """
    schema, paths = load_sample(name)
    mentions: MentionExtractor | None = None
    if schema.graph is not None:
        if graph is None:
            raise UsageError(f"the {name!r} sample links to a knowledge graph: give it a graph store")
        load_sample_graph(graph, name)
        mentions = MentionExtractor.from_store(graph, schema.graph)
    target = store.create_collection(collection or name, schema, exist_ok=True)
    return ingest_paths(
        target, paths, chunk_size=chunk_size, chunk_overlap=chunk_overlap, progress=progress, mentions=mentions
    )


def load_sample_graph(graph: GraphStore, name: str) -> LoadReport | None:
    """Load the knowledge graph a sample ships (under the name its link declares); None if it has none."""
    folder = sample_dir(name)
    link_file = folder / "graph.json"
    if not link_file.exists():
        return None
    link = load_graph_link(link_file)
    nodes = read_nodes(folder / _GRAPH_DIR / "nodes.jsonl")
    edges_file = folder / _GRAPH_DIR / "edges.jsonl"
    return graph.load(link.graph, nodes, read_edges(edges_file) if edges_file.exists() else [])
