"""selfrag's command line with the scripted providers of ``fake_server`` (HashEmbeddings, the lexical
chat model), as a separate process: ``python -m tests.service.fake_cli ingest ...``.

For tests where the CLI and a running server must share one data directory as two real processes
and agree on their embeddings.
"""

from __future__ import annotations

from typing import Any

from selfrag.testing import HashEmbeddings, ScriptedChatModel
from tests.service.fake_server import lexical_rules


def main() -> None:
    import selfrag.providers
    import workflows.factory
    from selfrag.cli import main as cli_main

    def embeddings(_: Any) -> HashEmbeddings:
        return HashEmbeddings()

    def chat_model(_: Any) -> ScriptedChatModel:
        return ScriptedChatModel.from_rules(lexical_rules())

    for module in (workflows.factory, selfrag.providers):
        module.make_embeddings = embeddings  # type: ignore[attr-defined]
        module.make_chat_model = chat_model  # type: ignore[attr-defined]
    cli_main()


if __name__ == "__main__":
    main()
