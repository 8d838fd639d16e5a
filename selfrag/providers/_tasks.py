"""Which task a free-text model call serves, said by the caller rather than guessed from its prompt.

Structured calls are named by their output schema (``RelevanceGrade``, ...); free-text calls
(``generate``, ``rewrite``, ``condense``) carry their task in the run's metadata. Callbacks and
traces see it, the provider never does (it is not a model parameter, so it does not change an LLM
cache key either), and ``selfrag.testing.ScriptedChatModel`` scripts replies by it.

    reply = model.invoke(messages, for_task("rewrite"), max_tokens=48)
"""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig

__all__ = ["TASK_METADATA_KEY", "for_task"]

TASK_METADATA_KEY = "selfrag_task"
"""The run-metadata key holding a call's task name."""


def for_task(task: str) -> RunnableConfig:
    """The run config of a model call serving ``task``."""
    return {"metadata": {TASK_METADATA_KEY: task}}
