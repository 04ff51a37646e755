"""cutlint: an offline static analyzer for CUTLASS instantiation sources."""

__version__ = "0.1.0"
"""The one place the version is written: pyproject.toml reads it (`dynamic = ["version"]`)."""
