"""Fixtures for the CLI tests: fake providers patched in where the commands build them, a runner.

The commands build their chat model and embeddings in two places: ``workflows.factory`` (ingest,
ask, demo; imported there at module level) and ``selfrag.providers`` (``plan`` imports them from
the package when it runs). Both are patched for every test here, so no CLI test can load a real
model: the chat model is a ``ScriptedChatModel`` scripted per test, the embeddings ``HashEmbeddings``.

The self-query step runs its deterministic rules (no LLM call to script) and every grader decides
on its LLM verdict alone, so a test's script says exactly what happens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from langchain_core.messages import BaseMessage
from typer.testing import CliRunner

from selfrag.cli import app
from selfrag.settings import load_settings
from selfrag.store import Store
from selfrag.testing import Call, HashEmbeddings, ScriptedChatModel, verdict


class FakeProviders:
    """Stands in for ``make_chat_model`` / ``make_embeddings``; records every model it hands out."""

    def __init__(self) -> None:
        self.rules: dict[str, Any] = {}
        self.models: list[ScriptedChatModel] = []

    def script(
        self,
        *,
        relevant: Sequence[str] = (),
        generate: str = "",
        condense: str = "",
        rewrite: str = "",
        grounded: bool = True,
        useful: bool = True,
    ) -> None:
        """A document is relevant when its fenced text contains one of ``relevant``."""

        def relevance(messages: list[BaseMessage]) -> str:
            doc = str(messages[-1].content).split("<document>", 1)[-1]
            return verdict("relevant" if any(n in doc for n in relevant) else "irrelevant")

        texts = {"generate": generate, "condense": condense, "rewrite": rewrite}
        self.rules = {
            "RelevanceGrade": relevance,
            "GroundednessGrade": verdict("grounded" if grounded else "ungrounded"),
            "UsefulnessGrade": verdict("useful" if useful else "not_useful"),
            **{task: reply for task, reply in texts.items() if reply},  # an unscripted task raises KeyError
        }

    def chat_model(self, llm: object) -> ScriptedChatModel:
        model = ScriptedChatModel.from_rules(self.rules)
        self.models.append(model)
        return model

    def embeddings(self, emb: object) -> HashEmbeddings:
        return HashEmbeddings()

    @property
    def calls(self) -> list[Call]:
        return [c for m in self.models for c in m.calls]

    def text_calls(self, task: str) -> list[Call]:
        return [c for c in self.calls if c.task == task]


@pytest.fixture(autouse=True)
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeProviders:
    providers = FakeProviders()
    for target in ("workflows.factory", "selfrag.providers"):
        monkeypatch.setattr(f"{target}.make_chat_model", providers.chat_model)
        monkeypatch.setattr(f"{target}.make_embeddings", providers.embeddings)
    monkeypatch.setenv("SELFRAG_WORKFLOW__SELF_QUERY_MODE", "rules")
    # The scripted model writes the answers, rewrites and follow-ups these tests check.
    monkeypatch.setenv("SELFRAG_WORKFLOW__ANSWER_STRATEGY", "hybrid")
    for grader in ("RELEVANCE", "GROUNDEDNESS", "USEFULNESS"):
        monkeypatch.setenv(f"SELFRAG_GRADERS__{grader}__COMBINE", "llm")
    return providers


@pytest.fixture
def cli() -> Callable[..., Result]:
    """Run ``selfrag ARGS...`` in-process; stdout and stderr are captured apart."""
    runner = CliRunner()

    def invoke(*args: str | Path) -> Result:
        return runner.invoke(app, [str(a) for a in args])

    return invoke


@pytest.fixture
def open_store() -> Iterator[Callable[[], Store]]:
    """Open the CLI's store (under this test's ``SELFRAG_HOME``) to inspect what a command wrote."""
    opened: list[Store] = []

    def open_() -> Store:
        store = Store.from_settings(load_settings(), HashEmbeddings())
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


@pytest.fixture
def assert_one_line_error() -> Callable[[Result, str], str]:
    """Check the CLI promise for a user mistake: non-zero exit, one ``error[code]:`` line, no traceback."""

    def check(result: Result, code: str) -> str:
        assert result.exit_code != 0, result.output
        assert isinstance(result.exception, SystemExit), repr(result.exception)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith(f"error[{code}]: "), lines[0]
        assert "Traceback" not in result.output
        assert result.stdout == ""
        return lines[0]

    return check
