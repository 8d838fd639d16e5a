"""The open set of graders: each grader class registers itself, and everything else looks it up.

A grader is one module: a ``StructuredGrader`` subclass declaring its ``kind``, verdict model
(``schema``), labels, default prompt (and the template ``fields`` it fills), optional signal, the
case inputs it needs (``needs``), how it grades a labelled case (``grade_case``), and its default
combination per provider where the provider profile names none (``profiles``). Decorated with ``@register``, it is found by the
evaluation harness (cases, variants, prompt checks, experiments), the CLI's ``--grader`` choices
and the settings-to-components factory. The workflow's own three roles (relevance, groundedness,
usefulness) are wired by name in ``workflows.components``; a new grader joins the workflow by a node.
"""

from __future__ import annotations

from typing import TypeVar

from graders.base import StructuredGrader

__all__ = ["GRADERS", "grader_kinds", "register"]

GRADERS: dict[str, type[StructuredGrader]] = {}
"""Every registered grader class by kind, in registration order."""

G = TypeVar("G", bound=type[StructuredGrader])


def register(cls: G) -> G:
    """Class decorator: make ``cls`` a known grader under ``cls.kind``.

    Raises:
        ValueError: another class already registered that kind.
    """
    known = GRADERS.get(cls.kind)
    if known is not None and known is not cls:
        raise ValueError(f"grader kind {cls.kind!r} is already registered by {known.__name__}")
    GRADERS[cls.kind] = cls
    return cls


def grader_kinds() -> list[str]:
    """The registered kinds, in registration order (the built-ins first)."""
    return list(GRADERS)
