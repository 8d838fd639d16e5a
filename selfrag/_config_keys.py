"""Where each setting came from, and the names no setting has.

pydantic-settings ignores what it does not know, so ``provder = "openai"`` in config.toml or
``SELFRAG_WORKFLOW__MAX_REWRITE=0`` would silently leave the default in force. ``load_settings``
checks every key of the file and every ``SELFRAG_*`` variable against the settings' fields here,
and refuses an unknown one with the nearest valid name.

Some ``SELFRAG_*`` variables are not settings: ``NON_SETTINGS`` lists them (keep it in step with
the code that reads them).
"""

from __future__ import annotations

import difflib
import os
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Any, Union
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, SecretStr

from selfrag.errors import ConfigError

__all__ = ["NON_SETTINGS", "OPENAI_FALLBACKS", "check_env", "check_file", "flatten", "mask", "source_of"]

PREFIX = "SELFRAG_"

NON_SETTINGS = {
    "SELFRAG_CONFIG": "the config file (default: $SELFRAG_HOME/config.toml)",
    "SELFRAG_DEBUG": "1: tracebacks instead of one-line errors",
    "SELFRAG_URL": "the server the CLI's client mode talks to",
    "SELFRAG_KEY": "the API key the CLI's client mode sends",
    "SELFRAG_HALUEVAL_DEV": "the benches' HaluEval dev data",
}
"""``SELFRAG_*`` variables read by the code that are not settings (``SELFRAG_HOME`` is the ``home`` setting)."""

OPENAI_FALLBACKS: dict[tuple[str, ...], str] = {
    ("llm", "api_key"): "OPENAI_API_KEY",
    ("llm", "base_url"): "OPENAI_BASE_URL",
    ("embeddings", "api_key"): "OPENAI_API_KEY",
    ("embeddings", "base_url"): "OPENAI_BASE_URL",
}
"""The OpenAI client's own variables, used (as langchain-openai uses them) where selfrag's settings leave a value unset."""


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The settings model an annotation holds (``X``, ``X | None``), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (Union, types.UnionType):
        models = [m for m in map(_model_of, typing.get_args(annotation)) if m is not None]
        return models[0] if len(models) == 1 else None
    return None


def _children(model: type[BaseModel]) -> dict[str, Any]:
    """Field name → what a key under it must be: a model, ``("map", model)`` for a dict of models, or None (anything)."""
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        annotation = field.annotation
        inner = _model_of(annotation)
        if inner is None and typing.get_origin(annotation) is dict:
            value_model = _model_of(typing.get_args(annotation)[1])
            out[name] = ("map", value_model) if value_model is not None else None
        else:
            out[name] = inner
    return out


def _extra_model(model: type[BaseModel]) -> type[BaseModel] | None:
    """The model of the extra keys a model accepts (graders: a registered grader's settings)."""
    if model.model_config.get("extra") != "allow":
        return None
    models = {m for m in map(_model_of, (f.annotation for f in model.model_fields.values())) if m is not None}
    return models.pop() if len(models) == 1 else None


def _walk(model: type[BaseModel], path: list[str]) -> tuple[list[str], list[str]] | None:
    """None if ``path`` names a setting (or lies inside a free-form one); else (the valid prefix, its valid names)."""
    spec: Any = model
    for depth, key in enumerate(path):
        if spec is None:
            return None
        if isinstance(spec, tuple):  # a dict of models: any name, then that model
            spec = spec[1]
            continue
        children = _children(spec)
        if key in children:
            spec = children[key]
            continue
        extra = _extra_model(spec)
        if extra is not None:
            spec = extra
            continue
        return path[:depth], sorted(children)
    return None


def _unknown(model: type[BaseModel], path: list[str], *, env: bool) -> str | None:
    found = _walk(model, path)
    if found is None:
        return None
    prefix, names = found
    bad = path[len(prefix)]
    sep = "__" if env else "."
    shown = [n.upper() if env else n for n in names]
    close = difflib.get_close_matches(bad.upper() if env else bad, shown, n=1, cutoff=0.6)
    return sep.join([*(p.upper() if env else p for p in prefix), close[0]]) if close else ""


def check_file(model: type[BaseModel], data: Mapping[str, Any], where: str) -> None:
    """Refuse a key of the config file that names no setting.

    Raises:
        ConfigError: the first unknown key, with the nearest valid name.
    """
    for path in _paths(data):
        hint = _unknown(model, path, env=False)
        if hint is not None:
            advice = f"; did you mean {hint}?" if hint else f"; valid keys: {', '.join(sorted(_children(model)))}" if len(path) == 1 else ""
            raise ConfigError(f"unknown setting {'.'.join(path)} in {where}{advice}")


def _paths(data: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[list[str]]:
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            yield from _paths(value, (*prefix, str(key)))
        else:
            yield [*prefix, str(key)]


def check_env(model: type[BaseModel], environ: Mapping[str, str] | None = None) -> None:
    """Refuse a ``SELFRAG_*`` variable that is neither a setting nor in ``NON_SETTINGS``.

    Raises:
        ConfigError: the first unknown variable, with the nearest valid name.
    """
    environ = os.environ if environ is None else environ
    for var in sorted(environ):
        if not var.startswith(PREFIX) or var in NON_SETTINGS:
            continue
        path = [p.lower() for p in var[len(PREFIX):].split("__")]
        hint = _unknown(model, path, env=True)
        if hint is None:
            continue
        if len(path) == 1:  # a whole variable mistyped: the non-settings are candidates too
            names = [PREFIX + n.upper() for n in _children(model)] + list(NON_SETTINGS)
            close = difflib.get_close_matches(var, names, n=1, cutoff=0.6)
            full = close[0] if close else ""
        else:
            full = PREFIX + hint if hint else ""
        advice = f"; did you mean {full}?" if full else ""
        raise ConfigError(f"unknown environment variable {var}: no setting has that name{advice}")


def flatten(data: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, value) for every leaf of a settings dump; an empty table is one leaf."""
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            yield from flatten(value, (*prefix, key))
        else:
            yield (*prefix, key), value


def source_of(path: tuple[str, ...], file_data: Mapping[str, Any], environ: Mapping[str, str],
              fallbacks: Mapping[tuple[str, ...], str]) -> str:
    """``env SELFRAG_…``, ``file``, ``env OPENAI_…`` or ``default``: where a setting's value came from."""
    for depth in range(len(path), 0, -1):
        var = PREFIX + "__".join(p.upper() for p in path[:depth])
        if var in environ:
            return f"env {var}"
    node: Any = file_data
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            break
        node = node[part]
    else:
        return "file"
    if path in fallbacks:
        return f"env {fallbacks[path]}"
    return "default"


def mask(path: tuple[str, ...], value: Any) -> Any:
    """A value fit to print: secrets as ``********``, a URL's password hidden."""
    if isinstance(value, SecretStr) or (path[-1] in ("api_key",) and value):
        return "********"
    if isinstance(value, str) and "://" in value:
        parts = urlsplit(value)
        if parts.password:
            netloc = f"{parts.username}:********@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
            return urlunsplit(parts._replace(netloc=netloc))
    return value
