"""Model: what an instantiation needs on an arch (stage count, shared storage layout), with sources."""
