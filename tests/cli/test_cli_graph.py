"""``selfrag graph`` and the app's help: no model, no store, just text."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from click.testing import Result

from workflows.nodes import NODE_NAMES

Cli = Callable[..., Result]


# The diagram in workflows/graph.py: solid edges always run, dotted ones are routing decisions.
SOLID = {("__start__", "condense"), ("generate", "check"), ("finalize", "__end__")}
ROUTED = {("condense", "self_query"), ("condense", "finalize"),  # a question about the conversation
          ("self_query", "retrieve"), ("self_query", "graph_resolve"), ("self_query", "latest"),  # graph conditions
          ("self_query", "finalize"),  # a record the collection does not have ("What did INC-2099 cost?")
          ("graph_resolve", "retrieve"), ("graph_resolve", "latest"), ("graph_resolve", "finalize"),
          ("latest", "grade_documents"), ("latest", "finalize"),
          ("retrieve", "grade_documents"), ("retrieve", "finalize"),
          ("grade_documents", "generate"), ("grade_documents", "rewrite"), ("grade_documents", "finalize"),
          ("rewrite", "retrieve"), ("rewrite", "finalize"),
          ("check", "finalize"), ("check", "generate"), ("check", "rewrite")}


def test_graph_prints_mermaid_with_every_node_and_edge(cli: Cli, fake: Any) -> None:
    result = cli("graph")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert re.search(r"^graph TD;$", text, flags=re.MULTILINE)
    declared = set(re.findall(r"^\s*(\w+)\(", text, flags=re.MULTILINE))
    assert declared == set(NODE_NAMES) | {"__start__", "__end__"}
    solid = set(re.findall(r"^\s*(\w+) --> (\w+);", text, flags=re.MULTILINE))
    routed = set(re.findall(r"^\s*(\w+) -\.-> (\w+);", text, flags=re.MULTILINE))
    assert (solid, routed) == (SOLID, ROUTED)
    assert result.stderr == ""
    assert fake.models == []  # drawing loads no model


def test_help_lists_every_command(cli: Cli) -> None:
    result = cli("--help")
    assert result.exit_code == 0
    for command in ("ingest", "ask", "plan", "graph", "demo"):
        assert re.search(rf"^\W*{command}\b", result.stdout, flags=re.MULTILINE), command


def test_no_arguments_shows_help_not_a_traceback(cli: Cli) -> None:
    result = cli()
    assert "Usage" in result.output and "Traceback" not in result.output
