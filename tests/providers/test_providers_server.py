"""ChatOpenAI against llama-cpp-python's OpenAI-compatible server, running the bundled SmolLM2.

This is the "any OpenAI-compatible server" path with a real server. Found empirically:
the server rejects ``response_format`` of type ``json_schema`` (HTTP 500 wrapping a validation
error: only ``text`` / ``json_object``), so ``function_calling`` is the method to configure; it
ignores ``max_completion_tokens`` (hence the factory's ``extra_body`` ``max_tokens``).
"""

from __future__ import annotations

from typing import Literal

import openai
import pytest
from pydantic import BaseModel

from selfrag.providers import make_chat_model
from selfrag.settings import LLMSettings

pytestmark = pytest.mark.integration


class Verdict(BaseModel):
    verdict: Literal["yes", "no"]
    reason: str


def _settings(base_url: str, max_tokens: int = 96) -> LLMSettings:
    return LLMSettings(
        provider="openai", model="smollm2", base_url=base_url, max_tokens=max_tokens,
        structured_output_method="function_calling", timeout_s=60,
    )  # fmt: skip


def test_function_calling_gives_a_schema_valid_object(llama_server: str) -> None:
    model = make_chat_model(_settings(llama_server))
    result = model.with_structured_output(Verdict, method="function_calling").invoke(
        "Question: what do cats eat? Document: Cats eat fish. Is the document relevant?"
    )
    assert isinstance(result, Verdict)


def test_plain_invoke_respects_max_tokens(llama_server: str) -> None:
    reply = make_chat_model(_settings(llama_server, max_tokens=8)).invoke("Tell me a long story about a cat.")
    assert isinstance(reply.content, str) and reply.content
    assert reply.usage_metadata is not None and reply.usage_metadata["output_tokens"] <= 8


def test_json_schema_is_rejected_by_this_server(llama_server: str) -> None:
    model = make_chat_model(_settings(llama_server))
    with pytest.raises(openai.APIError, match="json_object"):
        model.with_structured_output(Verdict, method="json_schema").invoke("Is the sky blue?")


def test_the_engine_runs_through_the_server_with_function_calling(llama_server: str, tmp_path: object) -> None:
    """The whole graph against the OpenAI-compatible server: graders and self-query use tool calls."""
    import chromadb

    from selfrag.samples import ingest_sample
    from selfrag.settings import Settings
    from selfrag.store import Store, chroma_settings
    from selfrag.testing import HashEmbeddings
    from workflows import Outcome
    from workflows.factory import build_engine

    settings = Settings(home=tmp_path, llm=_settings(llama_server, max_tokens=128))  # type: ignore[arg-type]
    store = Store(chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chroma_settings()), HashEmbeddings())  # type: ignore[operator]
    ingest_sample(store, "movies")
    engine = build_engine(settings, store=store, memory=False)
    from workflows import RunOptions

    # Small budgets keep it quick: the point is the wiring, not the answer.
    options = RunOptions(max_rewrites=0, max_generations=1, top_k=2)
    result = engine.run("What's a movie about toys coming alive?", collection="movies", options=options)
    assert result.outcome in set(Outcome)
    relevance = list(result.trace.documents)
    assert relevance, "documents were retrieved and graded"
    # tool calling worked: at least one grade came back from the model, not from the failure policy
    assert any(not d["grade"]["failed"] for d in relevance), [d["grade"]["error"] for d in relevance]
    assert result.trace.llm.calls >= len(relevance)
