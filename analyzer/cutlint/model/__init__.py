"""Model: what an instantiation needs on an arch (stage count, shared storage layout), with sources."""

from cutlint.model.resources import ModelContext, model_instantiation

__all__ = ["ModelContext", "model_instantiation"]
