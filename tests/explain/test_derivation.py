"""`explain FILE:LINE` / a tactic: the derivation graph is the model's records, wired up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from click.testing import CliRunner

from cutlint import api
from cutlint.cli import main
from cutlint.explain.tree import render_tree
from cutlint.records import ElementType, Fusion, InstantiationResult

M256 = "cutlass_kernel_file_gemm_grouped_sm120_M256_BS_group0.generated.cu"


def _headline(swap_ab: bool = False) -> InstantiationResult:
    return api.check_tactic(
        act_type=ElementType.E2M1,
        weight_type=ElementType.E2M1,
        output_type=ElementType.BF16,
        tile=(256, 128, 128),
        fusion=Fusion.FINALIZE,
        swap_ab=swap_ab,
        flashinfer_version="0.6.3",
    )


def test_every_node_has_a_value_and_a_source_and_hangs_off_the_verdict() -> None:
    g = api.derivation(_headline())
    assert nx.is_directed_acyclic_graph(g)
    assert set(nx.descendants(g, "verdict")) | {"verdict"} == set(g.nodes)
    for node, data in g.nodes(data=True):
        assert data["label"] and data["source"], node
        assert data["value"] is not None, node


def test_the_numbers_are_the_records_numbers() -> None:
    r = _headline()
    res = r.resources
    assert res is not None and res.epilogue is not None
    g = api.derivation(r)
    value = {n: d["value"] for n, d in g.nodes(data=True)}
    sc = res.stage_count
    assert value["builder.stages"] == sc.stages == 3
    assert value["builder.stage_bytes"] == sc.stage_bytes
    assert value["builder.carveout"] == sc.carveout == res.layout.epilogue_size
    assert value["builder.capacity"] == 101376 and value["limit"] == 101376
    assert value["layout.total"] == res.layout.size == 102400
    assert value["epilogue.tile"] == "64x32" and value["epilogue.stages_c"] == res.epilogue.stages_c
    for t in sc.per_stage:
        assert value[f"builder.term.{t.name}"] == t.bytes
    regions = [n for n in g if n.startswith("region.")]
    assert len(regions) == len(res.layout.regions)
    assert value["verdict"] == "fails initialize()"


def test_regions_are_derived_from_the_quantities_that_size_them() -> None:
    g = api.derivation(_headline())
    assert set(g.successors("region.tensors.mainloop.smem_A")) == {
        "builder.stages",
        "builder.term.A",
    }
    assert "epilogue.stages_c" in set(g.successors("region.tensors.epilogue.collective.smem_C"))
    assert {"builder.stage_budget", "builder.stage_bytes"} == set(g.successors("builder.stages"))
    assert "builder.carveout" in set(g.successors("builder.stage_budget"))
    assert {"layout.total", "limit"} <= set(g.successors("finding.CUT101"))
    assert "variant.SwapAB on" in set(nx.descendants(g, "finding.CUT101"))


def test_the_tree_expands_each_node_once() -> None:
    g = api.derivation(_headline())
    tree = render_tree(g, sources=False)
    expanded = [line for line in tree.splitlines() if "(see " not in line]
    assert len(expanded) == g.number_of_nodes()
    assert tree.startswith("verdict: fails initialize()\n├── inputs")
    assert "SwapAB on: 74,752 B, 2 stages: fits" in tree


def test_a_fitting_tactic_is_derived_from_total_limit_and_stages() -> None:
    g = api.derivation(_headline(swap_ab=True))
    # and from the occupancy (model/occupancy.py): a fitting tactic launches at least one block
    assert {"inputs", "layout.total", "limit", "builder.stages", "dispatch", "occupancy"} == set(
        g.successors("verdict")
    )


def test_cli_explain_file_line(real_cache: Any) -> None:
    path = real_cache("0.6.3") / M256
    out = CliRunner().invoke(main, ["explain", f"{path}:60"])
    assert out.exit_code == 1, out.output
    assert "e2m1 x e2m1 -> bf16, FINALIZE, 256x128x128, SwapAB off" in out.output
    assert "sizeof(GemmKernel::SharedStorage): 102,400 B" in out.output
    inside = CliRunner().invoke(main, ["explain", f"{path}:62", "--no-sources"])  # the tile's line
    assert inside.exit_code == 1 and "· " not in inside.output
    assert CliRunner().invoke(main, ["explain", f"{path}:1"]).exit_code == 2
    fits = CliRunner().invoke(main, ["explain", f"{path}:46"])
    assert fits.exit_code == 0 and "verdict: fits" in fits.output


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (
            ["--tile", "256x128x128", "--fusion", "finalize", "--flashinfer-version", "0.6.3"],
            1,
            "102,400 B",
        ),
        (
            [
                "--tile",
                "256x128x128",
                "--fusion",
                "finalize",
                "--swap-ab",
                "--flashinfer-version",
                "0.6.3",
            ],
            0,
            "74,752 B",
        ),
        (
            ["--tile", "128x128x128", "--act", "SafeFP8", "--out", "half"],
            0,
            "e4m3 x e2m1 -> f16, MXFPX",
        ),
        (["--tile", "256x128"], 2, ""),
        (["--tile", "256x128x128", "--act", "SafeFP5"], 2, ""),
    ],
)
def test_cli_explain_tactic(args: list[str], code: int, text: str) -> None:
    out = CliRunner().invoke(main, ["explain", *args])
    assert out.exit_code == code, out.output
    assert text in out.output


def test_cli_explain_json_is_the_graph() -> None:
    out = CliRunner().invoke(
        main, ["explain", "--tile", "256x128x128", "--fusion", "FINALIZE", "--format", "json"]
    )
    data = json.loads(out.output)
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes["verdict"]["value"] == data["verdict"]
    assert {"node": "builder.stages", "derived_from": "builder.stage_budget"} in data["edges"]


def test_explain_a_rule_still_works() -> None:
    assert (
        "GemmUniversalAdapter::initialize()"
        in CliRunner().invoke(main, ["explain", "CUT101"]).output
    )
    assert CliRunner().invoke(main, ["explain", "CUT999"]).exit_code == 2
    assert CliRunner().invoke(main, ["explain"]).exit_code == 2


def test_not_modeled_tactics_say_why(tmp_path: Path) -> None:
    r = api.validate_tactics(
        [
            api.TacticSpec(
                arch="sm_90",
                act_type="e2m1",
                weight_type="e2m1",
                output_type="bf16",
                tile=(128, 128, 128),
            )
        ]
    )[0]
    g = api.derivation(r)
    assert g.nodes["not_modeled"]["value"].startswith("an Sm120 kernel does not run on sm_90")
