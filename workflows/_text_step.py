"""What the condenser and the rewriter share: ask the chat model for one line, or fall back to rules.

Both hold an optional model (None: rules only), a retry policy and the collection's embeddings
(to check a proposal stays on the question); both ask for a single short line and treat any
failure as "use the deterministic rule", recording why.
"""

from __future__ import annotations

from langchain_core.embeddings import Embeddings
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage

from selfrag.providers import for_task
from selfrag.retry import RetryPolicy, call_with_retries

__all__ = ["TextStep"]


class TextStep:
    """Base of a workflow step whose model writes one line of text."""

    def __init__(
        self, model: BaseChatModel | None, *, retry: RetryPolicy = RetryPolicy(attempts=2), embeddings: Embeddings | None = None
    ) -> None:
        self.model = model
        self.retry = retry
        self.embeddings = embeddings

    def ask(self, task: str, messages: list[BaseMessage], *, max_tokens: int) -> str:
        """The model's one-line reply for ``task`` (tagged, so fakes and traces know the task).

        Raises:
            Exception: whatever the model raised after the retries; callers fall back to rules.
        """
        model = self.model
        assert model is not None, "ask() needs a model; rules-only steps never call it"
        reply, _ = call_with_retries(
            lambda: model.invoke(messages, for_task(task), max_tokens=max_tokens, stop=["\n"]), self.retry
        )
        return str(reply.content)
