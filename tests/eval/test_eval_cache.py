"""The SQLite LLM cache: hits, misses, what is (not) stored, persistence, threads, scoping."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import BaseModel

from eval.cache import SQLiteLLMCache, cache_usage, model_fingerprint, with_cache
from selfrag.providers import LocalChatModel
from selfrag.testing import ScriptedChatModel


class Verdict(BaseModel):
    verdict: str


class Verdict2(BaseModel):  # a changed output schema
    verdict: str
    reason: str = ""


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[SQLiteLLMCache]:
    with SQLiteLLMCache(tmp_path / "llm.sqlite") as c:
        yield c


def test_a_second_identical_call_is_served_from_the_cache(cache: SQLiteLLMCache) -> None:
    model = with_cache(ScriptedChatModel.from_rules({"text": "hello"}), cache)
    assert model.invoke("hi").content == "hello"
    assert model.invoke("hi").content == "hello"
    assert len(model.calls) == 1
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 1)


def test_a_changed_prompt_misses(cache: SQLiteLLMCache) -> None:
    model = with_cache(ScriptedChatModel.from_rules({"text": "hello"}), cache)
    model.invoke("hi")
    model.invoke("hi, again")
    assert len(model.calls) == 2 and cache.hits == 0


def test_structured_output_is_cached_and_keyed_by_its_schema(cache: SQLiteLLMCache) -> None:
    model = with_cache(ScriptedChatModel.from_rules({"Verdict": '{"verdict": "yes"}', "Verdict2": '{"verdict": "no"}'}), cache)
    assert model.with_structured_output(Verdict).invoke("q") == Verdict(verdict="yes")
    assert model.with_structured_output(Verdict).invoke("q") == Verdict(verdict="yes")
    assert len(model.calls) == 1
    # same prompt, another schema (bound as response_format, part of llm_string): recomputed
    assert model.with_structured_output(Verdict2).invoke("q").verdict == "no"
    assert [c.task for c in model.calls] == ["Verdict", "Verdict2"]


def test_an_exception_is_not_cached(cache: SQLiteLLMCache) -> None:
    model = with_cache(ScriptedChatModel.from_rules({"text": [RuntimeError("provider down"), "recovered"]}), cache)
    with pytest.raises(RuntimeError, match="provider down"):
        model.invoke("hi")
    assert len(cache) == 0
    assert model.invoke("hi").content == "recovered"  # the model was asked again
    assert model.invoke("hi").content == "recovered"  # and now it is cached
    assert len(model.calls) == 2 and cache.hits == 1


def test_replies_persist_across_cache_instances(tmp_path: Path) -> None:
    path = tmp_path / "llm.sqlite"
    with SQLiteLLMCache(path) as first:
        with_cache(ScriptedChatModel.from_rules({"text": "stored"}), first).invoke("hi")
    with SQLiteLLMCache(path) as second:
        fresh = with_cache(ScriptedChatModel.from_rules({}), second)  # any call would raise KeyError
        reply = fresh.invoke("hi")
        assert reply.content == "stored"
        assert reply.usage_metadata is not None and reply.usage_metadata["total_tokens"] > 0
        assert fresh.calls == [] and second.hits == 1


def test_clear_empties_the_cache_and_resets_counters(cache: SQLiteLLMCache) -> None:
    model = with_cache(ScriptedChatModel.from_rules({"text": "x"}), cache)
    model.invoke("a")
    model.invoke("a")
    cache.clear()
    assert (len(cache), cache.hits, cache.misses) == (0, 0, 0)
    model.invoke("a")
    assert len(model.calls) == 2


def test_usage_is_counted_per_block_and_across_threads(cache: SQLiteLLMCache) -> None:
    model = with_cache(ScriptedChatModel.from_rules({"text": lambda msgs: f"echo {msgs[-1].content}"}), cache)
    prompts = [f"p{i}" for i in range(40)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        first = list(pool.map(lambda p: model.invoke(p).content, prompts))
    with cache_usage() as used, ThreadPoolExecutor(max_workers=8) as pool:
        second = list(pool.map(lambda p: model.invoke(p).content, prompts))
    assert first == second == [f"echo {p}" for p in prompts]
    assert len(model.calls) == 40 and len(cache) == 40
    assert (cache.hits, cache.misses) == (40, 40)
    # pool threads do not inherit the block's context: only lookups made inside it count
    assert used.hits == 0
    with cache_usage() as inside:
        model.invoke("p1")
    assert (inside.hits, inside.misses) == (1, 0) and inside.cached_tokens > 0


def test_models_with_different_settings_do_not_share_replies(cache: SQLiteLLMCache) -> None:
    a = with_cache(ScriptedChatModel.from_rules({"text": "from a"}), cache)
    b = with_cache(ScriptedChatModel(script=lambda task, msgs: "from b", model_name="other"), cache)
    assert a.invoke("hi").content == "from a"
    assert b.invoke("hi").content == "from b"


def test_fingerprint_covers_what_the_local_models_llm_string_omits() -> None:
    # LocalChatModel reports model name, n_ctx and temperature only; max_tokens and seed change replies too
    assert model_fingerprint(LocalChatModel(max_tokens=64)) != model_fingerprint(LocalChatModel(max_tokens=512))
    assert model_fingerprint(LocalChatModel(seed=1)) != model_fingerprint(LocalChatModel(seed=2))
    assert model_fingerprint(LocalChatModel(n_threads=1)) == model_fingerprint(LocalChatModel(n_threads=4))


def test_with_cache_none_leaves_the_model_alone() -> None:
    model = ScriptedChatModel.from_rules({"text": "x"})
    assert with_cache(model, None).cache is None
