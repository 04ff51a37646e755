"""The SM120 dense F8F6F4 mainloop, an explicit epilogue tile and a vLLM epilogue visitor tree,
composed as the cooperative / pingpong shell lays them out: vLLM 0.34.0's
`sm120_fp8_config_M16<float_e4m3_t, bfloat16_t, ScaledEpilogue>` (16x64x128 pingpong, epilogue
tile 16x32), whose measured SharedStorage is 96,256 B with 9 stages (libclang and nvcc 13.0,
CUTLASS 4.5.0 headers: docs/tu.md, tests/data/nvcc_tu_vllm_truth.json)."""

from __future__ import annotations

from cutlint.cutlass import sm90_cooperative as shell
from cutlint.cutlass import sm90_evt
from cutlint.cutlass import sm120_dense as dense
from cutlint.cutlass import sm120_epilogue as epi
from cutlint.records import Shape3

NS = "cutlass::epilogue::fusion::"
TILE = "cute::tuple<cute::C<16>, cute::C<64>, cute::C<128>>"
SCALED = (
    f"{NS}Sm90TreeVisitor<{NS}Sm90Compute<cutlass::multiplies, cutlass::bfloat16_t, float,"
    f" cutlass::FloatRoundStyle::round_to_nearest>, {NS}Sm90ColOrScalarBroadcast<0, {TILE}, float>,"
    f" {NS}Sm90TreeVisitor<{NS}Sm90Compute<cutlass::multiplies, float, float,"
    f" cutlass::FloatRoundStyle::round_to_nearest>, {NS}Sm90RowOrScalarBroadcast<0, {TILE}, float>,"
    f" {NS}Sm90AccFetch>>"
)
BYTES = {"float": 4, "cutlass::bfloat16_t": 2}


def test_evt_storage_is_the_row_broadcasts() -> None:
    thread = sm90_evt.storage(SCALED, 64, BYTES)
    assert not isinstance(thread, str)
    assert thread.size == 64 * 4  # Sm90RowOrScalarBroadcast: array_aligned<float, CTA_N>
    assert sm90_evt.storage(f"{NS}Sm90TreeVisitor<{NS}Sm90AccFetch>", 64, BYTES).size == 1
    assert "not modeled" in str(sm90_evt.storage(f"{NS}Sm90TreeVisitor<{NS}Mine<1>>", 64, BYTES))


def test_vllm_sm120_fp8_config_m16_lays_out_as_measured() -> None:
    t = Shape3(m=16, n=64, k=128)
    ops = epi.EpilogueOperands(c_bits=0, d_bits=16, d_column_major=False)
    thread = sm90_evt.storage(SCALED, t.n, BYTES)
    assert not isinstance(thread, str)
    carveout = epi.shared_storage(t, ops, thread, (16, 32)).size
    assert carveout == 3072
    stages = dense.stage_count(t, carveout).stages
    assert stages == 9  # (101,376 - 3,072) / (2,048 + 8,192 + 16)
    kernel = shell.kernel_shared_storage(
        mainloop_tensors=dense.tensor_storage(t, stages),
        mainloop_pipeline=dense.pipeline(stages),
        epilogue_tensors=epi.tensor_storage(t, ops, thread, (16, 32)),
        epilogue_pipeline=epi.load_pipeline(t, ops, (16, 32)),
        scheduler=shell.scheduler_for("void"),
        scheduler_stages=dense.SCHEDULER_PIPELINE_STAGES,
        pingpong=True,
    )
    assert kernel.size == 96256
