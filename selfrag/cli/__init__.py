"""The ``selfrag`` command line: one typer app, one module per command.

This package and the HTTP service (``selfrag.service``) are the only places in ``selfrag`` that import
``workflows`` or ``graders``; they parse, call, and format. Each command imports what it needs when
it runs, never at module level: ``selfrag --help`` must not load the engine (tests/cli/test_cli_startup.py).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

from selfrag.cli import _common
from selfrag.cli.ask import ask
from selfrag.cli.collections import collections_app, documents_app
from selfrag.cli.config import config_app
from selfrag.cli.demo import demo
from selfrag.cli.eval import eval_app
from selfrag.cli.eval_answers import endpoint_cmd as _endpoint_cmd  # noqa: F401  (registers score/endpoint/judge on eval_app)
from selfrag.cli.graph import graph
from selfrag.cli.ingest import ingest
from selfrag.cli.keys import keys_app
from selfrag.cli.kg import kg_app
from selfrag.cli.plan import plan
from selfrag.cli.serve import serve

__all__ = ["app", "main"]

# click's exceptions, or those of the copy of click newer typer releases ship with themselves.
_CLICK = sys.modules[typer.BadParameter.__module__]
_NO_ARGS_IS_HELP: type[Exception] = getattr(_CLICK, "NoArgsIsHelpError", type("_Never", (Exception,), {}))


class _OneLineErrors(TyperGroup):
    """The command line's own refusals (an unknown option or command, a value out of range, an
    extra argument) as every other user mistake: one ``error[usage_error]: message`` line on
    stderr, or the JSON error on stdout under ``--json``, never click's boxed usage block."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        try:
            code = super().main(argv, prog_name, complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        except _NO_ARGS_IS_HELP as exc:  # "selfrag kg": its help, as before
            from typer import rich_utils

            rich_utils.rich_format_error(exc)  # type: ignore[arg-type]
            code = exc.exit_code  # type: ignore[attr-defined]
        except _CLICK.UsageError as exc:
            code = _common.refused(exc.format_message(), as_json="--json" in argv)
        except _CLICK.ClickException as exc:
            code = _common.refused(exc.format_message(), as_json="--json" in argv, exit_code=exc.exit_code)
        except typer.Abort:
            _common.err_console.print("Aborted!")
            code = 1
        code = code if isinstance(code, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    cls=_OneLineErrors,
    name="selfrag",
    help="A Self-RAG corrective workflow engine: self-query, retrieve, grade, rewrite, generate, check.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"selfrag {version('selfrag')}")
        except PackageNotFoundError:  # a source tree that was never installed
            typer.echo("selfrag (not installed)")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print selfrag's version and exit."
    ),
) -> None:
    """A Self-RAG corrective workflow engine: self-query, retrieve, grade, rewrite, generate, check.

    Example: selfrag ingest --sample movies && selfrag ask "Which movies did Greta Gerwig direct?" -c movies
    """


app.command()(ingest)
app.command()(ask)
app.command()(plan)
app.command()(graph)
app.command()(demo)
app.command()(serve)
app.add_typer(collections_app, name="collections")
app.add_typer(config_app, name="config")
app.add_typer(documents_app, name="documents")
app.add_typer(eval_app, name="eval")
app.add_typer(keys_app, name="keys")
app.add_typer(kg_app, name="kg")


def _plain_metavars(typer_app: typer.Typer) -> None:
    """Name every value in the help as a word (``PATH``, ``COLLECTION``), never a Python type.

    typer shows an option without a metavar as its annotation (``<list[Path]>``, ``<bool>``);
    flags get none, the rest their parameter's name.
    """
    import inspect

    from typer.models import ParameterInfo

    for command in typer_app.registered_commands:
        if command.callback is not None:
            for param in inspect.signature(command.callback).parameters.values():
                info = param.default
                if isinstance(info, ParameterInfo) and info.metavar is None:
                    flag = param.annotation in (bool, "bool")
                    info.metavar = "" if flag else param.name.upper().removeprefix("AS_")
    if typer_app.registered_callback is not None and typer_app.registered_callback.callback is not None:
        _plain_metavars_of(typer_app.registered_callback.callback)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _plain_metavars(group.typer_instance)


def _plain_metavars_of(callback: object) -> None:
    import inspect

    from typer.models import ParameterInfo

    for param in inspect.signature(callback).parameters.values():  # type: ignore[arg-type]
        if isinstance(param.default, ParameterInfo) and param.default.metavar is None:
            param.default.metavar = ""


_plain_metavars(app)


def main() -> None:
    command = typer.main.get_command(app)
    _plain_arguments(command)
    command()


def _plain_arguments(command: object) -> None:
    """typer shows an argument's annotation (``<list[Path]>``) whatever its metavar: show none."""
    from typer.core import TyperArgument

    for param in getattr(command, "params", []):
        if isinstance(param, TyperArgument):
            param.display_type_rich = lambda ctx: None  # type: ignore[method-assign]
    for sub in getattr(command, "commands", {}).values():
        _plain_arguments(sub)
