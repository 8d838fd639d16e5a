"""``selfrag kg``: load, list, show, delete through the CLI (embedded server under SELFRAG_HOME,
or an external one by --url), with one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner, Result

from selfrag.cli import app
from tests.kg.conftest import SAMPLE
from tests.servers import free_port

NODES = SAMPLE / "graph" / "nodes.jsonl"
EDGES = SAMPLE / "graph" / "edges.jsonl"


def _run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def _one_line_error(result: Result, code: str, exit_code: int) -> str:
    assert result.exit_code == exit_code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error[{code}]: "), result.stderr
    assert "Traceback" not in result.output and result.stdout == ""
    return lines[0]


def test_load_list_show_delete_on_the_embedded_server() -> None:
    loaded = _run("kg", "load", "companies", "--nodes", NODES, "--edges", EDGES)
    assert loaded.exit_code == 0, loaded.output
    assert loaded.stdout.strip() == "graph 'companies': 111 nodes (111 new), 238 edges (238 new)"
    again = _run("kg", "load", "companies", "--nodes", NODES, "--edges", EDGES)
    assert again.stdout.strip() == "graph 'companies': 111 nodes (0 new), 238 edges (0 new)"
    assert _run("kg", "list").stdout.splitlines() == ["companies"]
    shown = _run("kg", "show", "companies").stdout
    assert "  node  Organization: 46" in shown and "  edge  SUPPLIES: 35" in shown
    assert _run("kg", "delete", "companies").exit_code == 0
    assert _run("kg", "list").stdout == ""
    # Every command stopped the server it started: nothing keeps running after the CLI.
    home = Path(os.environ["SELFRAG_HOME"]) / "graph"
    assert not (home / "server.json").exists() and not (home / "falkordb.pid").exists()


def test_an_external_server_by_url(falkordb_url: str) -> None:
    assert _run("kg", "load", "cli_url", "--nodes", NODES, "--url", falkordb_url).exit_code == 0
    assert "cli_url" in _run("kg", "list", "--url", falkordb_url).stdout.splitlines()
    assert _run("kg", "delete", "cli_url", "--url", falkordb_url).exit_code == 0


def test_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "nodes.jsonl"
    bad.write_text('{"id": "a", "label": "Org", "name": "A"}\n{"id": "b", "label": "Org`) DETACH DELETE", "name": "B"}\n')
    line = _one_line_error(_run("kg", "load", "g", "--nodes", bad), "graph_data_invalid", 2)
    assert "nodes.jsonl line 2: label" in line and str(tmp_path) not in line
    _one_line_error(_run("kg", "load", "g`x", "--nodes", NODES), "usage_error", 2)
    _one_line_error(_run("kg", "show", "nope"), "graph_not_found", 2)
    down = f"redis://127.0.0.1:{free_port()}"
    line = _one_line_error(_run("kg", "list", "--url", down), "graph_unavailable", 1)
    assert line == "error[graph_unavailable]: the graph server is unreachable; try again later (SELFRAG_DEBUG=1 shows the cause)"
    _one_line_error(_run("kg", "list", "--url", "http://x"), "config_invalid", 2)
