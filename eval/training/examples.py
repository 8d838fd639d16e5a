"""Training examples for the reader-critic, built from HaluEval and fitz-gov rows.

Everything here is deterministic given the rows and a seed, so a manifest (the rows' source
hashes, the seed, the examples' hash) pins the data a set of weights was trained on.

Reader examples (question, passage → answer kind, answer span, evidence sentence):
- HaluEval's right answer found in its passage: a ``span``; a right answer "yes"/"no": that kind;
- the question against another row's passage that shares the most words with it (a BM25 hard
  negative), and against its own passage with the answering sentence cut out: ``none``;
- fitz-gov questions whose contexts do not answer them: ``none``.

Critic examples (task, first text, second text → label):
- relevance (question, passage): its own passage, fitz-gov answering contexts (positive); a BM25
  neighbour or a random other passage, fitz-gov contexts on the right topic but the wrong aspect
  (negative);
- support (question + answer, or a claim alone, against a passage): the right answer and the
  sentence stating it (positive); the hallucinated answer, the right answer or sentence with a
  figure changed (a near miss: same words, another figure), another row's answer (negative);
- usefulness (question, answer): the right answer, the hallucinated one (it answers, if wrongly),
  the answering sentence (positive); another sentence of the passage, a non-answer, the question
  restated (negative).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from eval._halueval_source import HaluEvalRow
from eval.training.sources import FitzCase
from selfrag.reading.sentences import sentence_spans

__all__ = ["CriticExample", "ReaderExample", "build_critic", "build_reader", "examples_hash", "find_answer",
           "yes_no_examples"]

_NON_ANSWERS = (
    "I don't know.", "The documents do not say.", "There is no information about that.",
    "I cannot answer that from the documents.", "It is not stated.",
)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class ReaderExample:
    question: str
    passage: str
    kind: str
    """``span``, ``yes``, ``no`` or ``none``."""
    start: int = -1
    """Character offset of the answer in ``passage`` (span only)."""
    end: int = -1
    evidence: tuple[int, int] | None = None
    """Character span of the sentence stating the answer; None: unknown (not trained)."""


@dataclass(frozen=True)
class CriticExample:
    task: str
    first: str
    second: str
    label: int


def find_answer(answer: str, passage: str) -> tuple[int, int] | None:
    """Where ``answer`` occurs in ``passage`` (case-insensitive, a trailing period or a leading
    article forgiven), as character offsets; None if it does not."""
    low = passage.lower()
    candidates = [answer.strip(), answer.strip().rstrip(".")]
    for art in ("the ", "a ", "an "):
        if candidates[1].lower().startswith(art):
            candidates.append(candidates[1][len(art):])
    for cand in candidates:
        if len(cand) < 1:
            continue
        i = low.find(cand.lower())
        if i >= 0:
            return i, i + len(cand)
    return None


def _sentence_at(passage: str, pos: int) -> tuple[int, int] | None:
    for s in sentence_spans(passage):
        if s.start <= pos < s.end:
            return s.start, s.end
    return None


def _near_miss(text: str, rng: random.Random) -> str | None:
    """``text`` with one figure changed: the same words stating another figure."""
    found = list(_NUMBER.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    digits = m.group().replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return None
    if "." in digits:
        new = f"{value * rng.choice((0.5, 1.5, 2.0)) + 1:.{len(digits.split('.')[1])}f}"
    elif 1800 <= value <= 2100 and len(digits) == 4:
        new = str(int(value) + rng.choice((-3, -2, -1, 1, 2, 5)))
    else:
        new = f"{int(value * rng.choice((2, 3, 10)) + rng.randint(1, 9)):,}" if value >= 1000 else str(int(value) + rng.randint(1, 9))
    return text[: m.start()] + new + text[m.end():]


def _neighbours(rows: Sequence[HaluEvalRow]) -> list[int]:
    """For each row, the other row whose passage best matches its question (BM25)."""
    import bm25s

    corpus = [r.knowledge for r in rows]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    found, _ = retriever.retrieve(bm25s.tokenize([r.question for r in rows], stopwords="en", show_progress=False),
                                  k=2, show_progress=False)
    out = []
    for i, pair in enumerate(found.tolist()):
        out.append(next((j for j in pair if j != i), (i + 1) % len(rows)))
    return out


def build_reader(rows: Sequence[HaluEvalRow], fitz: Sequence[FitzCase], seed: int) -> list[ReaderExample]:
    rng = random.Random(seed)
    near = _neighbours(rows)
    out: list[ReaderExample] = []
    for i, row in enumerate(rows):
        answer = row.right_answer.strip()
        low = answer.lower().rstrip(".")
        if low in ("yes", "no"):
            out.append(ReaderExample(row.question, row.knowledge, low))
        else:
            found = find_answer(answer, row.knowledge)
            if found is not None:
                sent = _sentence_at(row.knowledge, found[0])
                out.append(ReaderExample(row.question, row.knowledge, "span", found[0], found[1], sent))
                # The same passage with the answering sentence cut out: on topic, no answer.
                if sent is not None and rng.random() < 0.3:
                    cut = (row.knowledge[: sent[0]] + row.knowledge[sent[1]:]).strip()
                    if len(cut.split()) >= 12 and find_answer(answer, cut) is None:
                        out.append(ReaderExample(row.question, cut, "none", evidence=(0, 0)))
        if rng.random() < 0.3:
            other = rows[near[i]].knowledge
            if find_answer(answer, other) is None:
                out.append(ReaderExample(row.question, other, "none", evidence=(0, 0)))
    for case in fitz:
        if not case.answerable:
            out.append(ReaderExample(case.query, " ".join(case.contexts), "none", evidence=(0, 0)))
    rng.shuffle(out)
    return out


def yes_no_examples(rows: Sequence[HaluEvalRow]) -> list[ReaderExample]:
    """The rows whose right answer is yes or no, with their passage: the yes/no calibration set."""
    out = []
    for row in rows:
        low = row.right_answer.strip().lower().rstrip(".")
        if low in ("yes", "no"):
            out.append(ReaderExample(row.question, row.knowledge, low))
    return out


def build_critic(rows: Sequence[HaluEvalRow], fitz: Sequence[FitzCase], seed: int) -> list[CriticExample]:
    rng = random.Random(seed + 1)
    near = _neighbours(rows)
    out: list[CriticExample] = []

    def add(task: str, first: str, second: str, label: int) -> None:
        if first.strip() and second.strip():
            out.append(CriticExample(task, first.strip(), second.strip(), label))

    for i, row in enumerate(rows):
        q, passage, right, wrong = row.question, row.knowledge, row.right_answer.strip(), row.hallucinated_answer.strip()
        other = rows[near[i]]
        found = find_answer(right, passage)
        sent_span = _sentence_at(passage, found[0]) if found else None
        sentence = passage[sent_span[0]:sent_span[1]] if sent_span else None
        sentences = [s.text for s in sentence_spans(passage)]
        # relevance: a BM25 neighbour (hard) or any other row's passage (easy), half and half, so
        # the head learns the easy contrast before the hard one
        add("relevance", q, passage, 1)
        negative = other if rng.random() < 0.5 else rows[rng.randrange(len(rows))]
        if negative is not row and find_answer(right, negative.knowledge) is None:
            add("relevance", q, negative.knowledge, 0)
        # support: question + answer against the passage, and claims alone
        add("support", f"{q} {right}", passage, 1)
        add("support", f"{q} {wrong}", passage, 0)
        if rng.random() < 0.5:
            wrong_row = rows[rng.randrange(len(rows))]
            if wrong_row.right_answer.strip().lower() != right.lower() and find_answer(wrong_row.right_answer, passage) is None:
                add("support", f"{q} {wrong_row.right_answer}", passage, 0)
        missed = _near_miss(right, rng)
        if missed is not None and find_answer(missed, passage) is None:
            add("support", f"{q} {missed}", passage, 0)
        if sentence is not None:
            add("support", sentence, passage, 1)
            changed = _near_miss(sentence, rng)
            if changed is not None:
                add("support", changed, passage, 0)
            if rng.random() < 0.5:
                add("support", sentence, other.knowledge, 0)
        if rng.random() < 0.3:
            add("support", f"{q} {right}", other.knowledge, 0 if find_answer(right, other.knowledge) is None else 1)
        # usefulness
        add("usefulness", q, right, 1)
        if rng.random() < 0.5:
            add("usefulness", q, wrong, 1)
        if sentence is not None:
            add("usefulness", q, sentence, 1)
            rest = [s for s in sentences if s != sentence and find_answer(right, s) is None]
            if rest:
                add("usefulness", q, rng.choice(rest), 0)
        if rng.random() < 0.25:
            add("usefulness", q, rng.choice(_NON_ANSWERS), 0)
        if rng.random() < 0.15:
            add("usefulness", q, q.rstrip("?") + ".", 0)
    for case in fitz:
        joined = " ".join(case.contexts)
        add("relevance", case.query, joined, int(case.answerable))
        add("usefulness", case.query, case.contexts[0], int(case.answerable))
    rng.shuffle(out)
    return out


def examples_hash(reader: Sequence[ReaderExample], critic: Sequence[CriticExample]) -> str:
    digest = hashlib.sha256()
    for ex in reader:
        digest.update(json.dumps(asdict(ex), sort_keys=True).encode())
    for cx in critic:
        digest.update(json.dumps(asdict(cx), sort_keys=True).encode())
    return digest.hexdigest()
