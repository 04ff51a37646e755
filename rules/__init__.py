"""The rule files (TOML), shipped inside the wheel as cutlint.rules."""
