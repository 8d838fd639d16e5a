"""Client mode: the CLI's commands sent to a running ``selfrag serve`` through its HTTP API.

Embedded Chroma serves one process, so while a server holds the data directory every other
process is refused (``store_locked``). The commands that have an API route (``ask``,
``collections``, ``documents``, ``ingest``) go through the server instead when one is named:
``--url`` / ``SELFRAG_URL``, or, with neither, the server named in the store's lock file when it
holds this data directory. ``--key`` / ``SELFRAG_KEY`` is sent as the bearer token.

A server's error comes back as the same ``SelfRagError`` class (by its stable code), so the CLI
prints it as it would print the local one.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from selfrag.errors import CollectionNotFound, DependencyUnavailable, RuntimeFailure, SelfRagError, UsageError

if TYPE_CHECKING:
    import httpx

__all__ = ["KEY_HELP", "URL_HELP", "Remote", "remote_for"]

URL_HELP = ("A running 'selfrag serve' to send this to, e.g. http://127.0.0.1:8000 (default: $SELFRAG_URL, "
            "else the server holding this data directory, else no server).")
KEY_HELP = "The API key to send to the server (default: $SELFRAG_KEY)."


def _error_class(code: str, status: int) -> type[SelfRagError]:
    """The error class with ``code``, or the generic one for the status."""
    pending: list[type[SelfRagError]] = [SelfRagError]
    while pending:
        cls = pending.pop()
        if cls.__dict__.get("code") == code:
            return cls
        pending.extend(cls.__subclasses__())
    return UsageError if 400 <= status < 500 else RuntimeFailure


class Remote:
    """One server's API, spoken with the caller's key; ``close`` it (or use ``with``)."""

    def __init__(self, url: str, key: str | None = None, *, timeout_s: float = 300.0) -> None:
        import httpx

        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        # trust_env=False: a proxy from the environment must not capture requests to a local server.
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout_s, trust_env=False)

    def __enter__(self) -> Remote:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Send one request; the decoded JSON body (None for 204).

        Raises:
            SelfRagError: the server's error, as the class of its code.
            DependencyUnavailable: the server cannot be reached.
        """
        import httpx

        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise DependencyUnavailable(
                f"cannot reach the selfrag server at {self.url}: is 'selfrag serve' running there?",
                detail=str(exc), dependency="server",
            ) from None
        if response.status_code == 204:
            return None
        return self._decode(response)

    def _decode(self, response: httpx.Response) -> Any:
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.is_success and body is not None:
            return body
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            cls = _error_class(error["code"], response.status_code)
            message = str(error.get("message") or error["code"])
            missing = _MISSING.match(message) if cls is CollectionNotFound else None
            # The server's advice for a missing collection is an HTTP client's (POST /v1/collections);
            # the CLI's user is told the CLI's own.
            exc = CollectionNotFound(missing.group(1)) if missing is not None else cls.with_message(message)
            exc.code = error["code"]  # the server's own code, also for classes shared by several codes
            raise exc
        raise (UsageError if response.is_client_error else RuntimeFailure)(
            f"the server at {self.url} answered {response.status_code} to {response.request.method} "
            f"{response.request.url.path}"
        )


_MISSING = re.compile(r"collection '([^']+)' does not exist")
"""A server's message for a missing collection, and the collection it names."""


def _served_here() -> str | None:
    """The URL of the server holding this data directory's embedded store, if one does."""
    from selfrag.settings import load_settings
    from selfrag.store.lock import serving_url

    settings = load_settings()
    if settings.store.chroma_url:  # a Chroma server is shared: nothing holds the data directory
        return None
    return serving_url(settings.chroma_path)


def remote_for(url: str | None, key: str | None) -> Remote | None:
    """The server a command should go through, or None to open the store in this process."""
    chosen = url or os.environ.get("SELFRAG_URL") or _served_here()
    if not chosen:
        return None
    return Remote(chosen, key or os.environ.get("SELFRAG_KEY"))
