"""How the local encoder's batching changes its throughput (all-MiniLM-L6-v2 on this CPU).

Usage: .venv/bin/python bench/encoder_batch.py [--repeat 3] [--texts 400] [--counts 8,16,32,64]
                                               [--budgets 1024,2048,4096] [--pass-texts 64]
                                               [--reference "count 64"]
                                               [--out bench/results/encoder-batch/batching.json]

Encodes the same texts with each candidate and reports throughput relative to ``--reference``
(``batch_size=64``, the default before this bench; ``count 16`` is ``bench/ingest_speed.py``'s raw
encoder). Candidates:

- ``count N``: ``SentenceTransformer.encode(texts, batch_size=N)``: the encoder's own length
  sorting (by characters), N texts a forward pass, each pass padded to its longest text;
- ``tokens T texts M``: what ``LocalEmbeddings`` does with ``max_batch_tokens=T`` and
  ``max_batch_texts=M`` (``--budgets`` × ``--pass-texts``): texts tokenized once and sorted by
  their token count, each forward pass as many texts as fit in T padded tokens, at most M;
- ``encode passes T texts M`` (``--encode-passes T:M,...``): the same passes, made the way
  ``LocalEmbeddings`` made them before session 11: texts tokenized to count their tokens, then
  each pass handed to ``SentenceTransformer.encode``, which tokenizes it again.

Two text sets, since the best batch depends on sequence length (activations grow with texts ×
tokens): *mixed*, the chunks of ``bench/ingest_speed.py``'s generated folders (one sentence to a
full chunk; median ~75 tokens), and *full*, chunks of long generated documents (nearly all a full
``chunk_size`` chunk, ~200 tokens). Every round runs each candidate once on each set, in an order
that rotates, so all see the same load; the figures are ratios of total times and the median of
the per-round ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest_speed import write_corpus  # noqa: E402


def _chunks(folder: Path, docs: int, sentences: int | None) -> list[str]:
    from selfrag.ingest.files import collect_files
    from selfrag.ingest.prepare import read_inputs
    from selfrag.schema import CollectionSchema

    folder.mkdir(parents=True)
    if sentences is None:
        write_corpus(folder, docs)
    else:
        write_corpus(folder, docs, seed=11)
        for path in folder.iterdir():  # long documents: every chunk but the last is full size
            path.write_text(" ".join([path.read_text(encoding="utf-8")] * sentences), encoding="utf-8")
    batch = read_inputs(CollectionSchema(), collect_files([folder], root=folder.parent))
    return [c.text for d in batch.documents for c in d.chunks]


def _encode_passes(model: Any, texts: list[str], budget: int, most: int) -> list[Any]:
    """Token-sorted passes through ``SentenceTransformer.encode`` (``LocalEmbeddings`` before session 11)."""
    tokens = [len(i) for i in model.tokenizer(texts, truncation=True, max_length=model.max_seq_length)["input_ids"]]
    order = sorted(range(len(texts)), key=lambda i: -tokens[i])
    out: list[Any] = [None] * len(texts)
    start = 0
    while start < len(order):
        part = order[start : start + max(1, min(most, budget // max(1, tokens[order[start]])))]
        vectors = model.encode([texts[i] for i in part], batch_size=len(part), normalize_embeddings=True,
                               show_progress_bar=False)
        for i, vector in zip(part, vectors, strict=True):
            out[i] = vector
        start += len(part)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--texts", type=int, default=400, help="texts per set")
    parser.add_argument("--counts", default="8,16,32,64")
    parser.add_argument("--budgets", default="1024,2048,4096")
    parser.add_argument("--pass-texts", default="64", help="LocalEmbeddings max_batch_texts values")
    parser.add_argument("--encode-passes", default="", help="T:M,... token-sorted passes through encode")
    parser.add_argument("--reference", default="count 64", help="the candidate others are compared with")
    parser.add_argument("--out", type=Path, default=Path("bench/results/encoder-batch/batching.json"))
    args = parser.parse_args()

    from selfrag.providers.embeddings import MINILM_SHA256, LocalEmbeddings, _load, default_minilm_dir

    work = Path(tempfile.mkdtemp(prefix="selfrag-encoder-batch-"))
    sets = {"mixed": _chunks(work / "mixed", 300, None)[: args.texts],
            "full": _chunks(work / "full", 60, 8)[: args.texts]}
    model = _load(default_minilm_dir(), MINILM_SHA256).model
    tokens = {name: [len(ids) for ids in model.tokenizer(texts, truncation=True, max_length=model.max_seq_length)["input_ids"]]
              for name, texts in sets.items()}
    model.encode(["warm up"], show_progress_bar=False)

    candidates: dict[str, Callable[[list[str]], Any]] = {}
    for n in (int(x) for x in args.counts.split(",") if x):
        candidates[f"count {n}"] = lambda texts, n=n: model.encode(
            texts, batch_size=n, normalize_embeddings=True, show_progress_bar=False)
    for t in (int(x) for x in args.budgets.split(",") if x):
        for m in (int(x) for x in args.pass_texts.split(",") if x):
            candidates[f"tokens {t} texts {m}"] = LocalEmbeddings(max_batch_tokens=t, max_batch_texts=m).embed_documents
    for spec in (x for x in args.encode_passes.split(",") if x):
        t, m = (int(v) for v in spec.split(":"))
        candidates[f"encode passes {t} texts {m}"] = lambda texts, t=t, m=m: _encode_passes(model, texts, t, m)
    reference = args.reference
    if reference not in candidates:
        raise SystemExit(f"--reference {reference!r} is not among the candidates: {', '.join(candidates)}")

    times: dict[str, dict[str, list[float]]] = {s: {c: [] for c in candidates} for s in sets}
    names = list(candidates)
    for rep in range(args.repeat):
        for k, (set_name, texts) in enumerate(sets.items()):
            shift = (rep * len(sets) + k) % len(names)
            for name in names[shift:] + names[:shift]:
                start = time.perf_counter()
                candidates[name](texts)
                times[set_name][name].append(time.perf_counter() - start)
            ref = times[set_name][reference]
            print(f"round {rep + 1} {set_name}: " + ", ".join(
                f"{c} {ref[-1] / v[-1]:.2f}" for c, v in times[set_name].items()), flush=True)

    result: dict[str, Any] = {"command": "bench/encoder_batch.py " + " ".join(sys.argv[1:]),
                              "threads": __import__("torch").get_num_threads(), "sets": {}}
    for set_name, per in times.items():
        ref = per[reference]
        result["sets"][set_name] = {
            "texts": len(sets[set_name]),
            "tokens_p50": statistics.median(tokens[set_name]), "tokens_max": max(tokens[set_name]),
            "texts_per_s": {c: round(len(sets[set_name]) * len(v) / sum(v), 1) for c, v in per.items()},
            "reference": reference,
            "speed_vs_reference_total": {c: round(sum(ref) / sum(v), 3) for c, v in per.items()},
            "speed_vs_reference_p50": {c: round(statistics.median(r / x for r, x in zip(ref, v, strict=True)), 3)
                                       for c, v in per.items()},
        }
    print(json.dumps(result, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
