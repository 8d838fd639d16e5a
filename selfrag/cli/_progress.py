"""Node-by-node progress lines for ``ask`` and ``demo`` (to stderr, so stdout stays clean JSON).

The line itself is the node's own summary (``NodeSpec.summarize``), the same one the HTTP
stream's events carry, with its control characters escaped: it quotes the question, the model's
answer and document ids, and a terminal obeys an escape sequence (a colour, a cleared screen, a
bidi override) in what it is sent.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from selfrag.cli._common import printable, shown

__all__ = ["describe_update", "print_event"]


def describe_update(node: str, update: dict[str, Any]) -> str:
    """One human line saying what a node just did, safe to print to a terminal."""
    from workflows.nodes import node_spec

    spec = node_spec(node)
    return "" if spec is None else printable(spec.summarize(update).text)  # type: ignore[arg-type]


def print_event(console: Console, node: str, update: dict[str, Any]) -> None:
    ms = update["timings"][-1]["ms"]
    timing = f"[dim]{ms:>7.0f} ms[/]"
    console.print(f"  [cyan]▸ {node:<15}[/] {timing}  {shown(describe_update(node, update))}", markup=True, soft_wrap=True)
