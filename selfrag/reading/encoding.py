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


def reader_windows(tokenizer: Any, questions: Sequence[str], passages: Sequence[str], *, max_length: int,
                   stride: int) -> ReaderWindows:
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
