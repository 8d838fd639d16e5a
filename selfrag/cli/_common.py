"""What every command shares: the consoles, one-line errors with a non-zero exit, and the ``--thread`` check."""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from selfrag.errors import SelfRagError, UsageError, one_line

__all__ = ["check_thread_id", "err_console", "fail", "handle_errors", "out_console", "printable", "refused", "shown"]

F = TypeVar("F", bound=Callable[..., Any])
err_console = Console(stderr=True, highlight=False)
out_console = Console(highlight=False)
_JSON_ERRORS: ContextVar[bool] = ContextVar("selfrag_json_errors", default=False)
"""Set while a command given ``--json`` runs: its errors are JSON too."""


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with each character that is not printable written as ``repr`` writes it (``\\x1b``,
    ``\\u202e``). A terminal obeys an escape sequence (a colour, a cleared screen, a bidi override)
    in what it is sent, and questions, answers and documents' text are the user's or a model's.
    With ``lines``, a line break stays one: an answer of several lines (a listing) is shown on them."""
    return "".join(c if c.isprintable() or (lines and c == "\n") else repr(c)[1:-1] for c in text)


def shown(text: str, *, lines: bool = False) -> str:
    """``text`` made safe to put inside rich markup on a terminal: printable, and its brackets escaped."""
    return escape(printable(text, lines=lines))


def fail(message: str, code: str = "usage_error", exit_code: int = 2) -> NoReturn:
    """Print ``error[code]: message`` on one line to stderr and exit non-zero.

    Under ``--json`` the error is ``{"error": {"code", "message"}}`` (the HTTP API's shape) on stdout
    instead, where the caller reads the JSON.
    """
    if _JSON_ERRORS.get():
        typer.echo(json.dumps({"error": {"code": code, "message": one_line(message)}}, ensure_ascii=False))
        raise typer.Exit(exit_code)
    # Plain text, not rich markup: the code's brackets and the message are literal.
    err_console.print(Text(f"error[{code}]: {one_line(message)}", style="bold red"), soft_wrap=True)
    raise typer.Exit(exit_code)


def refused(message: str, *, as_json: bool, exit_code: int = 2) -> int:
    """Print a usage error as ``fail`` does (outside any command: the command line itself refused
    the arguments) and return the exit code."""
    if as_json:
        typer.echo(json.dumps({"error": {"code": "usage_error", "message": one_line(message)}}, ensure_ascii=False))
    else:
        err_console.print(Text(f"error[usage_error]: {one_line(message)}", style="bold red"), soft_wrap=True)
    return exit_code


def check_thread_id(thread: str) -> str:
    """A ``--thread`` id is held to the API's rule, so a thread begun on one face continues on the other."""
    from selfrag.service.models import THREAD_PATTERN

    if not re.fullmatch(THREAD_PATTERN, thread):
        fail(
            f"invalid --thread {thread!r}: use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit",
            "usage_error",
        )
    return thread


def handle_errors(fn: F) -> F:
    """Turn every error into one line on stderr and a non-zero exit; never a traceback.

    ``SELFRAG_DEBUG=1`` re-raises, for developers.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        token = _JSON_ERRORS.set(kwargs.get("as_json") is True)
        try:
            return _call(fn, args, kwargs)
        finally:
            _JSON_ERRORS.reset(token)

    return wrapper  # type: ignore[return-value]


def _call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``fn``, with every error turned into ``fail`` (one line, or JSON under ``--json``)."""
    try:
        return fn(*args, **kwargs)
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except SelfRagError as exc:
        if os.environ.get("SELFRAG_DEBUG"):
            raise
        # What a driver or library said (exc.detail) is not ours to print: the debug mode shows it.
        hint = " (SELFRAG_DEBUG=1 shows the cause)" if exc.detail else ""
        fail(exc.one_line() + hint, exc.code, 2 if isinstance(exc, UsageError) else 1)
    except Exception as exc:
        if os.environ.get("SELFRAG_DEBUG"):
            raise
        fail(f"unexpected {type(exc).__name__}; SELFRAG_DEBUG=1 shows the traceback", "internal", 1)
    return None
