"""FlashInfer: its releases, cache layout, launchers ' dispatch lists and generator."""
