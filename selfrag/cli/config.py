"""``selfrag config``: the settings in force, and where each came from."""

from __future__ import annotations

import json
import os

import typer

from selfrag.cli._common import handle_errors, out_console

__all__ = ["config_app"]

config_app = typer.Typer(help="Inspect the settings (config file, SELFRAG_* variables, defaults).", no_args_is_help=True)


@config_app.command("show")
@handle_errors
def show(as_json: bool = typer.Option(False, "--json", help="Print [{\"key\", \"value\", \"source\"}] on stdout.")) -> None:
    """Print every effective setting with its source (default, file or env), secrets masked.

    Example: selfrag config show
    """
    from selfrag._config_keys import OPENAI_FALLBACKS, flatten, mask, source_of
    from selfrag.settings import _config_file, load_settings, read_config_file

    settings = load_settings()
    file_data = read_config_file()
    fallbacks = {path: var for path, var in OPENAI_FALLBACKS.items() if os.environ.get(var)}
    # Secrets stay SecretStr in the dump (python mode), so ``mask`` sees them as such.
    rows = [
        {"key": ".".join(path), "value": mask(path, value), "source": source_of(path, file_data, os.environ, fallbacks)}
        for path, value in flatten(settings.model_dump())
    ]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, default=str))
        return
    cfg = _config_file()
    out_console.print(f"# config file: {cfg}" + ("" if cfg.is_file() else " (none)"), markup=False, soft_wrap=True)
    width = max(len(r["key"]) for r in rows)
    for r in rows:
        value = r["value"]
        shown = "-" if value is None else json.dumps(value, default=str) if not isinstance(value, str) else value
        out_console.print(f"{r['key']:<{width}}  {shown}  ({r['source']})", markup=False, soft_wrap=True)
