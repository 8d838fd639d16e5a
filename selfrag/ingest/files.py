"""Which files an ingest run reads, and the identity each one gets.

A file's identity (its ``source``, and the id of the document it holds) is its path relative to
the ingest root: by default the folder *above* each path named, so ``selfrag ingest reports/``
names ``reports/2023/walmart.md`` and ``selfrag ingest notes.md`` names ``notes.md``; ``--root``
sets the root explicitly. The identity never holds an absolute path, so a folder moved elsewhere
and ingested again is recognised as the same documents (and no server path reaches a citation).

Asked for ``report.xlsx`` by name, we fail (the user expects it to be read); found while walking
a folder, it is listed as ignored instead, so a folder with a stray file still ingests.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from selfrag.errors import IngestError
from selfrag.ingest.text import display_path

__all__ = ["SUPPORTED_EXTENSIONS", "InputFile", "InputFolder", "Inputs", "collect_files"]

SUPPORTED_EXTENSIONS: tuple[str, ...] = (".txt", ".md", ".markdown", ".pdf", ".html", ".htm", ".jsonl")


@dataclass(frozen=True)
class InputFile:
    """One file to read."""

    path: Path
    """Where to read it (absolute)."""
    name: str
    """The path as the user named it (printable), for messages."""
    source: str
    """Its identity: the path relative to the ingest root, ``/``-separated."""
    listed: bool
    """Named on the command line (it must load) rather than found in a folder (skipped if unreadable)."""


@dataclass(frozen=True)
class InputFolder:
    """A folder that was walked: what ``--prune`` may remove documents from."""

    path: Path
    """Absolute, as named (symbolic links not resolved)."""
    source: str
    """The identity prefix of its files (``reports``); empty when the folder is the root itself."""


@dataclass(frozen=True)
class Inputs:
    files: list[InputFile]
    ignored: list[str] = field(default_factory=list)
    """Files found while walking folders but not of a supported type (printable names)."""
    folders: list[InputFolder] = field(default_factory=list)


def collect_files(paths: Iterable[str | Path], *, root: str | Path | None = None) -> Inputs:
    """Expand ``paths`` into the files to read, with their identities (see the module docstring).

    Folders are walked recursively in sorted order; hidden files and folders are skipped. A file
    named twice is read once.

    Raises:
        IngestError: no paths, a path does not exist or lies outside ``root``, an explicit file has
            an unsupported type, a folder holds no supported file, or two different files would
            get the same identity.
    """
    given = [Path(p).expanduser() for p in paths]
    if not given:
        raise IngestError("no files or directories given to ingest")
    base = _absolute(Path(root).expanduser()) if root is not None else None
    if base is not None and not base.is_dir():
        raise IngestError(f"--root {display_path(root or '')}: not a directory")
    files: dict[Path, InputFile] = {}
    by_source: dict[str, InputFile] = {}
    ignored: dict[Path, str] = {}
    folders: list[InputFolder] = []

    def add(path: Path, name: str, top: Path, listed: bool) -> None:
        real = path.resolve()
        if real in files:
            return
        entry = InputFile(path, name, _identity(path, base or top.parent, top), listed)
        other = by_source.get(entry.source)
        if other is not None:
            raise IngestError(
                f"{other.name} and {name} would both be document {entry.source!r} (ids are paths relative to the "
                f"folder above each path named): name their common folder, or set --root"
            )
        files[real] = by_source[entry.source] = entry

    for path in given:
        absolute = _absolute(path)
        shown = display_path(path)
        if path.is_dir():
            folders.append(InputFolder(absolute, _identity(absolute, base or absolute.parent, absolute, folder=True)))
            found = 0
            for child in sorted(absolute.rglob("*")):
                rel = child.relative_to(absolute)
                if any(part.startswith(".") for part in rel.parts) or not child.is_file():
                    continue
                name = display_path(path / rel)
                if child.suffix.lower() in SUPPORTED_EXTENSIONS:
                    add(child, name, absolute, listed=False)
                    found += 1
                else:
                    ignored[child.resolve()] = name
            if not found:
                raise IngestError(f"{shown}: no supported files in this directory ({_supported()})")
        elif path.is_file():
            if path.suffix.lower() not in SUPPORTED_EXTENSIONS:
                kind = f"'{display_path(path.suffix)}'" if path.suffix else "without an extension"
                raise IngestError(f"{shown}: unsupported file type {kind} ({_supported()})")
            add(absolute, shown, absolute, listed=True)
        elif path.exists():
            raise IngestError(f"{shown}: not a regular file or directory")
        else:
            raise IngestError(f"{shown}: no such file or directory")
    return Inputs(list(files.values()), [n for p, n in ignored.items() if p not in files], folders)


def _absolute(path: Path) -> Path:
    """Absolute and normalised (``..`` folded) without resolving symbolic links: names as the user sees them."""
    return Path(os.path.abspath(path))


def _identity(path: Path, root: Path, top: Path, *, folder: bool = False) -> str:
    """``path`` relative to ``root``, ``/``-separated and printable."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        raise IngestError(f"{display_path(top)} is not inside --root {display_path(root)}") from None
    text = display_path(PurePosixPath(*rel.parts)) if rel.parts else ""
    if not text and not folder:
        text = display_path(path.name)  # a file named as the root itself: its own name
    return text


def _supported() -> str:
    return "supported: " + ", ".join(SUPPORTED_EXTENSIONS)
