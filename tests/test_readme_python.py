"""The README's "Python" quickstart runs: its code blocks, in order, as one script, with the
chat model and the embeddings swapped for scripted fakes (everything else is real: settings,
embedded Chroma, the sample ingest, SQLite thread memory). Any change that breaks the README's
code fails here, and so does output that no longer says what the README claims."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from selfrag.testing import HashEmbeddings, ScriptedChatModel
from tests.service.fake_server import lexical_rules
from workflows import Outcome

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def python_section_blocks() -> list[str]:
    section = README.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


def _context_line(messages: list[BaseMessage]) -> str:
    """The LCEL example's model: it says which context it was given (its first line)."""
    context = str(messages[0].content).split("\n", 1)[1]
    return f"From the context: {context.splitlines()[0]}"


@pytest.fixture
def fake_models(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel.from_rules({**lexical_rules(), "text": _context_line})
    for where in ("workflows.factory", "selfrag.providers"):
        monkeypatch.setattr(f"{where}.make_chat_model", lambda settings: model)
    monkeypatch.setattr("workflows.factory.make_embeddings", lambda settings: HashEmbeddings())


def test_the_python_section_has_the_quickstart_blocks() -> None:
    code = "\n".join(python_section_blocks())
    for needle in ("build_engine(", "engine.run(", "engine.stream(", "extras=", "resources=", "as_runnable(", "as_retriever(", "| prompt |"):
        assert needle in code, needle


def test_the_python_quickstart_runs(fake_models: None, capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, Any] = {"__name__": "readme"}
    for number, block in enumerate(python_section_blocks(), 1):
        exec(compile(block, f"README.md#python-{number}", "exec"), namespace)
    out = capsys.readouterr().out.splitlines()
    # ask: the dinosaur film, cited; answered, or shown flagged when the reader is not sure enough or
    # the critic does not find its short answer supported (the film's title is not in its text)
    assert out[0].split()[0] in ("answered", "unverified", "ungrounded") and "dinosaurs" in out[0]
    assert out[1] == "['jurassic-park']"
    # stream: nodes as they finish, then the answer
    assert "node retrieve" in out and "node check" in out
    assert next(line for line in out if line.startswith("answer ")).count("dinosaurs") >= 1
    # extras: the values, and the one that raised listed in the trace
    assert "1 [1993]" in out
    assert "[{'name': 'broken', 'error': 'ZeroDivisionError', 'message': 'division by zero'}]" in out
    # several resources: both searched, every citation naming its resource
    assert "['movies', 'filings'] ['movies']" in out
    # the Runnable
    assert any(line.endswith("1 ['jurassic-park']") for line in out)
    # every output a typed outcome with its answer (the reader's "Toys" for "which movie" is
    # rightly not supported: flagged, not answered)
    assert len(namespace["outputs"]) == 2 and all(o["outcome"] in {x.value for x in Outcome} and o["answer"]
                                                  for o in namespace["outputs"])
    assert "retrieve" in out  # a node chunk of chain.stream ...
    assert any("Toys come alive" in line for line in out)  # ... then its answer
    # the retriever: a self-queried filter, then the LCEL chain over its documents
    assert "[('jurassic-park', {'$and': [{'genre': {'$eq': 'science fiction'}}, {'year': {'$lt': 2000}}]})]" in out
    assert out[-1].startswith("From the context: ") and "dinosaurs" in out[-1]
