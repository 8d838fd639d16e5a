"""The ``selfrag`` command line: one typer app, one module per command.

This package and the HTTP service (``selfrag.service``) are the only places in ``selfrag`` that import
``workflows`` or ``graders``; they parse, call, and format.
"""

from __future__ import annotations

import typer

from selfrag.cli.ask import ask
from selfrag.cli.collections import collections_app, documents_app
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

app = typer.Typer(
    name="selfrag",
    help="A Self-RAG corrective workflow engine: self-query, retrieve, grade, rewrite, generate, check.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(ingest)
app.command()(ask)
app.command()(plan)
app.command()(graph)
app.command()(demo)
app.command()(serve)
app.add_typer(collections_app, name="collections")
app.add_typer(documents_app, name="documents")
app.add_typer(eval_app, name="eval")
app.add_typer(keys_app, name="keys")
app.add_typer(kg_app, name="kg")


def main() -> None:
    app()
