"""The judges of the judged metrics: the local trained critic, or any configured chat model.

Both are a ``selfrag.reading.Critic`` (``score(task, firsts, seconds)`` → probabilities, and a
``threshold`` per task), so the metrics (``eval.judged``) never know which one judges:

- ``local``: the shipped reader-critic's calibrated ISREL / ISSUP / ISUSE heads, offline. It is
  the same network the engine's graders use, but judged metrics ask it different questions
  (every answer sentence against every context, the reference against the contexts), and never
  see the engine's own verdicts.
- ``api``: the configured chat model (``settings.llm``) asked one yes/no question per pair with
  the prompts below (``PROMPT_VERSION`` names them in the manifest); yes is 1.0, no 0.0.

Judge calls are cached like grader calls: the chat judge through the LLM cache
(``eval.cache.with_cache``), the critic in ``judge.sqlite`` keyed by its weights' version, the
task and the pair, so a rerun of the same scoring costs no forward pass.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from selfrag.errors import UsageError
from selfrag.reading import Critic
from selfrag.settings import Settings

__all__ = ["JUDGE_KINDS", "PROMPT_VERSION", "CachedCritic", "ChatJudge", "describe_judge", "make_judge"]

PROMPT_VERSION = "judged-v1"
"""The version of the chat judge's prompts, and of how the metrics put their questions to a critic."""

_PROMPTS = {
    "relevance": "Is this passage relevant to answering the question?\nQuestion: {first}\nPassage: {second}",
    "support": "Does the passage state the claim (fully supported, nothing added)?\nClaim: {first}\nPassage: {second}",
    "usefulness": "Does the answer respond to the question (not off-topic, not a refusal)?\nQuestion: {first}\nAnswer: {second}",
}


class ChatJudge:
    """A ``Critic`` that asks a chat model one yes/no question per pair."""

    def __init__(self, model: BaseChatModel, *, name: str | None = None) -> None:
        self.model = model
        self._name = name or str(getattr(model, "model_name", "") or type(model).__name__)

    @property
    def name(self) -> str:
        return self._name

    @property
    def version(self) -> str:
        return f"{self._name}+{PROMPT_VERSION}"

    def score(self, task: str, firsts: list[str], seconds: list[str]) -> list[float]:
        out = []
        for first, second in zip(firsts, seconds, strict=True):
            prompt = _PROMPTS[task].format(first=first, second=second) + "\nReply with one word: yes or no."
            reply = self.model.invoke([HumanMessage(prompt)])
            text = str(reply.content).strip().lower()
            out.append(1.0 if text.startswith("yes") else 0.0)
        return out

    def threshold(self, key: str, default: float = 0.5) -> float:
        return 0.5


class CachedCritic:
    """A critic behind a SQLite cache of its scores (one row per judge version, task and pair)."""

    def __init__(self, critic: Critic, path: str | Path) -> None:
        self.critic = critic
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with sqlite3.connect(self.path) as db:
            db.execute("CREATE TABLE IF NOT EXISTS judge (key TEXT PRIMARY KEY, score REAL NOT NULL)")
        self.hits = 0
        self.misses = 0

    @property
    def name(self) -> str:
        return self.critic.name

    @property
    def version(self) -> str:
        return str(getattr(self.critic, "version", self.critic.name))

    def threshold(self, key: str, default: float = 0.5) -> float:
        return self.critic.threshold(key, default)

    def _key(self, task: str, first: str, second: str) -> str:
        raw = json.dumps([self.version, PROMPT_VERSION, task, first, second], ensure_ascii=False)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def score(self, task: str, firsts: list[str], seconds: list[str]) -> list[float]:
        keys = [self._key(task, f, s) for f, s in zip(firsts, seconds, strict=True)]
        with self._lock, sqlite3.connect(self.path) as db:
            found: dict[str, float] = {}
            for i in range(0, len(keys), 500):
                part = keys[i : i + 500]
                rows = db.execute(f"SELECT key, score FROM judge WHERE key IN ({','.join('?' * len(part))})", part)
                found.update({str(k): float(v) for k, v in rows})
        todo = [i for i, k in enumerate(keys) if k not in found]
        if todo:
            scores = self.critic.score(task, [firsts[i] for i in todo], [seconds[i] for i in todo])  # type: ignore[arg-type]
            with self._lock, sqlite3.connect(self.path) as db:
                db.executemany("INSERT OR REPLACE INTO judge (key, score) VALUES (?, ?)",
                               [(keys[i], s) for i, s in zip(todo, scores, strict=True)])
            found.update({keys[i]: s for i, s in zip(todo, scores, strict=True)})
        self.hits += len(keys) - len(todo)
        self.misses += len(todo)
        return [found[k] for k in keys]


def describe_judge(judge: Critic, kind: str) -> dict[str, Any]:
    """What the manifest records of a judge: its model, the prompt version, its cache."""
    return {"kind": kind, "model": str(getattr(judge, "version", judge.name)), "prompt_version": PROMPT_VERSION,
            "cache": str(judge.path) if isinstance(judge, CachedCritic) else None}


JUDGE_KINDS = ("local", "api", "none")


def make_judge(kind: str, settings: Settings, cache_dir: Path | None) -> tuple[Critic | None, dict[str, Any] | None]:
    """The judge ``kind`` names (``local``, ``api``, ``none``) behind its cache, and its manifest entry.

    Raises:
        UsageError: an unknown kind.
        ModelIntegrityError, ProviderError: the local critic's weights cannot be loaded.
    """
    if kind == "none":
        return None, None
    if kind == "local":
        from selfrag.reading import default_judge

        critic: Critic = default_judge()
        judge: Critic = CachedCritic(critic, cache_dir / "judge.sqlite") if cache_dir is not None else critic
        return judge, describe_judge(judge, "local")
    if kind == "api":
        from eval.cache import SQLiteLLMCache, with_cache
        from selfrag.providers import make_chat_model

        cache = SQLiteLLMCache(cache_dir / "llm.sqlite") if cache_dir is not None else None
        chat = ChatJudge(with_cache(make_chat_model(settings.llm), cache))
        info = describe_judge(chat, "api")
        info["cache"] = None if cache is None else str(cache.path)
        return chat, info
    raise UsageError(f"--judge must be one of {', '.join(JUDGE_KINDS)}, not {kind!r}")
