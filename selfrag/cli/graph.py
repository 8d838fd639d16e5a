"""``selfrag graph``: the workflow as a Mermaid diagram."""

from __future__ import annotations

import typer

from selfrag.cli._common import handle_errors

__all__ = ["graph"]


@handle_errors
def graph() -> None:
    """Print the Self-RAG workflow as a Mermaid diagram (no model is loaded).

    Example: selfrag graph > workflow.mmd
    """
    from workflows import mermaid

    typer.echo(mermaid())
