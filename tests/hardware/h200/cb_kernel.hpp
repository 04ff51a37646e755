// One SM90 GEMM as CUTLASS's own examples build it: CollectiveBuilder mainloop with an explicit
// StageCount<N>, a TMA warp-specialized epilogue, GemmUniversal, GemmUniversalAdapter
// (examples/48_hopper_warp_specialized_gemm, examples/49_hopper_gemm_with_collective_builder).
// The harness (cb_gemm.cu) and the host-only size table (cb_sizes.cu) both build kernels here.
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

namespace h200 {

struct Cooperative {
  using Kernel = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
  using Epilogue = cutlass::epilogue::TmaWarpSpecializedCooperative;
  static constexpr char const* name = "cooperative";
};
struct Pingpong {
  using Kernel = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
  using Epilogue = cutlass::epilogue::TmaWarpSpecialized;
  static constexpr char const* name = "pingpong";
};

// The plain epilogue: D = alpha * acc + beta * C (the builder's default fusion).
struct NoBias {};
// D = alpha * acc + beta * C + a bias per column of D, broadcast from a vector of N elements that
// the epilogue stages in shared memory (Sm90RowBroadcast, its SharedStorage holds TileN of them).
template <class ElementBias>
struct PerColBias {};

// EpiM == 0: cutlass::epilogue::collective::EpilogueTileAuto.
template <int TileM, int TileN, int TileK, class ElementAB, class ElementC, class ElementD,
          int Stages, class Schedule, int EpiM = 0, int EpiN = 0, class Bias = NoBias,
          int ClusterM = 1, int ClusterN = 1>
struct CbGemm {
  using ElementInput = ElementAB;
  using ElementOutput = ElementD;
  using ElementSourceC = ElementC;
  static constexpr char const* schedule = Schedule::name;
  using TileShape = cute::Shape<cute::Int<TileM>, cute::Int<TileN>, cute::Int<TileK>>;
  using ClusterShape = cute::Shape<cute::Int<ClusterM>, cute::Int<ClusterN>, cute::_1>;
  using EpilogueTile =
      std::conditional_t<EpiM == 0, cutlass::epilogue::collective::EpilogueTileAuto,
                         cute::Shape<cute::Int<EpiM>, cute::Int<EpiN>>>;
  using ElementAccumulator = float;
  using LayoutA = cutlass::layout::RowMajor;
  using LayoutB = cutlass::layout::ColumnMajor;
  using LayoutC = cutlass::layout::RowMajor;
  static constexpr int AlignmentAB = 128 / cutlass::sizeof_bits<ElementAB>::value;
  static constexpr int AlignmentD = 128 / cutlass::sizeof_bits<ElementD>::value;
  static constexpr int AlignmentC =
      std::is_void_v<ElementC> ? AlignmentD : 128 / cutlass::sizeof_bits<ElementC>::value;

  using ElementSource = std::conditional_t<std::is_void_v<ElementC>, ElementD, ElementC>;
  template <class B>
  struct FusionFor {
    using type = cutlass::epilogue::fusion::LinearCombination<ElementD, ElementAccumulator,
                                                              ElementSource, ElementAccumulator>;
  };
  template <class ElementBias>
  struct FusionFor<PerColBias<ElementBias>> {
    using type = cutlass::epilogue::fusion::LinCombPerColBias<
        ElementD, ElementAccumulator, ElementBias, ElementSource, ElementAccumulator>;
  };
  using FusionOp = typename FusionFor<Bias>::type;
  template <class B>
  struct BiasElementOf {
    using type = float;  // unused: no bias
  };
  template <class ElementBias>
  struct BiasElementOf<PerColBias<ElementBias>> {
    using type = ElementBias;
  };
  static constexpr bool HasBias = !std::is_same_v<Bias, NoBias>;
  using ElementBias = typename BiasElementOf<Bias>::type;

  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape, EpilogueTile,
      ElementAccumulator, ElementAccumulator, ElementC, LayoutC, AlignmentC, ElementD, LayoutC,
      AlignmentD, typename Schedule::Epilogue, FusionOp>::CollectiveOp;

  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementAB, LayoutA, AlignmentAB,
      ElementAB, LayoutB, AlignmentAB, ElementAccumulator, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCount<Stages>, typename Schedule::Kernel>::CollectiveOp;

  using GemmKernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>,
                                                          CollectiveMainloop, CollectiveEpilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;
};

}  // namespace h200
