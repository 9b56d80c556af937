"""``python -m manetsim`` is the ``manetsim`` command."""

from manetsim.cli import main

main()
