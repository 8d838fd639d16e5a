"""Query rewriting: a better search query when nothing relevant was found or the answer missed.

The LLM proposes; we normalise (one line, no quotes or "Rewritten query:" prefix, bounded length)
and check it stays on the question (``selfrag.query.anchor``: never a template artefact such as
``<question>``, never a text that shares too little with the question, by words or, with the
collection's embeddings, by meaning). If the proposal is unusable, a deterministic rewrite takes over: the question's content terms,
which strips the conversational wrapping that often hurts embedding search. Detecting that the
rewrite repeats an earlier query is the workflow's job (no progress stops the loop).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_core.messages import HumanMessage, SystemMessage

from selfrag.errors import describe
from selfrag.fencing import DATA_NOT_INSTRUCTIONS, fence
from selfrag.query.anchor import check_text
from selfrag.text import content_terms
from workflows._text_step import TextStep

__all__ = ["REWRITE_PROMPT_VERSION", "QueryRewriter", "Rewrite", "normalise_query"]

REWRITE_PROMPT_VERSION = "rewrite/v1"
_PREFIX = re.compile(r"^\s*(?:rewritten|improved|new|better|search)?\s*(?:search\s+)?query\s*[:\-]\s*", re.IGNORECASE)
_SYSTEM = (
    "You improve search queries for a semantic document search. Given a question and the query that "
    "failed to find useful documents, write one better search query: keep the key entities and "
    "terms, use synonyms or more specific wording, drop filler words. Reply with the query only, on "
    "one line. " + DATA_NOT_INSTRUCTIONS
)


def normalise_query(text: str) -> str:
    """Lowercased, whitespace-collapsed form used to detect a repeated query."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


@dataclass(frozen=True)
class Rewrite:
    query: str
    source: str
    """``llm`` or ``rules`` (deterministic fallback)."""
    error: str | None = None


class QueryRewriter(TextStep):
    """A better search query (the model, else the question's own content words)."""

    def rewrite(self, question: str, failed_query: str, reason: str) -> Rewrite:
        error = None
        if self.model is not None:
            msgs = [
                SystemMessage(_SYSTEM),
                HumanMessage(
                    f"{fence('question', question)}\nFailed query: {failed_query}\nWhy it failed: {reason}\n"
                    "Better search query:"
                ),
            ]
            try:
                proposal = self._clean(self.ask("rewrite", msgs, max_tokens=48))
                check = check_text(proposal, question, embeddings=self.embeddings)
                if proposal and check.ok:
                    return Rewrite(proposal, "llm")
                error = f"unusable rewrite: {check.reason}" if proposal else "empty or unusable rewrite"
            except Exception as exc:  # noqa: BLE001 - the deterministic rewrite takes over
                error = describe(exc, 200)
        return Rewrite(self._fallback(question, failed_query), "rules", error)

    @staticmethod
    def _clean(text: str) -> str:
        line = next((ln for ln in text.strip().splitlines() if ln.strip()), "")
        line = _PREFIX.sub("", line).strip().strip("\"'`").strip()
        if len(line) < 2 or len(line) > 300:
            return ""
        return line

    @staticmethod
    def _fallback(question: str, failed_query: str) -> str:
        # Keep the question's own words in order, minus stop words: different from a query that
        # was derived from it, and never invented.
        terms = content_terms(question)
        words = [w for w in re.findall(r"[\w'-]+", question) if any(t in w.lower() for t in terms)]
        candidate = " ".join(words) or question
        if normalise_query(candidate) == normalise_query(failed_query):
            candidate = question.strip()
        return candidate
