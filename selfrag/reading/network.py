"""The reader-critic network: one MiniLM encoder, a reading head and three critic heads.

One encoder serves both jobs (``bench/results/judge`` measures it against separate models):

- **reader**, on ``[CLS] question [SEP] passage [SEP]``: start/end logits over the passage's
  tokens (the answer span), an answer-kind head on ``[CLS]`` (``span``, ``yes``, ``no``,
  ``none``), and a per-token evidence logit whose mean over a sentence scores it as support;
- **critic**, on ``[CLS] <task> text [SEP] passage-or-answer [SEP]``: one logit per Self-RAG
  judgement, read on ``[CLS]``: ``relevance`` (question, passage: ISREL), ``support`` (question
  and answer, or a claim, against a passage: ISSUP) and ``usefulness`` (question, answer: ISUSE).
  The task's own word leads the first text, so the shared ``[CLS]`` knows which judgement is asked.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch
from torch import nn

__all__ = ["ANSWER_KINDS", "CRITIC_TASKS", "CriticOutput", "JudgeNet", "ReaderOutput"]

ANSWER_KINDS = ("span", "yes", "no", "none")
"""The reader's answer kinds, in head order."""
CRITIC_TASKS = ("relevance", "support", "usefulness")
"""The critic's judgements, in head order."""


class ReaderOutput(NamedTuple):
    start: torch.Tensor
    """(batch, seq) start logits; positions outside the passage are -inf."""
    end: torch.Tensor
    kind: torch.Tensor
    """(batch, 4) logits over ``ANSWER_KINDS``."""
    evidence: torch.Tensor
    """(batch, seq) per-token evidence logits."""


class CriticOutput(NamedTuple):
    logits: torch.Tensor
    """(batch, 3) one logit per ``CRITIC_TASKS`` entry; each example reads its task's column."""


class JudgeNet(nn.Module):
    """A BERT encoder with the reader's and the critic's heads: ``transformers.BertModel`` in
    training, ``selfrag.providers._bert.BertEncoder`` (the same tensors, no transformers import) in
    inference."""

    def __init__(self, encoder: Any) -> None:
        super().__init__()
        self.encoder = encoder
        hidden = int(encoder.config.hidden_size)
        self.span = nn.Linear(hidden, 2)
        self.evidence = nn.Linear(hidden, 1)
        self.kind = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, len(ANSWER_KINDS)))
        self.critic = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, len(CRITIC_TASKS)))

    def _hidden(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        return out.last_hidden_state  # type: ignore[no-any-return]

    def read(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor,
             passage_mask: torch.Tensor) -> ReaderOutput:
        """``passage_mask`` is 1 on the passage's tokens: a span may start and end only there."""
        h = self._hidden(input_ids, attention_mask, token_type_ids)
        start, end = self.span(h).unbind(-1)
        blocked = passage_mask == 0
        start = start.masked_fill(blocked, float("-inf"))
        end = end.masked_fill(blocked, float("-inf"))
        return ReaderOutput(start, end, self.kind(h[:, 0]), self.evidence(h).squeeze(-1))

    def judge(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> CriticOutput:
        h = self._hidden(input_ids, attention_mask, token_type_ids)
        return CriticOutput(self.critic(h[:, 0]))
