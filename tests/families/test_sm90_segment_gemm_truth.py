"""The SM90 segment GEMM model against the compiler, byte for byte: every kernel (both weight
layouts) of the six instantiations the JIT module gemm_sm90 renders, for each vendored CUTLASS
(tests/data/nvcc_sm90_segment_gemm_truth.json)."""

from __future__ import annotations

from cutlint.testing.truth import rows

ROWS = rows("sm90-segment-gemm")


def test_truth_covers_every_kernel_of_every_release() -> None:
    # 2 x 2 (16-bit inputs: both weight layouts) + 4 x 1 (FP8: ColumnMajor only) per release
    releases = ("0.6.3", "0.6.8.post1", "0.6.11.post2", "0.7.2.post1", "0.7.4")
    assert {v: sum(1 for r in ROWS if r["version"] == v) for v in releases} == dict.fromkeys(
        releases, 8
    )
    # one compile per vendored CUTLASS (4.2.1, 4.4.2, 4.5.0)
    assert {r["probed_in"] for r in ROWS} == {"0.6.3", "0.6.8.post1", "0.6.11.post2"}
    assert {r["label"] for r in ROWS} == {"b_k_major", "b_n_major"}
