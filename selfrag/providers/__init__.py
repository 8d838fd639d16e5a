"""Chat models and embeddings: the embedded offline defaults and the OpenAI-compatible ones.

Build them from settings with ``make_chat_model`` / ``make_embeddings``; the rest of selfrag only
sees LangChain's ``BaseChatModel`` and ``Embeddings``, and tests swap in ``selfrag.testing`` fakes.
Heavy libraries (llama-cpp, sentence-transformers, langchain-openai) are imported on first use.
"""

from selfrag.providers._structured import JsonSchemaStructuredOutput, parse_structured
from selfrag.providers._tasks import TASK_METADATA_KEY, for_task
from selfrag.providers.embeddings import (
    MINILM_DIMENSION,
    MINILM_SHA256,
    LocalEmbeddings,
    default_minilm_dir,
    verify_sha256,
)
from selfrag.providers.factory import describe, make_chat_model, make_embeddings
from selfrag.providers.local_chat import SMOLLM2_FILE, LocalChatModel, default_model_path

__all__ = [
    "MINILM_DIMENSION",
    "MINILM_SHA256",
    "SMOLLM2_FILE",
    "TASK_METADATA_KEY",
    "JsonSchemaStructuredOutput",
    "LocalChatModel",
    "LocalEmbeddings",
    "default_minilm_dir",
    "default_model_path",
    "describe",
    "for_task",
    "make_chat_model",
    "make_embeddings",
    "parse_structured",
    "verify_sha256",
]
