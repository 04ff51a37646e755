"""Rule engine: rule files (data) evaluated against the model's resources -> diagnostics."""
