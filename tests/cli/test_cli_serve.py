"""``selfrag serve`` and ``selfrag keys``: bad set-ups are one-line errors before anything listens."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from click.testing import Result


def test_serve_refuses_a_public_address_without_keys(cli: Callable[..., Result], assert_one_line_error: Callable[[Result, str], str]) -> None:
    line = assert_one_line_error(cli("serve", "--host", "0.0.0.0"), "config_invalid")
    assert "refusing to listen on 0.0.0.0 without API keys" in line


def test_serve_reports_an_unreachable_store_in_one_line(
    cli: Callable[..., Result], assert_one_line_error: Callable[[Result, str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SELFRAG_STORE__CHROMA_URL", "http://127.0.0.1:1")
    line = assert_one_line_error(cli("serve"), "store_unavailable")
    assert "cannot connect to Chroma at http://127.0.0.1:1: the Chroma server cannot be reached" in line
    assert "Could not connect" not in line and "SELFRAG_DEBUG=1 shows the cause" in line  # Chroma's own words stay out


def test_serve_reports_an_invalid_key_file(
    cli: Callable[..., Result], assert_one_line_error: Callable[[Result, str], str], tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    keys = Path(str(tmp_path)) / "keys.json"
    keys.write_text('{"keys": 3}')
    monkeypatch.setenv("SELFRAG_SERVICE__KEYS_FILE", str(keys))
    line = assert_one_line_error(cli("serve"), "config_invalid")
    assert line.startswith(f"error[config_invalid]: invalid key file {keys}")


def test_serve_refuses_an_unknown_log_level_in_one_line(
    cli: Callable[..., Result], assert_one_line_error: Callable[[Result, str], str]
) -> None:
    line = assert_one_line_error(cli("serve", "--log-level", "loud"), "usage_error")
    assert "--log-level 'loud' is not a log level" in line and "debug" in line


def test_serve_loads_the_models_before_it_listens(cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 25 item 3: /healthz and /readyz must not answer before the models are loaded (the first
    # questions after a restart queued behind the encoder's load and got 429).
    import uvicorn

    from selfrag.store import Store

    events: list[str] = []
    monkeypatch.setattr(Store, "warm_up", lambda self: events.append("warm_up"))
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: events.append("listen"))
    result = cli("serve")
    assert result.exit_code == 0, result.output
    assert events == ["warm_up", "listen"]
