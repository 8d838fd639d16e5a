"""HaluEval QA rows → end-to-end cases, a shared corpus and paired grader cases.

Each selected row gives one positive and one negative case per grader kind:

- groundedness: the passage with the right answer (grounded) and with HaluEval's hallucinated
  answer (not grounded);
- relevance: the question with its own passage, and with another row's passage;
- usefulness: the question with its right answer, and with another row's right answer.

Negatives borrowed from "another row" come from the same split of the whole readable file (rows
above 6000 are reserved and never parsed: ``RESERVED_FROM``), so a dev case never shows a test
passage and a row's cases do not depend on which other rows were
selected. Each row draws from its own RNG (seeded by ``seed``, the row and the kind), so
importing rows 1–50 and 1–200 gives the same cases for rows 1–50. A borrowed negative is
rejected if it could really be a positive: the same passage or answer (HotpotQA repeats
passages, and many answers are "yes"/"no"), a passage containing the right answer, or an
answer that contains, or is contained in, the right one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from eval._halueval_source import RESERVED_FROM, HaluEvalRow
from eval.datasets import Document, E2ECase, GraderCase, Split

__all__ = ["DEV_ROWS", "RESERVED_FROM", "SOURCE", "HaluEvalSets", "build_sets", "document_id", "space_joined_sentences", "split_of"]

DEV_ROWS = (1, 2000)
"""1-based inclusive rows of the dev split (tune on these only); every later row is test."""
SOURCE = "HaluEval QA"

# HaluEval concatenates HotpotQA sentences without a space ("19th century.First for Women").
# A period glued to a capitalised word, or to a capital then a space, is such a join; the
# lookbehind leaves ellipses and "U.S. " alone. A few abbreviations ("J.Crew") get a space too.
_JOINED = re.compile(r"(?<=[^\s.])\.(?=[A-Z](?:[a-z]|\s))")
_WORD = re.compile(r"\w+")
_YES_NO = frozenset({"yes", "no"})
_TRIES = 64
_Kind = Literal["relevance", "groundedness", "usefulness"]


def space_joined_sentences(text: str) -> str:
    """Insert the missing space where HaluEval joined two sentences: ``century.First`` → ``century. First``."""
    return _JOINED.sub(". ", text)


def split_of(row: int) -> Split:
    return "dev" if DEV_ROWS[0] <= row <= DEV_ROWS[1] else "test"


def document_id(row: int) -> str:
    return f"halueval-qa-{row}"


@dataclass(frozen=True)
class HaluEvalSets:
    """Everything one import writes, before it is written."""

    e2e: tuple[E2ECase, ...]
    documents: tuple[Document, ...]
    """The selected rows' passages: the corpus of the end-to-end cases."""
    groundedness: tuple[GraderCase, ...]
    relevance: tuple[GraderCase, ...]
    usefulness: tuple[GraderCase, ...]
    spaced: int
    """Selected passages in which a missing space after a period was inserted."""
    skipped: int
    """Negative cases that could not be formed (no acceptable candidate); 0 on the real data."""


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _within(needle: str, haystack: str) -> bool:
    """Whole-word containment of normalised texts."""
    return bool(needle) and f" {needle} " in f" {haystack} "


class _Builder:
    """The whole file, normalised once; builds one row's cases at a time."""

    def __init__(self, rows: Sequence[HaluEvalRow], seed: int) -> None:
        self.rows = rows
        self.seed = seed
        self.passages = [space_joined_sentences(r.knowledge) for r in rows]
        self.norm_passage = [_norm(p) for p in self.passages]
        self.norm_answer = [_norm(r.right_answer) for r in rows]
        total = len(rows)
        self.pools: dict[Split, range] = {
            "dev": range(DEV_ROWS[0], min(DEV_ROWS[1], total) + 1),
            "test": range(DEV_ROWS[1] + 1, total + 1),
        }
        self.skipped = 0

    def doc(self, row: int) -> Document:
        return Document(id=document_id(row), text=self.passages[row - 1], metadata={"row": row})

    def case(
        self,
        row: int,
        kind: _Kind,
        label: bool,
        *,
        docs: Sequence[int] = (),
        answer: str = "",
        borrowed: int | None = None,
    ) -> GraderCase:
        meta: dict[str, object] = {"row": row, "source": SOURCE}
        if borrowed is not None:
            meta["negative_from_row"] = borrowed
        return GraderCase(
            id=f"halueval-qa-{row}-{kind}-{'pos' if label else 'neg'}", kind=kind, question=self.rows[row - 1].question,
            documents=[self.doc(d) for d in docs], answer=answer, label=label, split=split_of(row), meta=meta,
        )  # fmt: skip

    def groundedness(self, row: int) -> list[GraderCase]:
        item = self.rows[row - 1]
        out = [self.case(row, "groundedness", True, docs=[row], answer=item.right_answer)]
        if _norm(item.hallucinated_answer) in ("", self.norm_answer[row - 1]):
            self.skipped += 1
        else:
            out.append(self.case(row, "groundedness", False, docs=[row], answer=item.hallucinated_answer))
        return out

    def relevance(self, row: int) -> list[GraderCase]:
        own = self.norm_passage[row - 1]
        answer = self.norm_answer[row - 1]
        answer = "" if answer in _YES_NO else answer

        def unlike(other: int) -> bool:
            theirs = self.norm_passage[other - 1]
            return theirs != own and not _within(answer, theirs)

        out = [self.case(row, "relevance", True, docs=[row])]
        other = self._pick(row, "relevance", unlike)
        if other is None:
            self.skipped += 1
        else:
            out.append(self.case(row, "relevance", False, docs=[other], borrowed=other))
        return out

    def usefulness(self, row: int) -> list[GraderCase]:
        answer = self.norm_answer[row - 1]

        def unlike(other: int) -> bool:
            theirs = self.norm_answer[other - 1]
            both_yes_no = theirs in _YES_NO and answer in _YES_NO
            return bool(theirs) and not both_yes_no and not _within(theirs, answer) and not _within(answer, theirs)

        out = [self.case(row, "usefulness", True, answer=self.rows[row - 1].right_answer)]
        other = self._pick(row, "usefulness", unlike)
        if other is None:
            self.skipped += 1
        else:
            out.append(self.case(row, "usefulness", False, answer=self.rows[other - 1].right_answer, borrowed=other))
        return out

    def _pick(self, row: int, kind: str, ok: Callable[[int], bool]) -> int | None:
        """Another row of the same split satisfying ``ok``: random tries, then a scan from a random start."""
        rng = random.Random(f"halueval-qa:{self.seed}:{row}:{kind}")
        pool = self.pools[split_of(row)]
        if len(pool) < 2:
            return None
        for _ in range(_TRIES):
            other = rng.choice(pool)
            if other != row and ok(other):
                return other
        first = rng.randrange(len(pool))
        for i in range(len(pool)):
            other = pool[(first + i) % len(pool)]
            if other != row and ok(other):
                return other
        return None


def build_sets(rows: Sequence[HaluEvalRow], start: int, end: int, *, seed: int = 0) -> HaluEvalSets:
    """Cases for rows ``start``..``end`` (1-based, inclusive, already validated) of ``rows``."""
    build = _Builder(rows, seed)
    selected = range(start, end + 1)
    same_passage: dict[str, list[str]] = {}
    for row in selected:
        same_passage.setdefault(build.norm_passage[row - 1], []).append(document_id(row))
    e2e = [
        E2ECase(
            id=f"halueval-qa-{row}",
            question=rows[row - 1].question,
            collection=f"halueval-qa-{start}-{end}",
            documents_file="documents.jsonl",
            reference_answer=rows[row - 1].right_answer,
            gold_ids=same_passage[build.norm_passage[row - 1]],
            split=split_of(row),
            meta={"row": row, "source": SOURCE},
        )
        for row in selected
    ]
    grounded = tuple(c for row in selected for c in build.groundedness(row))
    relevant = tuple(c for row in selected for c in build.relevance(row))
    useful = tuple(c for row in selected for c in build.usefulness(row))
    return HaluEvalSets(
        e2e=tuple(e2e),
        documents=tuple(build.doc(row) for row in selected),
        groundedness=grounded,
        relevance=relevant,
        usefulness=useful,
        spaced=sum(build.passages[row - 1] != rows[row - 1].knowledge for row in selected),
        skipped=build.skipped,  # read after the cases above were built
    )
