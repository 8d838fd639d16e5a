"""``python -m selfrag.cli``: the same as the ``selfrag`` script."""

from selfrag.cli import main

main()
