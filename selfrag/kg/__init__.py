"""Knowledge-graph filtering: a FalkorDB graph of entities, relations declared as data, and the
pieces that turn "companies that supply Hyundai" into the set of names a metadata filter holds.

    link = load_graph_link(path)                      # which graph, mention attributes, relations
    with open_graph_store(data_dir, url) as store:    # embedded server, or redis://host:port
        store.load("companies", read_nodes(n), read_edges(e))
        index = EntityIndex(store.entities("companies"))
        found = recognise_relations(question, link, index)
        for r in found.relations:                     # ambiguous → ask with r.match.candidates
            resolution = resolve_relation(store, link, r.relation, r.match.entity)

Every value reaches the server as a query parameter; labels and types are checked identifiers
(``selfrag.kg.cypher``).
"""

from __future__ import annotations

from selfrag.kg.clarification import resolve_reply
from selfrag.kg.context import GraphContext, GraphContexts
from selfrag.kg.cypher import CompiledQuery, compile_relation
from selfrag.kg.data import EdgeRecord, NodeRecord, read_edges, read_nodes
from selfrag.kg.entities import Candidate, EntityIndex, EntityMatch
from selfrag.kg.falkor import FalkorGraphStore, open_graph_store
from selfrag.kg.mentions import MentionHit, MentionMatcher
from selfrag.kg.ranges import NamedRange, RangeCondition, find_named_ranges
from selfrag.kg.recognition import Embedder, RecognisedRelation, Recognition, RelationRecogniser, recognise_relations
from selfrag.kg.records import Entity, EntityRef, GraphSummary, LoadReport, RelationCondition, Resolution
from selfrag.kg.resolve import mention_where, resolve_relation
from selfrag.kg.schema import GraphLink, Hop, MentionAttribute, Relation, load_graph_link
from selfrag.kg.server import EmbeddedGraphServer, ServerAddress
from selfrag.kg.store import GraphStore
from selfrag.lang import DateRange, find_date_range, normalise, wants_latest

__all__ = [
    "Candidate",
    "CompiledQuery",
    "DateRange",
    "EdgeRecord",
    "EmbeddedGraphServer",
    "Embedder",
    "Entity",
    "EntityIndex",
    "EntityMatch",
    "EntityRef",
    "FalkorGraphStore",
    "GraphContext",
    "GraphContexts",
    "GraphLink",
    "GraphStore",
    "GraphSummary",
    "Hop",
    "LoadReport",
    "MentionAttribute",
    "MentionHit",
    "MentionMatcher",
    "NamedRange",
    "NodeRecord",
    "RangeCondition",
    "RecognisedRelation",
    "Recognition",
    "Relation",
    "RelationCondition",
    "RelationRecogniser",
    "Resolution",
    "ServerAddress",
    "compile_relation",
    "find_date_range",
    "find_named_ranges",
    "load_graph_link",
    "mention_where",
    "normalise",
    "open_graph_store",
    "read_edges",
    "read_nodes",
    "recognise_relations",
    "resolve_relation",
    "resolve_reply",
    "wants_latest",
]
