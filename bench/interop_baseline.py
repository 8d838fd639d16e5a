"""A deliberately simple baseline for ``bench/results/eval-interop``: embed the corpus, take the
top passage for each question, answer with its first sentence. No reader, no checks, no abstention.

Writes a predictions file (``eval.predictions.Prediction`` rows) that ``selfrag eval score`` reads,
so the harness scores a system that is not selfrag.

    python bench/interop_baseline.py data/halueval-test/e2e.jsonl data/halueval-test/documents.jsonl out.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from eval.datasets import load_documents, load_e2e
from selfrag.providers import make_embeddings
from selfrag.reading import split_sentences
from selfrag.settings import EmbeddingSettings


def main(dataset: Path, documents: Path, out: Path) -> None:
    cases = load_e2e(dataset)
    docs = load_documents(documents)
    embed = make_embeddings(EmbeddingSettings())
    doc_vectors = embed.embed_documents([d.text for d in docs])
    question_vectors = embed.embed_documents([c.question for c in cases])
    rows = []
    for case, q in zip(cases, question_vectors, strict=True):
        # all-MiniLM-L6-v2's vectors are unit length: the dot product is the cosine
        best = max(range(len(docs)), key=lambda i: sum(a * b for a, b in zip(q, doc_vectors[i], strict=True)))
        passage = docs[best].text
        first = next((s for s in split_sentences(passage) if s.strip()), passage)
        rows.append({"id": case.id, "question": case.question, "answer": first.strip(), "contexts": [passage],
                     "meta": {"top_document": docs[best].id}})
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
