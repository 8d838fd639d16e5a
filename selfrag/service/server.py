"""Starting the service under uvicorn, refusing an unsafe binding first."""

from __future__ import annotations

import copy
import ipaddress
import logging
from typing import Any

from selfrag.errors import ConfigError
from selfrag.service.app import create_app, keys_file
from selfrag.service.auth import Authenticator
from selfrag.settings import Settings

__all__ = ["is_loopback_host", "serve"]

log = logging.getLogger("selfrag.service")


def is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(settings: Settings, *, host: str, port: int, log_level: str = "info") -> None:
    """Run the service until interrupted.

    Raises:
        ConfigError: no API keys are configured and ``host`` is not a loopback address, or the
            key file or another setting is invalid.
        StoreError, ProviderError: the store, the checkpoints or the model cannot be reached.
    """
    import uvicorn

    path = keys_file(settings)
    if not Authenticator(path).enabled and not is_loopback_host(host):
        raise ConfigError(
            f"refusing to listen on {host} without API keys: create one with 'selfrag keys add' "
            f"(key file {path}) or bind to 127.0.0.1"
        )
    from selfrag.store import StoreUse
    from workflows.factory import build_engine, open_store

    # Built before uvicorn starts, so a store or model that cannot be reached (or an embedded store
    # another process holds) is a one-line error from the CLI rather than a lifespan traceback.
    # The URL goes into the store's lock, so that a CLI refused by it names the API to use instead.
    shown = f"[{host}]" if ":" in host else host
    store = open_store(settings, StoreUse("selfrag serve", url=f"http://{shown}:{port}"))
    engine = build_engine(settings, store=store)
    # Before uvicorn listens: neither /healthz nor /readyz answers, and no question is taken, until
    # the models are in memory (else the first questions queue behind the load and get 429).
    engine.components.warm_up()
    app = create_app(settings, engine=engine, store=store, owned=True)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level,
        log_config=_log_config(log_level),
        proxy_headers=False,
        timeout_graceful_shutdown=30,
    )


def _log_config(level: str) -> dict[str, Any]:
    """uvicorn's logging, with selfrag's own logger (start-up notices, key reloads, failures) beside it."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    # Every line stamped (ISO 8601 with the UTC offset): lines of several instances and of a
    # dependency's own log must be put side by side when an outage is looked into.
    for formatter in config["formatters"].values():
        formatter["fmt"] = "%(asctime)s " + formatter["fmt"]
        formatter["datefmt"] = "%Y-%m-%dT%H:%M:%S%z"
    config["loggers"]["selfrag"] = {"handlers": ["default"], "level": level.upper(), "propagate": False}
    return config
