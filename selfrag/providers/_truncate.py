"""Make a chat prompt fit a small context window instead of crashing in llama.cpp.

llama.cpp refuses a prompt longer than ``n_ctx`` outright, and a Self-RAG prompt can grow past
SmolLM2's window once retrieved documents are pasted in. Losing some text is better than losing
the answer, so, in order:

1. drop whole messages from the middle of the conversation, oldest first, always keeping the
   system messages and the last message (the question being asked);
2. cut the middle out of the longest remaining message, keeping its head and its tail (prompts
   usually put instructions first and the question last), marked with ``[…]``.

The token counter is injected, so this is a pure function tested with a word counter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from selfrag.providers._messages import ChatDict

__all__ = ["MARKER", "Truncation", "fit_messages"]

MARKER = "\n[…]\n"
"""Stands in for text cut from the middle of a message, so the model sees that something is missing."""

_MAX_CUTS = 32


class Truncation(NamedTuple):
    """What ``fit_messages`` removed; recorded in the reply's ``response_metadata``."""

    dropped_messages: int
    """Whole messages dropped from the middle of the conversation."""
    cut_tokens: int
    """Tokens cut from the middle of long messages (net of the markers added)."""
    budget: int
    """The prompt budget in tokens that the messages had to fit."""

    def as_metadata(self) -> dict[str, int]:
        return self._asdict()


def _cut_middle(text: str, n_tokens: int, excess: int, marker_tokens: int) -> str:
    """Remove roughly ``excess`` tokens (plus room for the marker) from the middle of ``text``."""
    keep_tokens = n_tokens - excess - marker_tokens
    if keep_tokens <= 0:
        return MARKER.strip()
    chars_per_token = len(text) / n_tokens
    keep_chars = int(keep_tokens * chars_per_token * 0.95)  # token density varies; undershoot a little
    head = keep_chars // 2
    tail = keep_chars - head
    return text[:head] + MARKER + (text[-tail:] if tail else "")


def fit_messages(
    messages: Sequence[ChatDict], budget: int, count: Callable[[str], int], *, per_message: int = 8
) -> tuple[list[ChatDict], Truncation | None]:
    """Return messages whose token count (``count`` of each content + ``per_message``) fits ``budget``.

    Args:
        messages: the conversation, oldest first.
        budget: tokens available for the prompt (context size minus the reply's budget).
        count: the model's tokenizer, as a function text → number of tokens.
        per_message: tokens the chat template adds around each message.

    Returns:
        The (possibly shortened) messages and a ``Truncation`` record, or None when nothing was cut.

    Raises:
        ValueError: the budget cannot hold even the system messages and the last message's frame.
    """
    if budget <= 0:
        raise ValueError(f"no room for the prompt (budget {budget} tokens)")
    msgs = [ChatDict(role=m["role"], content=m["content"]) for m in messages]
    costs = [count(m["content"]) + per_message for m in msgs]
    if sum(costs) <= budget:
        return msgs, None

    dropped = 0
    while sum(costs) > budget:
        droppable = [i for i in range(len(msgs) - 1) if msgs[i]["role"] != "system"]
        if not droppable:
            break
        msgs.pop(droppable[0])
        costs.pop(droppable[0])
        dropped += 1

    cut = 0
    marker_tokens = count(MARKER)
    for _ in range(_MAX_CUTS):
        excess = sum(costs) - budget
        if excess <= 0:
            break
        longest = max(range(len(msgs)), key=lambda i: costs[i])
        text = msgs[longest]["content"]
        n_tokens = costs[longest] - per_message
        if n_tokens <= marker_tokens:
            break  # nothing left worth cutting
        shorter = _cut_middle(text, n_tokens, excess, marker_tokens)
        new_tokens = count(shorter)
        if new_tokens >= n_tokens:  # short texts: the marker costs what the cut saved
            shorter = MARKER.strip()
            new_tokens = count(shorter)
            if new_tokens >= n_tokens:
                break
        msgs[longest] = ChatDict(role=msgs[longest]["role"], content=shorter)
        costs[longest] = new_tokens + per_message
        cut += n_tokens - new_tokens
    if sum(costs) > budget:
        raise ValueError(f"the prompt cannot be cut down to {budget} tokens")
    return msgs, Truncation(dropped_messages=dropped, cut_tokens=cut, budget=budget)
