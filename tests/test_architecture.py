"""The architecture lives in tests: the import contracts of pyproject.toml (layers, no cycles;
docs/architecture.md "Layers") and the family seam (outside the families, only their protocol
is imported)."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).parents[1]

PROTOCOL = frozenset(
    {
        "cutlint.families.registry",
        "cutlint.families.base",
        "cutlint.families.groups",
        "cutlint.families.probe",
        "cutlint.families.truth",
        "cutlint.families.kernel_signature",
    }
)
"""What the floors above the families may import of them: the registry, the protocol and its
records, the rule groups, the probe and truth vocabularies, what a family's kernel type says (a
measured kernel is matched by it: cutlint.binaries.measured)."""

COMPOSERS = ("cutlint.families", "cutlint.runners")
"""The families themselves, and the runners, which ask several families' models for a runner's
tactics (cutlint.runners)."""

KNOWN_GAPS: frozenset[tuple[str, str]] = frozenset()
"""Imports past the protocol that are known and not yet closed (as semgrep's `todoruleid:`): the
test fails for a new one, and for one of these once it is gone, so the list only shrinks."""


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("cutlint")


def test_import_contracts_hold() -> None:
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_outside_the_families_only_their_protocol_is_imported(graph: grimp.ImportGraph) -> None:
    past: set[tuple[str, str]] = set()
    for module in graph.modules:
        if module.startswith(COMPOSERS):
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith("cutlint.families.") and imported not in PROTOCOL:
                past.add((module, imported))
    assert past - KNOWN_GAPS == set(), "import the family protocol (families.base/registry)"
    assert KNOWN_GAPS - past == set(), "a known gap is closed: take it off KNOWN_GAPS"


def test_the_parser_knows_no_producer_family_or_arch(graph: grimp.ImportGraph) -> None:
    for upper in ("cutlint.producers", "cutlint.families", "cutlint.model", "cutlint.cutlass"):
        assert not graph.chain_exists("cutlint.parse", upper, as_packages=True), upper


def test_a_probe_module_is_found_through_the_registry() -> None:
    """What verify builds for a family is in the family's folder; verify finds it by the probe's
    name or the family, never by a module path of its own."""
    from cutlint.families.registry import families, probe_module, probe_spec

    launcher = probe_spec("sm80-fused-moe-launcher")
    assert launcher.__name__ == "cutlint.families.sm80_fused_moe.probe"
    assert "cutlint_sm80_probe" in launcher.HELPERS_HPP
    moe = probe_spec("tma-ws-moe-launcher")
    assert moe.__name__ == "cutlint.families.moe_macro_probe"
    mixed = probe_spec("sm90-mixed-launcher")
    assert mixed.__name__ == "cutlint.families.sm90_mixed_gemm.probe"
    jit = [f for f in families() if f.probe == "jit-module"]
    assert jit and all(probe_module(f) is not None for f in jit)
    with pytest.raises(KeyError):
        probe_spec("no-such-probe")
