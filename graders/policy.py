"""What a grader concludes when it could not get a valid verdict.

Graders retry through ``selfrag.retry`` (the one retry policy of every model call). After the
last attempt the grader's ``FailurePolicy`` decides, and the trace records that it did. The default is fail-closed: a document whose grade failed is not relevant; an answer that could
not be verified is ungrounded / not useful.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["FailurePolicy"]


class FailurePolicy(StrEnum):
    """What a grader concludes when it cannot get a valid verdict."""

    FAIL_CLOSED = "fail_closed"
    """Conclude the negative: not relevant / ungrounded / not useful. Safe for accuracy."""
    FAIL_OPEN = "fail_open"
    """Conclude the positive. Only for graders whose failure should not block an answer."""
    RAISE = "raise"
    """Raise ``GraderError``: for experiments that must see every failure."""
