"""What a question is answered from: a resource (a collection with its search settings, or a
LangChain retriever), how a call names them, and the list a run works over.

Every question works over a list of resources; one collection is a list of one, so a setting of
that collection (``[collections.<name>.search] k = 3``) changes how it is searched, never which
nodes the question runs through. A resource is a collection of the store or, from the Python API,
any LangChain ``BaseRetriever`` (searched with the question as is: it has no schema to self-query).
Planning each resource is ``workflows.plan_nodes``; searching and merging them is
``workflows.resource_retrieval``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import ContextThreadPoolExecutor

from selfrag.errors import UsageError

__all__ = ["MAX_RESOURCES", "Resource", "ResourceLike", "ResourceSearch", "concurrently", "parse_search",
           "resolve_resources"]

MAX_RESOURCES = 8
"""Resources one question may target (each costs a self-query and a search)."""

T = TypeVar("T")


@dataclass(frozen=True)
class ResourceSearch:
    """One resource's search settings; None inherits (the collection's config, then the run's)."""

    k: int | None = None
    """Documents retrieved from it (a self-queried limit overrides it)."""
    min_score: float | None = None
    """Minimum cosine similarity of its dense hits."""
    where: dict[str, Any] | None = None
    """A mandatory Chroma where clause for it, ANDed with its self-queried filter, never relaxed."""
    self_query: bool | None = None
    """False: search with the question as is, no filter from the model."""

    def over(self, base: ResourceSearch) -> ResourceSearch:
        """These settings where set, ``base``'s elsewhere."""
        return ResourceSearch(
            k=self.k if self.k is not None else base.k,
            min_score=self.min_score if self.min_score is not None else base.min_score,
            where=self.where if self.where is not None else base.where,
            self_query=self.self_query if self.self_query is not None else base.self_query,
        )


@dataclass(frozen=True)
class Resource:
    """Something a question is answered from: a collection by name, or a LangChain retriever."""

    name: str
    search: ResourceSearch = field(default_factory=ResourceSearch)
    retriever: BaseRetriever | None = None
    """From the Python API only: searched with the question, never self-queried."""


ResourceLike = str | Resource | BaseRetriever
"""What a call may name as a resource: a collection (or an engine's named retriever) by name, a
``Resource`` with its own search settings, or a LangChain retriever as is (named by ``get_name()``)."""

_BOOL = {"on": True, "true": True, "yes": True, "1": True, "off": False, "false": False, "no": False, "0": False}


def parse_search(text: str) -> tuple[str, ResourceSearch]:
    """``a:k=10,min_score=0.3,self_query=off`` → ``("a", ResourceSearch(k=10, min_score=0.3, self_query=False))``.

    Raises:
        UsageError: not ``name:key=value,...``, an unknown key or a bad value (one line, for the CLI).
    """
    name, sep, rest = text.partition(":")
    name = name.strip()
    if not sep or not name or not rest.strip():
        raise UsageError(f"--search {text!r}: expected COLLECTION:key=value[,key=value] (keys: k, min_score, self_query)")
    values: dict[str, Any] = {}
    for part in rest.split(","):
        key, eq, value = (x.strip() for x in part.partition("="))
        if not eq or not value:
            raise UsageError(f"--search {text!r}: {part.strip()!r} is not key=value")
        try:
            if key == "k":
                values["k"] = int(value)
                if not 1 <= values["k"] <= 50:
                    raise ValueError
            elif key == "min_score":
                values["min_score"] = float(value)
                if not -1.0 <= values["min_score"] <= 1.0:
                    raise ValueError
            elif key == "self_query":
                values["self_query"] = _BOOL[value.lower()]
            else:
                raise UsageError(f"--search {text!r}: unknown key {key!r} (keys: k, min_score, self_query)")
        except (ValueError, KeyError):
            raise UsageError(f"--search {text!r}: bad value for {key} ({value!r}; k: 1-50, min_score: -1..1, "
                             "self_query: on/off)") from None
    return name, ResourceSearch(**values)


def concurrently(fn: Callable[[Resource], T], resources: Sequence[Resource]) -> list[T]:
    """``fn`` of each resource, in their order, at most four at once."""
    # ContextThreadPoolExecutor carries the run's callbacks (LLM usage, tracing) into the workers.
    if len(resources) == 1:
        return [fn(resources[0])]
    with ContextThreadPoolExecutor(max_workers=min(len(resources), 4)) as pool:
        return list(pool.map(fn, resources))


def resolve_resources(
    collection: str | None, resources: Sequence[str | Resource] | None, defaults: Mapping[str, ResourceSearch],
) -> tuple[str, tuple[Resource, ...]]:
    """The question's first resource and every resource, with its settings resolved (the call's
    over the collection's configured defaults). One collection is a list of one.

    Raises:
        UsageError: no resource, too many, or one named twice with different settings.
    """
    items: list[Resource] = [Resource(collection)] if collection else []
    for r in resources or ():
        items.append(Resource(r) if isinstance(r, str) else r)
    if not items:
        raise UsageError("name at least one collection to answer from")
    merged: dict[str, Resource] = {}
    for r in items:
        if not r.name:
            raise UsageError("a resource needs a name")
        if r.name in merged:
            if r != merged[r.name] and r.search != ResourceSearch() and merged[r.name].search != ResourceSearch():
                raise UsageError(f"resource {r.name!r} is given twice with different settings")
            if r.search != ResourceSearch() or r.retriever is not None:
                merged[r.name] = r
            continue
        merged[r.name] = r
    if len(merged) > MAX_RESOURCES:
        raise UsageError(f"{len(merged)} resources; a question may target at most {MAX_RESOURCES}")
    out = tuple(
        r if r.retriever is not None else replace(r, search=r.search.over(defaults.get(r.name, ResourceSearch())))
        for r in merged.values()
    )
    return out[0].name, out
