"""Verify: ask the compiler for the numbers the model predicts."""
