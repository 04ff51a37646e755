"""cutlint: an offline static analyzer for CUTLASS instantiation sources."""
