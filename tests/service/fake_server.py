"""A real selfrag service whose chat model is scripted: deterministic answers for any corpus.

Used in-process by the service tests (``scripted_app``) and as a separate process by the
scale-out test and ``bench/load.py`` (``python tests/service/fake_server.py --port N``): the
store and checkpoints come from the settings exactly as in production (embedded or Chroma
server, SQLite or Postgres), only the chat model and embeddings are fakes.

The script is lexical, so it works on any documents: a document is relevant when it shares a
content word with the question; the answer quotes the first relevant document's first sentence
with a [1] marker; answers are grounded and useful; a rewrite drops the question's first word.
A question containing ``SLOW:<seconds>`` makes generation sleep (deadline and disconnect tests).
"""

from __future__ import annotations

import argparse
import re
import time
from typing import Any

from langchain_core.messages import BaseMessage

from selfrag.kg import GraphContexts, open_graph_store
from selfrag.reading import Reading, sentence_spans
from selfrag.settings import Settings, load_settings
from selfrag.store import Store, StoreUse
from selfrag.testing import HashEmbeddings, ScriptedChatModel, ScriptedJudge, verdict
from workflows import Components, SelfRagEngine
from workflows.checkpoints import turn_locks
from workflows.factory import open_checkpointer

_STOP = {"the", "a", "an", "of", "in", "on", "is", "are", "was", "what", "which", "who", "how", "did", "does", "do",
         "and", "or", "to", "for", "about", "with", "by", "from", "it", "that", "this", "when", "where", "why"}
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def _between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[-1].split(end, 1)[0]


def lexical_rules() -> dict[str, Any]:
    def relevance(messages: list[BaseMessage]) -> str:
        prompt = str(messages[-1].content)
        question = _between(prompt, "<question>", "</question>")
        doc = _between(prompt, "<document>", "</document>")
        return verdict("relevant" if _words(question) & _words(doc) else "irrelevant")

    def generate(messages: list[BaseMessage]) -> str:
        prompt = str(messages[-1].content)
        slow = re.search(r"SLOW:(\d+(?:\.\d+)?)", prompt)
        if slow:
            time.sleep(float(slow.group(1)))
        body = _between(prompt, '<document number="1">', "</document>").strip()
        sentence = re.split(r"(?<=[.!?])\s", body.split("\n", 1)[0].strip())[0]
        return f"{sentence.strip()} [1]"

    def rewrite(messages: list[BaseMessage]) -> str:
        prompt = str(messages[-1].content)
        question = _between(prompt, "<question>", "</question>").strip() or prompt
        return " ".join(question.split()[1:]) or question

    def condense(messages: list[BaseMessage]) -> str:
        # the follow-up is taken as already standalone
        return _between(str(messages[-1].content), "<question>", "</question>").strip()

    return {
        "RelevanceGrade": relevance,
        "GroundednessGrade": verdict("grounded"),
        "UsefulnessGrade": verdict("useful"),
        "generate": generate,
        "rewrite": rewrite,
        "condense": condense,
    }


def lexical_reading(question: str, passages: list[str]) -> Reading:
    """A scripted reader: the first sentence (not a heading) sharing a word with the question."""
    for n, text in enumerate(passages):
        for s in sentence_spans(text):
            if not s.text.startswith("#") and _words(question) & _words(s.text):
                return Reading("span", s.text, n, s.start, s.end, ((s.start, s.end),), 0.0, 0.9)
    return Reading("none", "", -1)


def scripted_engine(settings: Settings, store: Store, *, memory: bool = True) -> SelfRagEngine:
    model = ScriptedChatModel.from_rules(lexical_rules())
    components = Components.from_model(model, store, self_query_mode="rules", parallel_checks=False,
                                       judge=ScriptedJudge(read=lexical_reading))
    # As build_components does: the graph store (embedded, or graph.url) opens on first use.
    components.graphs = GraphContexts(lambda: open_graph_store(settings.home, settings.graph.url))
    return SelfRagEngine(
        components, checkpointer=open_checkpointer(settings) if memory else None, turn_locks=turn_locks(settings)
    )


def scripted_store(settings: Settings, use: StoreUse | None = None) -> Store:
    return Store.from_settings(settings, HashEmbeddings(), use=use)


def main() -> None:
    import uvicorn

    from selfrag.service import create_app

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    settings = load_settings()
    store = scripted_store(settings, StoreUse("selfrag serve (scripted)", url=f"http://{args.host}:{args.port}"))
    app = create_app(settings, engine=scripted_engine(settings, store), store=store)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
