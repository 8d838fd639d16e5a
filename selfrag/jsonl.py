"""One reader for JSON Lines: what every ``.jsonl`` the program reads goes through.

Dataset files, ingest inputs, evaluation runs and the HaluEval source are all one object per
line; a bad line is named by its number, in the error class of the caller (an ingest file is an
``IngestError``, an evaluation file a ``DatasetError``), and blank lines are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from selfrag.errors import SelfRagError

__all__ = ["json_models", "json_objects", "validation_message"]

M = TypeVar("M", bound=BaseModel)


def json_objects(text: str, where: str, error: type[SelfRagError]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of ``text`` (the contents of ``where``).

    Raises:
        error: a line is not JSON, or not a JSON object (``where:n: ...``).
    """
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{where}:{number}: not valid JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(raw, dict):
            raise error(f"{where}:{number}: expected a JSON object, got {type(raw).__name__}")
        yield number, raw


def validation_message(exc: ValidationError) -> str:
    """The first problem pydantic found, as ``field.path: what is wrong`` (no field: the message)."""
    first = exc.errors()[0]
    field = ".".join(str(x) for x in first["loc"])
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{field}: {message}" if field else message


def json_models(text: str, where: str, error: type[SelfRagError], model: type[M]) -> Iterator[tuple[int, M]]:
    """``(line number, model)`` for each non-blank line, validated with pydantic.

    Raises:
        error: a line is not a JSON object, or not a valid ``model`` (``where:n: field: problem``).
    """
    for number, raw in json_objects(text, where, error):
        try:
            yield number, model.model_validate(raw)
        except ValidationError as exc:
            raise error(f"{where}:{number}: {validation_message(exc)}") from None
