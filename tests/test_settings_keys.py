"""Settings: unknown keys and variables are refused with the nearest name; OpenAI's own variables
fill what selfrag's settings leave unset; ``selfrag config show`` says where each value came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from selfrag.cli import app
from selfrag.errors import ConfigError
from selfrag.settings import load_settings


def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("SELFRAG_CONFIG", str(path))
    return path


@pytest.mark.parametrize(("text", "hint"), [
    ('[llm]\nprovder = "openai"\n', "did you mean llm.provider?"),
    ("[workflow]\nmax_rewrite = 0\n", "did you mean workflow.max_rewrites?"),
    ("[worfklow]\nmax_rewrites = 0\n", "did you mean workflow?"),
    ("[retrieval.rerank]\nbackend = 'none'\nfactr = 2\n", "did you mean retrieval.rerank.factor?"),
    ("[collections.movies.search]\nkk = 8\n", "did you mean collections.movies.search.k?"),
])
def test_unknown_file_keys_are_refused_with_the_nearest_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, hint: str
) -> None:
    _config(tmp_path, monkeypatch, text)
    with pytest.raises(ConfigError, match="unknown setting") as info:
        load_settings()
    assert hint in str(info.value)


def test_valid_files_pass_including_free_form_tables_and_added_graders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(tmp_path, monkeypatch, '[workflow]\nmax_rewrites = 1\n[collections.movies.search]\nk = 8\n'
                                   '[collections.movies.search.where]\ngenre = "drama"\n[graders.conciseness]\npolicy = "fail_open"\n')
    settings = load_settings()
    assert settings.workflow.max_rewrites == 1 and settings.collections["movies"].search.where == {"genre": "drama"}


@pytest.mark.parametrize(("var", "hint"), [
    ("SELFRAG_WORKFLOW__MAX_REWRITE", "SELFRAG_WORKFLOW__MAX_REWRITES"),
    ("SELFRAG_LLM__PROVDER", "SELFRAG_LLM__PROVIDER"),
    ("SELFRAG_HOMR", "SELFRAG_HOME"),
    ("SELFRAG_DEBGU", "SELFRAG_DEBUG"),
])
def test_unknown_variables_are_refused_with_the_nearest_name(monkeypatch: pytest.MonkeyPatch, var: str, hint: str) -> None:
    monkeypatch.setenv(var, "1")
    with pytest.raises(ConfigError, match=f"unknown environment variable {var}") as info:
        load_settings()
    assert f"did you mean {hint}?" in str(info.value)


def test_variables_that_are_not_settings_are_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("SELFRAG_DEBUG", "SELFRAG_URL", "SELFRAG_KEY", "SELFRAG_HALUEVAL_DEV"):
        monkeypatch.setenv(var, "x")
    monkeypatch.setenv("SELFRAG_GRADERS__CONCISENESS__POLICY", "fail_open")  # a registered grader's settings
    load_settings()


def test_openai_variables_fill_what_selfrag_leaves_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    settings = load_settings()
    assert settings.llm.api_key is not None and settings.llm.api_key.get_secret_value() == "sk-openai"
    assert settings.embeddings.base_url == "http://127.0.0.1:9/v1"
    # selfrag's own settings take precedence.
    monkeypatch.setenv("SELFRAG_LLM__API_KEY", "sk-selfrag")
    monkeypatch.setenv("SELFRAG_LLM__BASE_URL", "http://127.0.0.1:8/v1")
    settings = load_settings()
    assert settings.llm.api_key is not None and settings.llm.api_key.get_secret_value() == "sk-selfrag"
    assert settings.llm.base_url == "http://127.0.0.1:8/v1"
    assert settings.embeddings.api_key is not None and settings.embeddings.api_key.get_secret_value() == "sk-openai"


def test_config_show_names_each_source_and_masks_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(tmp_path, monkeypatch, '[workflow]\ntop_k = 6\n[checkpoints]\nurl = "postgresql://u:hunter2@127.0.0.1:5432/db"\n')
    monkeypatch.setenv("SELFRAG_LLM__MODEL", "gpt-4o")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    result = CliRunner().invoke(app, ["config", "show", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["key"]: (r["value"], r["source"]) for r in json.loads(result.stdout)}
    assert rows["workflow.top_k"] == (6, "file")
    assert rows["llm.model"] == ("gpt-4o", "env SELFRAG_LLM__MODEL")
    assert rows["llm.api_key"] == ("********", "env OPENAI_API_KEY")
    assert rows["workflow.max_rewrites"] == (2, "default")
    assert rows["checkpoints.url"][0] == "postgresql://u:********@127.0.0.1:5432/db"
    assert "sk-secret" not in result.stdout and "hunter2" not in result.stdout
    text = CliRunner().invoke(app, ["config", "show"])
    assert text.exit_code == 0 and "sk-secret" not in text.stdout and "llm.model" in text.stdout


def test_a_typo_is_a_one_line_cli_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFRAG_WORKFLOW__MAX_REWRITE", "0")
    result = CliRunner().invoke(app, ["config", "show"])
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("error[config_invalid]: unknown environment variable")
    as_json = CliRunner().invoke(app, ["config", "show", "--json"])
    assert json.loads(as_json.stdout)["error"]["code"] == "config_invalid"
