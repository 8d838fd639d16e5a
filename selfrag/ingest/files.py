"""Which files an ingest run reads: explicit files must be supported, directories are walked.

Asked for ``report.xlsx`` by name, we fail (the user expects it to be read); found while walking
a directory, it is listed as ignored instead, so a folder with a stray file still ingests.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from selfrag.errors import IngestError

__all__ = ["SUPPORTED_EXTENSIONS", "collect_files"]

SUPPORTED_EXTENSIONS: tuple[str, ...] = (".txt", ".md", ".markdown", ".pdf", ".html", ".htm", ".jsonl")


def collect_files(paths: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """Expand ``paths`` into the files to read, and the files skipped while walking directories.

    Directories are walked recursively in sorted order; hidden files and folders are skipped.
    A file named twice is read once.

    Raises:
        IngestError: no paths, a path does not exist, an explicit file has an unsupported type,
            or a directory holds no supported file.
    """
    files: dict[Path, None] = {}
    ignored: dict[Path, None] = {}
    given = [Path(p).expanduser() for p in paths]
    if not given:
        raise IngestError("no files or directories given to ingest")
    for path in given:
        if path.is_dir():
            found = 0
            for child in sorted(path.rglob("*")):
                rel = child.relative_to(path)
                if any(part.startswith(".") for part in rel.parts) or not child.is_file():
                    continue
                if child.suffix.lower() in SUPPORTED_EXTENSIONS:
                    files[child.resolve()] = None
                    found += 1
                else:
                    ignored[child.resolve()] = None
            if not found:
                raise IngestError(f"{path}: no supported files in this directory ({_supported()})")
        elif path.is_file():
            if path.suffix.lower() not in SUPPORTED_EXTENSIONS:
                kind = f"'{path.suffix}'" if path.suffix else "without an extension"
                raise IngestError(f"{path}: unsupported file type {kind} ({_supported()})")
            files[path.resolve()] = None
        elif path.exists():
            raise IngestError(f"{path}: not a regular file or directory")
        else:
            raise IngestError(f"{path}: no such file or directory")
    return list(files), [p for p in ignored if p not in files]


def _supported() -> str:
    return "supported: " + ", ".join(SUPPORTED_EXTENSIONS)
