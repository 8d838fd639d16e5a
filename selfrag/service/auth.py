"""API keys: a file of hashed keys, each scoped to the collections it may read or write.

Keys are random 256-bit tokens, so a plain SHA-256 is the right hash: slow password hashes
(argon2, bcrypt) exist to protect guessable secrets and would only add latency to every request.
The file holds hashes only; the secret is shown once, when ``selfrag keys add`` creates it.

Tenancy: every key belongs to a tenant. Threads are stored under the tenant's namespace, so
one tenant can never read or continue another's conversation, even by guessing its id; and
collection scopes are checked *before* a collection is looked up, so a forbidden name gets the
same 403 whether or not it exists (no existence oracle). The file is re-read when it changes,
so revoking a key needs no restart.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import logging
import os
import re
import secrets
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from selfrag.errors import ConfigError, Forbidden, Unauthenticated

__all__ = ["LOCAL_PRINCIPAL", "ApiKey", "Authenticator", "KeyFile", "Principal", "hash_key", "new_secret"]

log = logging.getLogger("selfrag.service")

_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_PATTERN = re.compile(r"^[A-Za-z0-9._*?\[\]-]{1,63}$")
SECRET_PREFIX = "srk_"


def new_secret() -> str:
    """A fresh API key: a recognisable prefix and 256 random bits."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def hash_key(secret: str) -> str:
    return "sha256:" + hashlib.sha256(secret.encode()).hexdigest()


class ApiKey(BaseModel):
    """One key as stored: never the secret, only its hash."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64)
    """A name for people (shown in logs and ``selfrag keys list``)."""
    tenant: str
    hash: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    read: list[str] = Field(default_factory=list)
    """Collection name patterns (shell-style: ``acme-*``) the key may ask and read."""
    write: list[str] = Field(default_factory=list)
    """Patterns the key may create, ingest into and delete from (writing implies reading)."""
    created: datetime | None = None

    @field_validator("tenant")
    @classmethod
    def _tenant(cls, v: str) -> str:
        if not _TENANT.match(v):
            raise ValueError("tenant must be 1-64 letters, digits, '_' or '-'")
        return v

    @field_validator("read", "write")
    @classmethod
    def _patterns(cls, v: list[str]) -> list[str]:
        for p in v:
            if not _PATTERN.match(p):
                raise ValueError(f"invalid collection pattern {p!r}")
        return v


class KeyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keys: list[ApiKey] = Field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> KeyFile:
        """Read a key file; a missing file is an empty one.

        Raises:
            ConfigError: the file is unreadable, not JSON, or not a valid key file.
        """
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            raise ConfigError(f"cannot read key file {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"invalid key file {path}: not UTF-8 text (selfrag keys writes it)") from None
        try:
            keys = cls.model_validate_json(text)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(x) for x in first["loc"])
            where = f"{loc}: " if loc else ""  # a file that is not JSON at all has no location
            raise ConfigError(f"invalid key file {path}: {where}{first['msg']}") from None
        ids = [k.id for k in keys.keys]
        if len(ids) != len(set(ids)):
            raise ConfigError(f"invalid key file {path}: duplicate key ids")
        return keys

    def save(self, path: Path) -> None:
        """Write atomically (a crash never leaves half a file), readable by the owner only."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".keys-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(self.model_dump(mode="json"), indent=2) + "\n")
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def add(self, *, key_id: str, tenant: str, read: list[str], write: list[str]) -> tuple[KeyFile, str]:
        """A new key file with one more key, and that key's secret (shown once, never stored)."""
        if any(k.id == key_id for k in self.keys):
            raise ConfigError(f"a key named {key_id!r} already exists")
        secret = new_secret()
        try:
            key = ApiKey(id=key_id, tenant=tenant, hash=hash_key(secret), read=read, write=write, created=datetime.now(UTC))
        except ValidationError as exc:
            raise ConfigError(f"invalid key: {exc.errors()[0]['msg']}") from None
        return KeyFile(keys=[*self.keys, key]), secret

    def remove(self, key_id: str) -> KeyFile:
        if not any(k.id == key_id for k in self.keys):
            raise ConfigError(f"no key named {key_id!r}")
        return KeyFile(keys=[k for k in self.keys if k.id != key_id])


@dataclass(frozen=True)
class Principal:
    """Who is calling: a tenant and the collections its key covers."""

    tenant: str
    key_id: str | None
    read: tuple[str, ...]
    write: tuple[str, ...]

    def can_read(self, collection: str) -> bool:
        return any(fnmatch.fnmatchcase(collection, p) for p in (*self.read, *self.write))

    def can_write(self, collection: str) -> bool:
        return any(fnmatch.fnmatchcase(collection, p) for p in self.write)

    def require_read(self, collection: str) -> None:
        if not self.can_read(collection):
            raise Forbidden(f"this API key may not read collection {collection!r}")

    def require_write(self, collection: str) -> None:
        if not self.can_write(collection):
            raise Forbidden(f"this API key may not write to collection {collection!r}")

    def require_graph(self, graph: str) -> None:
        """A knowledge graph is scoped like a collection: a key reads only the graphs its patterns
        cover, and a collection it writes may link only to one of those (another tenant's entities
        would otherwise come back in its answers)."""
        if not self.can_read(graph):
            raise Forbidden(f"this API key may not read knowledge graph {graph!r}")

    def thread_key(self, thread_id: str) -> str:
        """The checkpoint id of a tenant's thread: tenants never share a namespace."""
        return f"{self.tenant}:{thread_id}"


LOCAL_PRINCIPAL = Principal(tenant="local", key_id=None, read=("*",), write=("*",))
"""The caller when no keys are configured (loopback only): everything, in one namespace."""


class Authenticator:
    """Turns an ``Authorization`` header into a ``Principal``, against the key file.

    The file is checked for changes at most once a second; a file that turns invalid while the
    server runs keeps the previous keys in force (and logs why) rather than locking everyone out.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._stamp: tuple[float, int] | None = None
        self._by_hash: dict[str, ApiKey] = {}
        self._checked = 0.0
        self._required = False
        if path is not None:
            self._load(KeyFile.load(path))  # invalid at start-up: fail loudly (ConfigError)
            self._stamp = _stamp(path)

    @property
    def enabled(self) -> bool:
        """Whether keys are required: the key file has held at least one key since start-up.

        Once required, always required: emptying or deleting the file locks callers out instead
        of opening the server to everyone (fail closed).
        """
        self._refresh()
        return self._required

    def authenticate(self, authorization: str | None) -> Principal:
        """Raises: Unauthenticated: keys are configured and the header carries none of them."""
        if not self.enabled:
            return LOCAL_PRINCIPAL
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("missing API key: send 'Authorization: Bearer <key>'")
        key = self._by_hash.get(hash_key(token.strip()))
        if key is None:
            raise Unauthenticated("invalid API key")
        return Principal(tenant=key.tenant, key_id=key.id, read=tuple(key.read), write=tuple(key.write))

    def _load(self, keys: KeyFile) -> None:
        self._by_hash = {k.hash: k for k in keys.keys}
        self._required = self._required or bool(self._by_hash)

    def _refresh(self) -> None:
        if self.path is None:
            return
        now = time.monotonic()
        if now - self._checked < 1.0:
            return
        self._checked = now
        stamp = _stamp(self.path)
        if stamp == self._stamp:
            return
        try:
            self._load(KeyFile.load(self.path))
        except ConfigError as exc:
            log.error("keeping the previous API keys: %s", exc.one_line())
            return
        self._stamp = stamp
        log.info("API keys reloaded from %s (%d keys)", self.path, len(self._by_hash))


def _stamp(path: Path) -> tuple[float, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_mtime, st.st_size
