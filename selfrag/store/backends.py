"""Which store a process asks its questions of: the ``[store] backend`` setting, one line.

    [store]
    backend = "chroma"                       # registered here (the default)
    backend = "mypackage.stores:open_store"  # any ``module:factory``

A backend is a factory ``(settings, embeddings) -> CollectionSource``: the seam the workflow reads
collections through (``SearchableCollection``: search, get, newest, catalogue, and
``lexical_source`` when it has a lexical side). Adding a store is its own package with such a
factory, plus the settings line that names it; nothing in the workflow changes. Why a
``module:factory`` path rather than only a registry: a store written outside this repository
is selected without editing it (as the graders' and rerankers' registries take dotted names).

Ingest and the collection commands write through ``Store`` (Chroma) and do not consult this
setting: a backend serves questions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from langchain_core.embeddings import Embeddings

from selfrag.errors import ConfigError
from selfrag.settings import Settings
from selfrag.store.client import Store
from selfrag.store.types import CollectionSource

__all__ = ["STORES", "StoreFactory", "open_backend"]

StoreFactory = Callable[[Settings, Embeddings], CollectionSource]
"""Opens a store from the settings and the collections' embeddings."""


def _chroma(settings: Settings, embeddings: Embeddings) -> CollectionSource:
    return Store.from_settings(settings, embeddings)


STORES: dict[str, StoreFactory] = {"chroma": _chroma}
"""The stores known by name."""


def open_backend(settings: Settings, embeddings: Embeddings) -> CollectionSource:
    """The store ``settings.store.backend`` names, opened.

    Raises:
        ConfigError: the name is neither registered nor an importable ``module:factory``.
    """
    name = settings.store.backend
    factory = STORES.get(name)
    if factory is None:
        module, _, attr = name.partition(":")
        try:
            found = getattr(importlib.import_module(module), attr) if module and attr else None
        except ImportError as exc:
            raise ConfigError(f"store.backend {name!r}: cannot import {module!r} ({exc})") from None
        except AttributeError:
            found = None
        if not callable(found):
            raise ConfigError(f"store.backend {name!r}: neither a registered store ({', '.join(STORES)}) "
                              "nor a 'module:factory'")
        factory = found
    return factory(settings, embeddings)
