"""One module per `cutlint` command; `cutlint.cli.COMMANDS` says which module holds which."""
