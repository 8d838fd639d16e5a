"""A yes/no question setting two records named by their identifiers side by side ("Did INC-2001
cost more than INC-2002?"): computed from both records' stored values, both cited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.workflows.conftest import records_engine
from tests.workflows.test_absent_identifier import SCHEMA, _records


@pytest.mark.parametrize(("question", "short"), [
    ("Did INC-2001 cost more than INC-2002?", "Yes"),   # 310,000 against 33,000
    ("Did INC-2003 cost more than INC-2005?", "No"),    # 450 against 9,000
    ("Was INC-2003 cheaper than INC-2005?", "Yes"),
])
def test_two_records_compared_on_their_stored_values(chroma_client: Any, tmp_path: Path, question: str, short: str) -> None:
    # The scripted model would say "No [1]" of anything: only the computation can answer right.
    engine, _ = records_engine(chroma_client, "incidents", SCHEMA, [_records(tmp_path)], "No [1].", top_k=4, relevant=True)
    result = engine.run(question, collection="incidents")
    assert result.outcome == "answered"
    assert result.short_answer == short
    assert len(result.citations) == 2
