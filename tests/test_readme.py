"""The README's examples stay true: the diagram is the graph's, the schema example validates."""

from __future__ import annotations

import json
import re
from pathlib import Path

from selfrag.schema import CollectionSchema
from workflows import mermaid

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, re.DOTALL)


def test_readme_diagram_is_the_compiled_graph() -> None:
    (diagram,) = _blocks("mermaid")
    assert diagram.strip() == mermaid().strip()


def test_readme_schema_example_is_a_valid_schema() -> None:
    (example,) = _blocks("json")
    schema = CollectionSchema.model_validate(json.loads(example))
    assert schema.names == ["company", "fiscal_year"]
    fy = next(e for e in schema.extractors if e.attribute == "fiscal_year").compiled()
    assert fy.search("In fiscal year 2023 revenue grew").group(1) == "2023"  # type: ignore[union-attr]


def test_readme_gives_the_two_commands() -> None:
    (commands,) = [b for b in _blocks("sh") if "make demo" in b]
    assert [ln.split("#")[0].strip() for ln in commands.strip().splitlines()] == ["make demo", "make test"]
