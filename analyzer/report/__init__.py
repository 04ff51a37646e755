"""Reporters: one module per output format, render(result) -> str."""
