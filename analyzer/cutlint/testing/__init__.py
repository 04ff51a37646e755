"""cutlint's test harness, driven by the family registry: one compiler-truth comparison for every
family (`truth`), one fixture grammar for every rule (`fixtures`), and the scaffolder that writes a
new family's folder, fixture, doc page and registry line (`new_family`). Public and typed, so that
a family's author runs the same checks as the suite (docs/testing.md)."""
