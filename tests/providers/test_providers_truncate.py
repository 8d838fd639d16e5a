"""Fitting a prompt into the context window (pure; tokens counted as words)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfrag.providers._messages import ChatDict
from selfrag.providers._truncate import MARKER, fit_messages


def words(text: str) -> int:
    return len(text.split())


def msg(role: str, n_words: int, word: str = "w") -> ChatDict:
    return ChatDict(role=role, content=" ".join(f"{word}{i}" for i in range(n_words)))


def total(msgs: list[ChatDict], per_message: int = 8) -> int:
    return sum(words(m["content"]) + per_message for m in msgs)


def test_fitting_prompt_is_untouched() -> None:
    msgs = [msg("system", 10), msg("user", 20)]
    out, report = fit_messages(msgs, 100, words)
    assert out == msgs and report is None


def test_old_turns_are_dropped_first_keeping_system_and_last() -> None:
    msgs = [msg("system", 10), msg("user", 50, "old"), msg("assistant", 50, "older"), msg("user", 20, "new")]
    out, report = fit_messages(msgs, 60, words)
    assert [m["role"] for m in out] == ["system", "user"]
    assert out[1]["content"].startswith("new0")
    assert report is not None and report.dropped_messages == 2 and report.cut_tokens == 0


def test_middle_of_longest_message_is_cut() -> None:
    msgs = [msg("system", 5), msg("user", 1000)]
    out, report = fit_messages(msgs, 200, words)
    assert total(out) <= 200
    user = out[1]["content"]
    assert MARKER in user
    assert user.startswith("w0 w1 ") and user.endswith("w998 w999")  # head and tail survive
    assert out[0] == msgs[0]
    assert report is not None and report.dropped_messages == 0 and report.cut_tokens > 800
    assert report.as_metadata() == {"dropped_messages": 0, "cut_tokens": report.cut_tokens, "budget": 200}


def test_impossible_budget_raises() -> None:
    with pytest.raises(ValueError):
        fit_messages([msg("system", 5), msg("user", 5)], 10, words)
    with pytest.raises(ValueError):
        fit_messages([msg("user", 5)], 0, words)


@settings(max_examples=150, deadline=None)
@given(
    sizes=st.lists(st.tuples(st.sampled_from(["system", "user", "assistant"]), st.integers(0, 400)), min_size=1, max_size=6),
    budget=st.integers(1, 800),
)
def test_result_fits_or_budget_was_hopeless(sizes: list[tuple[str, int]], budget: int) -> None:
    msgs = [msg(role, n) for role, n in sizes]
    try:
        out, _ = fit_messages(msgs, budget, words)
    except ValueError:
        kept = sum(1 for m in msgs[:-1] if m["role"] == "system") + 1
        assert budget < kept * (8 + words(MARKER))  # only when even marker-only messages would not fit
        return
    assert total(out) <= budget
    assert out[-1]["role"] == msgs[-1]["role"]
    assert sum(1 for m in out if m["role"] == "system") >= sum(1 for m in msgs[:-1] if m["role"] == "system")
