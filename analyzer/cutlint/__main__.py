"""`python -m cutlint` is `cutlint`."""

from cutlint.cli import main

main()
