// The SM90 ptr-array grouped GEMM with both kernel schedules, built the way FlashInfer's launcher
// builds its Sm90 branch (moe_gemm_tma_ws_launcher.inl: ElementC = void, LayoutA/B/D RowMajor*,
// ColumnMajor*, RowMajor* (SwapAB: ColumnMajor* D), EpilogueTileAuto, StageCountAutoCarveout of
// the epilogue's SharedStorage, GemmUniversal over a GroupProblemShape), but with the pingpong
// schedule too, which the launcher never picks. Prints one JSON line per kernel with the numbers
// tests/families/test_sm90_truth.py compares (SM90_SCHEDULES). Host-only: nothing references
// device_kernel<GemmKernel>.
//
//   nvcc -std=c++17 -O1 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
//     -I<flashinfer>/data/cutlass/include -o probe tests/tools/sm90_schedules_probe.cu && ./probe
#include <cstdio>
#include <type_traits>

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/group_array_problem_shape.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

using namespace cute;

template <class T, class D, int M, int N, int K, bool Pingpong, bool SwapAB>
void report(char const* label) {
  using ProblemShape = cutlass::gemm::GroupProblemShape<Shape<int, int, int>>;
  using Tile = Shape<Int<M>, Int<N>, Int<K>>;
  using Cluster = Shape<_1, _1, _1>;
  using EpilogueSchedule =
      std::conditional_t<Pingpong, cutlass::epilogue::PtrArrayTmaWarpSpecializedPingpong,
                         cutlass::epilogue::PtrArrayTmaWarpSpecializedCooperative>;
  // The launcher's FP8 schedule is the fast-accumulation one (same mainloop collective).
  constexpr bool IsFP8 = cutlass::sizeof_bits<T>::value == 8;
  using KernelSchedule = std::conditional_t<
      Pingpong,
      std::conditional_t<IsFP8, cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpongFP8FastAccum,
                         cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpong>,
      std::conditional_t<IsFP8,
                         cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperativeFP8FastAccum,
                         cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative>>;
  using LayoutD = std::conditional_t<SwapAB, cutlass::layout::ColumnMajor, cutlass::layout::RowMajor>;
  constexpr int AlignmentT = 128 / cutlass::sizeof_bits<T>::value;
  constexpr int AlignmentD = 128 / cutlass::sizeof_bits<D>::value;
  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Tile, Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, LayoutD*, AlignmentT, D,
      LayoutD*, AlignmentD, EpilogueSchedule>::CollectiveOp;
  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, T, cutlass::layout::RowMajor*,
      AlignmentT, T, cutlass::layout::ColumnMajor*, AlignmentT, float, Tile, Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename CollectiveEpilogue::SharedStorage))>,
      KernelSchedule>::CollectiveOp;
  using GemmKernel = cutlass::gemm::kernel::GemmUniversal<ProblemShape, CollectiveMainloop,
                                                          CollectiveEpilogue, void, void>;
  using KS = typename GemmKernel::SharedStorage;
  std::printf(
      "{\"label\": \"%s\", \"stages\": %d, \"mainloop_smem\": %d, \"epilogue_smem\": %d, "
      "\"kernel_smem\": %d, \"kernel_align\": %d, \"max_threads_per_block\": %d, "
      "\"pipelines\": %d}\n",
      label, int(CollectiveMainloop::DispatchPolicy::Stages),
      int(sizeof(typename CollectiveMainloop::SharedStorage)),
      int(sizeof(typename CollectiveEpilogue::SharedStorage)), int(GemmKernel::SharedStorageSize),
      int(alignof(KS)), int(GemmKernel::MaxThreadsPerBlock),
      int(sizeof(typename KS::PipelineStorage)));
}

int main() {
  report<cutlass::half_t, cutlass::half_t, 128, 128, 64, true, false>("pingpong f16 128x128x64");
  report<cutlass::half_t, cutlass::half_t, 128, 128, 64, true, true>("pingpong f16 128x128x64 swap");
  report<cutlass::half_t, cutlass::half_t, 64, 256, 64, true, false>("pingpong f16 64x256x64");
  report<cutlass::float_e4m3_t, cutlass::bfloat16_t, 128, 16, 128, true, false>(
      "pingpong e4m3 bf16 128x16x128");
  report<cutlass::half_t, cutlass::half_t, 128, 128, 64, false, false>("cooperative f16 128x128x64");
  return 0;
}
