"""Validation before generation: a generator's operations, judged before any file is written."""
