"""The registered provider profiles, built-ins and added ones alike.

The built-ins are this package's public modules, each registering one profile when imported;
they are imported on the first lookup, so naming a provider never loads a model library.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading

from selfrag.errors import ConfigError
from selfrag.profiles._profile import ProviderProfile

__all__ = ["PROFILES", "profile_named", "provider_names", "register_profile", "unknown_provider"]

PROFILES: dict[str, ProviderProfile] = {}
"""Every registered profile by name."""

_loaded = False
_lock = threading.Lock()


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        package = importlib.import_module("selfrag.profiles")
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                importlib.import_module(f"selfrag.profiles.{info.name}")
        _loaded = True


def register_profile(profile: ProviderProfile) -> ProviderProfile:
    """Make ``profile`` selectable as ``llm.provider = "<profile.name>"``; returns it.

    Raises:
        ValueError: another profile is registered under that name.
    """
    known = PROFILES.get(profile.name)
    if known is not None and known is not profile:
        raise ValueError(f"a provider profile named {profile.name!r} is already registered")
    PROFILES[profile.name] = profile
    return profile


def provider_names() -> list[str]:
    """The registered providers' names, sorted (import order is no order a user can see)."""
    _load_builtins()
    return sorted(PROFILES)


def profile_named(name: str) -> ProviderProfile:
    """The profile registered as ``name``.

    Raises:
        ConfigError: none is (the message lists the registered ones).
    """
    _load_builtins()
    profile = PROFILES.get(name)
    if profile is None:
        raise ConfigError(unknown_provider(name))
    return profile


def unknown_provider(name: str) -> str:
    """The one-line message for a provider name no profile is registered as."""
    return f"no provider profile is registered as {name!r} (registered: {', '.join(provider_names())})"
