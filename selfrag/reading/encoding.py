"""Turning text into the network's inputs, shared by training and inference so both agree.

The reader sees ``[CLS] question [SEP] passage [SEP]``; a passage longer than one window is read
in overlapping windows (``stride`` tokens shared), each mapped back to the passage's characters
through the fast tokenizer's offsets. The critic sees ``[CLS] <task>: first [SEP] second [SEP]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

__all__ = ["ReaderWindows", "critic_inputs", "reader_windows"]


class ReaderWindows(NamedTuple):
    tensors: dict[str, torch.Tensor]
    """``input_ids``, ``attention_mask``, ``token_type_ids``, ``passage_mask`` (batch, seq)."""
    example: list[int]
    """For each window, the index of the (question, passage) pair it reads."""
    offsets: list[list[tuple[int, int] | None]]
    """For each window and token, its character span in the passage (None outside the passage)."""


_QUESTION_TOKENS = 64
"""The most of a question a reader window holds (SQuAD's readers keep 64 tokens): the passage must
keep more room in a window than the stride between windows, and the reader learnt on short questions."""
_QUESTION_HEAD = 16
"""Of a longer question, the tokens kept from its start; the rest from its end, where the ask usually
stands ("I was reading about the museum and wondered, ... how heavy is Iron Bloom?")."""


def shortened_question(tokenizer: Any, question: str, *, max_length: int, stride: int) -> str:
    """``question`` as a reader window holds it: whole when short, else its start and its end."""
    budget = min(_QUESTION_TOKENS, (max_length - stride - 3) // 2)  # 3: [CLS] and two [SEP]
    found = tokenizer([question], return_offsets_mapping=True)["offset_mapping"][0]
    offsets = [(int(a), int(b)) for a, b in found if b > a]  # the question's own tokens, not [CLS]/[SEP]
    if len(offsets) <= budget:
        return question
    head = min(_QUESTION_HEAD, budget // 4)
    tail = budget - head - 1  # one token for the ellipsis
    return f"{question[: offsets[head - 1][1]]} … {question[offsets[-tail][0] :]}" if head else question[offsets[-budget][0] :]


def reader_windows(tokenizer: Any, questions: Sequence[str], passages: Sequence[str], *, max_length: int,
                   stride: int) -> ReaderWindows:
    questions = [shortened_question(tokenizer, q, max_length=max_length, stride=stride) for q in questions]
    enc = tokenizer(
        list(questions), list(passages), truncation="only_second", max_length=max_length, stride=stride,
        return_overflowing_tokens=True, return_offsets_mapping=True, padding=True, return_tensors="pt",
    )
    example = [int(i) for i in enc["overflow_to_sample_mapping"].tolist()]
    offsets: list[list[tuple[int, int] | None]] = []
    passage_mask = torch.zeros_like(enc["input_ids"])
    for w in range(enc["input_ids"].shape[0]):
        seq_ids = enc.sequence_ids(w)
        row: list[tuple[int, int] | None] = []
        for t, (sid, (a, b)) in enumerate(zip(seq_ids, enc["offset_mapping"][w].tolist(), strict=True)):
            if sid == 1:
                passage_mask[w, t] = 1
                row.append((int(a), int(b)))
            else:
                row.append(None)
        offsets.append(row)
    tensors = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"],
               "token_type_ids": enc["token_type_ids"], "passage_mask": passage_mask}
    return ReaderWindows(tensors, example, offsets)


def critic_inputs(tokenizer: Any, task: str, firsts: Sequence[str], seconds: Sequence[str], *,
                  max_length: int) -> dict[str, torch.Tensor]:
    enc = tokenizer([f"{task}: {f}" for f in firsts], list(seconds), truncation="longest_first", max_length=max_length,
                    padding=True, return_tensors="pt")
    return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "token_type_ids": enc["token_type_ids"]}
