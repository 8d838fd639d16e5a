"""Start-up: the CLI's help and its version load no engine; every option explains itself in words."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import typer
from typer.models import ParameterInfo
from typer.testing import CliRunner

from selfrag.cli import app

HEAVY = ("workflows.engine", "workflows", "graders", "langgraph", "langchain_core", "torch", "transformers",
         "chromadb", "sentence_transformers", "fastapi", "selfrag.settings", "selfrag.schema")


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_importing_the_cli_loads_no_engine() -> None:
    loaded = _loaded_after("import selfrag.cli")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_help_and_version_load_no_engine() -> None:
    for args in (["--help"], ["--version"], ["ask", "--help"], ["collections", "list", "--help"]):
        code = (f"import sys\nsys.argv = ['selfrag', *{args!r}]\nfrom selfrag.cli import main\n"
                "try:\n    main()\nexcept SystemExit:\n    pass")
        loaded = _loaded_after(code)
        assert not loaded & set(HEAVY), (args, sorted(loaded & set(HEAVY)))


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("selfrag ")


def _commands(typer_app: typer.Typer, prefix: str = "") -> list[tuple[str, object]]:
    found = [(f"{prefix}{c.name or getattr(c.callback, '__name__', '')}", c.callback)
             for c in typer_app.registered_commands if c.callback is not None]
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            found += _commands(group.typer_instance, f"{prefix}{group.name} ")
    return found


def test_every_option_and_argument_has_help_text() -> None:
    missing = [f"{name}: {param.name}" for name, callback in _commands(app)
               for param in inspect.signature(callback).parameters.values()  # type: ignore[arg-type]
               if isinstance(param.default, ParameterInfo) and not param.default.help]
    assert missing == []


def test_help_shows_no_python_types() -> None:
    for args in (["ingest", "--help"], ["ask", "--help"], ["collections", "list", "--help"], ["eval", "run", "--help"]):
        out = subprocess.run([sys.executable, "-m", "selfrag.cli", *args], capture_output=True, text=True, timeout=120,
                             check=False, env={"COLUMNS": "200", "PATH": ""})
        assert out.returncode == 0, out.stderr
        # typer's own --help flag keeps its <bool>; nothing of ours is shown as a type.
        text = "\n".join(line for line in out.stdout.splitlines() if "Show this message and exit." not in line)
        assert "list[" not in text and "<str>" not in text and "<bool>" not in text and "<path>" not in text, text
