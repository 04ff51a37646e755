"""The model's shared context and the arch table; each family's own model is in cutlint.families."""

from cutlint.model.context import ModelContext

__all__ = ["ModelContext"]
