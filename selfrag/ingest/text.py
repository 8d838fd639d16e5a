"""Bytes to text, refusing what is not text: the one decoder for ingest and question files.

A binary file renamed ``.txt`` decodes "successfully" as Latin-1 (every byte is a Latin-1
character), so decoding alone proves nothing; what gives binary away is its control characters.
The rule, in order:

1. a NUL byte in the content is binary (no text encoding we read produces one, UTF-16 aside,
   which is only accepted with its byte-order mark);
2. UTF-8 (a BOM is dropped), then UTF-16 with a BOM, then Windows-1252 / Latin-1 for legacy files;
3. whatever decoded must be text: at most 1 in 100 characters may be control characters other
   than tab, newlines, form feed and escape (C1 controls count: they are how bytes 0x80-0x9f show
   up when a non-text file is read as Latin-1).

File names that are not valid UTF-8 (possible on Linux) are shown with ``\\xNN`` escapes by
``display_path``, so every message and every stored ``source`` stays printable.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePath

from selfrag.errors import IngestError

__all__ = ["decode_text", "display_path", "read_text"]

# Control characters other than \t \n \v \f \r and ESC (terminal colours in logs), C1 included.
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
_MAX_CONTROL_SHARE = 0.01


def display_path(path: str | PurePath) -> str:
    """``path`` as printable UTF-8: undecodable bytes of a file name become ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def decode_text(raw: bytes, name: str) -> str:
    """The text in ``raw``, the contents of the file shown as ``name``.

    Raises:
        IngestError: ``raw`` is binary or no encoding we read turns it into text.
    """
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return _checked(raw.decode("utf-16"), name)
        except UnicodeDecodeError:
            raise IngestError(f"{name}: not valid UTF-16 text despite its byte-order mark") from None
    if b"\x00" in raw:
        raise IngestError(f"{name}: binary content, not text (it contains NUL bytes)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = raw.decode("cp1252")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
    return _checked(text, name)


def read_text(path: Path, name: str | None = None) -> str:
    """The text of the file at ``path`` (named ``name`` in messages; default: its path).

    Raises:
        IngestError: the file cannot be read, or is not text (see ``decode_text``).
    """
    shown = name or display_path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{shown}: cannot read file: {exc.strerror or exc}") from None
    return decode_text(raw, shown)


def _checked(text: str, name: str) -> str:
    controls = len(_CONTROLS.findall(text))
    if controls and controls > _MAX_CONTROL_SHARE * len(text):
        raise IngestError(
            f"{name}: binary content or an unknown encoding, not text "
            f"({controls} control characters in {len(text)}); save it as UTF-8 text"
        )
    return text
