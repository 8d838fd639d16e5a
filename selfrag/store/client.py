"""The store: which collections exist, and how to reach Chroma.

``Store.from_settings`` is the only place that decides between the embedded ``PersistentClient``
(the offline default, under ``$SELFRAG_HOME/chroma``) and a Chroma server (``store.chroma_url``).
Everything else receives a ``Store``; tests build one around ``chromadb.EphemeralClient()``.
"""

from __future__ import annotations

import ipaddress
import re
from types import TracebackType
from typing import Any, Self, cast
from urllib.parse import urlsplit

import chromadb
import httpx
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection as ChromaCollection
from chromadb.config import Settings as ChromaSettings
from chromadb.errors import NotFoundError
from langchain_core.embeddings import Embeddings

from selfrag.errors import CollectionExists, CollectionNotFound, ConfigError, StoreError, UsageError
from selfrag.home import check_home, home_unusable
from selfrag.schema import CollectionSchema
from selfrag.settings import Settings, StoreSettings
from selfrag.store._errors import chroma_errors
from selfrag.store._record import CollectionRecord
from selfrag.store.collection import Collection
from selfrag.store.lock import StoreLock, StoreUse, lock_store

__all__ = ["Store", "chroma_settings", "validate_collection_name"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$")


def validate_collection_name(name: str) -> str:
    """Check a collection name against Chroma's rules, with a message a user can act on.

    Raises:
        UsageError: not 3–63 characters of letters, digits, ``.``, ``_``, ``-`` starting and
            ending with a letter or digit, or it contains ``..``, or it is an IPv4 address.
    """
    rule = "use 3-63 letters, digits, '.', '_' or '-', starting and ending with a letter or digit"
    if not _NAME.match(name):
        raise UsageError(f"invalid collection name {name!r}: {rule}")
    if ".." in name:
        raise UsageError(f"invalid collection name {name!r}: it must not contain '..'")
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        return name
    raise UsageError(f"invalid collection name {name!r}: it must not be an IP address")


def chroma_settings() -> ChromaSettings:
    """Chroma client settings we always use: no telemetry, no resets."""
    return ChromaSettings(anonymized_telemetry=False)


class Store:
    """Creates, opens, lists and deletes collections on one Chroma client.

    Usable as a context manager; closing releases Chroma's database handles.
    """

    def __init__(
        self,
        client: ClientAPI,
        embeddings: Embeddings,
        *,
        batch_size: int = 64,
        lock: StoreLock | None = None,
        store: StoreSettings | None = None,
    ) -> None:
        self._client = client
        self._embeddings = embeddings
        self._batch_size = batch_size
        self._lock = lock
        self._settings = store or StoreSettings()

    def warm_up(self) -> None:
        """Embed one text now: the local encoder loads on first use, and a service must not
        report ready (nor let its first questions pay the load) before it has.

        Raises:
            ProviderError: the embedding model cannot be loaded or reached.
        """
        self._embeddings.embed_query("warm-up")

    def _open(self, chroma: ChromaCollection) -> Collection:
        return Collection(
            chroma,
            self._embeddings,
            batch_size=self._batch_size,
            write_batch=self._settings.write_batch_size,
            exact_limit=self._settings.exact_search_limit,
            filtered_breadth=self._settings.filtered_search_breadth,
            filter_cache=self._settings.filter_cache,
        )

    def index_configuration(self, schema: CollectionSchema) -> dict[str, Any]:
        """Chroma's HNSW configuration for a new collection: the settings, then the schema's ``index``."""
        params = self._settings.hnsw.model_dump()
        if schema.index is not None:
            params.update(schema.index.model_dump(exclude_none=True))
        return {"space": "cosine", **params}

    @classmethod
    def from_settings(cls, settings: Settings, embeddings: Embeddings, *, use: StoreUse | None = None) -> Store:
        """Open the store the settings describe.

        The embedded store is locked for ``use`` first (default: a writer; see ``selfrag.store.lock``)
        and released by ``close``; a Chroma server needs no lock. A reader of a selfrag home that
        holds no embedded store yet gets an empty store and creates nothing.

        Raises:
            ConfigError: ``store.chroma_url`` is not an ``http(s)://host[:port]`` URL.
            StoreLocked: another process has the embedded store open in a conflicting mode.
            StoreError: the database cannot be opened or the server cannot be reached, or the
                selfrag home cannot be read or written.
        """
        url = settings.store.chroma_url
        use = use or StoreUse()
        if url:
            host, port, ssl = _parse_url(url)
            with chroma_errors(f"cannot connect to Chroma at {url}"):
                client = chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=chroma_settings())
            for session in _http_sessions(client):
                session.timeout = httpx.Timeout(settings.store.timeout_s)
            lock = None
        else:
            path = settings.chroma_path
            if not use.write and not _embedded_store_exists(settings):
                # A reader (ask, plan, a listing) must not create the selfrag home, or anything in
                # it, as a side effect: where nothing was ever stored it finds no collection, and
                # has nothing to lock (a writer starting meanwhile creates the folder; the reader
                # answered as things were when it looked).
                client = cast(ClientAPI, _NothingStored())
                return cls(client, embeddings, batch_size=settings.embeddings.batch_size, store=settings.store)
            if use.write:
                _embedded_store_exists(settings)  # a file where the folder should be: said as such
            lock = lock_store(path, use)
            try:
                with chroma_errors(f"cannot open the Chroma database at {path}"):
                    path.mkdir(parents=True, exist_ok=True)
                    client = chromadb.PersistentClient(path=str(path), settings=chroma_settings())
            except BaseException:
                lock.release()
                raise
        return cls(client, embeddings, batch_size=settings.embeddings.batch_size, lock=lock, store=settings.store)

    def create_collection(self, name: str, schema: CollectionSchema, *, exist_ok: bool = False) -> Collection:
        """Create a collection (cosine space) that records ``schema``.

        Raises:
            UsageError: the name is invalid.
            CollectionExists: it exists, unless ``exist_ok`` and its stored schema equals ``schema``.
        """
        validate_collection_name(name)
        if self.has_collection(name):
            if not exist_ok:
                raise CollectionExists(f"collection {name!r} already exists")
            existing = self.get_collection(name)
            if existing.schema != schema:
                raise CollectionExists(
                    f"collection {name!r} already exists with a different schema "
                    f"(attributes: {', '.join(existing.schema.names) or 'none'})"
                )
            return existing
        with chroma_errors(f"cannot create collection {name!r}"):
            chroma = self._client.create_collection(
                name,
                configuration=cast(Any, {"hnsw": self.index_configuration(schema)}),
                metadata=cast(Any, CollectionRecord(schema).encode()),
                embedding_function=None,
            )
        return self._open(chroma)

    def get_collection(self, name: str) -> Collection:
        """Open an existing collection.

        Raises:
            CollectionNotFound: there is none of that name.
        """
        validate_collection_name(name)
        with chroma_errors(f"cannot open collection {name!r}", collection=name):
            chroma = self._client.get_collection(name, embedding_function=None)
        return self._open(chroma)

    def has_collection(self, name: str) -> bool:
        """Whether a collection of that name exists (an invalid name never does)."""
        try:
            validate_collection_name(name)
        except UsageError:
            return False
        try:
            with chroma_errors(f"cannot open collection {name!r}", collection=name):
                self._client.get_collection(name, embedding_function=None)
        except CollectionNotFound:
            return False
        return True

    def list_collections(self) -> list[str]:
        """Names of all collections, sorted."""
        with chroma_errors("cannot list collections"):
            return sorted(c.name for c in self._client.list_collections())

    def delete_collection(self, name: str) -> None:
        """Delete a collection and everything in it.

        Raises:
            CollectionNotFound: there is none of that name.
        """
        validate_collection_name(name)
        if not self.has_collection(name):
            raise CollectionNotFound(name)
        with chroma_errors(f"cannot delete collection {name!r}", collection=name):
            self._client.delete_collection(name)

    def close(self) -> None:
        """Release Chroma's resources: the embedded database's handles, or the server connections."""
        sessions = _http_sessions(self._client)
        close = getattr(self._client, "close", None)
        if callable(close):
            close()
        for session in sessions:
            session.close()
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _embedded_store_exists(settings: Settings) -> bool:
    """Whether the selfrag home holds an embedded store (its Chroma folder), looking only."""
    path = settings.chroma_path
    try:
        if not check_home(settings.home):
            return False
        if path.exists() and not path.is_dir():
            # Not "nothing stored": the store's folder was replaced (a restore gone wrong, a stray
            # file). Readers would answer "no collections" as if the data had never been there.
            raise StoreError(f"the Chroma store {path} is not a folder: it holds the collections; "
                             f"restore the folder, or set SELFRAG_HOME to another home")
        return path.exists()
    except OSError as exc:
        raise home_unusable(f"the selfrag home {settings.home}", exc) from exc


class _NothingStored:
    """The Chroma client of a selfrag home where nothing was ever stored, for a reader: the calls
    ``Store`` makes, answered as an empty database answers them."""

    def get_collection(self, name: str, **kwargs: object) -> ChromaCollection:
        raise NotFoundError(f"Collection [{name}] does not exist")

    def list_collections(self) -> list[ChromaCollection]:
        return []

    def create_collection(self, name: str, **kwargs: object) -> ChromaCollection:
        raise StoreError(f"cannot create collection {name!r}: the store was opened for reading")

    def delete_collection(self, name: str) -> None:
        raise NotFoundError(f"Collection [{name}] does not exist")


def _http_sessions(client: ClientAPI) -> list[httpx.Client]:
    """The httpx sessions behind an ``HttpClient`` (its own and its admin client's).

    Chroma 1.5's ``close()`` releases the shared system but never closes these, leaving sockets
    open until garbage collection (a ``ResourceWarning``, an error under ``-W error``).
    Best effort over private attributes: anything unexpected is simply not closed.
    """
    found: list[httpx.Client] = []
    for owner in (client, getattr(client, "_admin_client", None)):
        session = getattr(getattr(owner, "_server", None), "_session", None)
        if isinstance(session, httpx.Client):
            found.append(session)
    return found


def _parse_url(url: str) -> tuple[str, int, bool]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"invalid store.chroma_url {url!r}: expected http://host:port or https://host")
    if parts.path not in ("", "/") or parts.query:
        raise ConfigError(f"invalid store.chroma_url {url!r}: a Chroma server URL has no path")
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(f"invalid store.chroma_url {url!r}: bad port") from None
    ssl = parts.scheme == "https"
    return parts.hostname, port or (443 if ssl else 8000), ssl
