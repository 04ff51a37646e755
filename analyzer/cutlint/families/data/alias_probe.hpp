// cutlint's compiler probe for kernels defined by `using` chains (cutlass_library files and
// hand-written CollectiveBuilder code): prints, for each kernel type, what nvcc computes. Every
// member is looked for, not assumed, so one probe serves CUTLASS 2.x and 3.x kernels and
// device-level types (`device::GemmUniversalAdapter<...>`, whose kernel is `::GemmKernel`, and the
// BLAS-3 device types below).
#pragma once
#include <cstdio>
#include <type_traits>
#include <utility>
#if __has_include("cutlass/detail/sm100_tmem_helper.hpp")
#include "cutlass/detail/sm100_tmem_helper.hpp"
#define CUTLINT_PROBE_SM100_TMEM 1
#endif

namespace cutlint_probe {

// The 2.x BLAS-3 device types name their kernel otherwise: device::Trmm's `TrmmKernel`,
// device::Symm's `SymmKernel`, device::RankK's `RankKkernel`, device::Rank2K's `Rank2Kkernel`
// (cutlass/gemm/device/trmm.h, symm.h, rank_k.h, rank_2k.h). One trait per member, chained, so
// that no two partial specializations of one template collide after `void_t` is substituted.
#define CUTLINT_KERNEL_MEMBER(NAME, MEMBER, NEXT)                                      \
  template <class T, class = void> struct NAME { using type = typename NEXT<T>::type; }; \
  template <class T> struct NAME<T, std::void_t<typename T::MEMBER>> {                 \
    using type = typename T::MEMBER;                                                   \
  };

template <class T> struct kernel_itself { using type = T; };
CUTLINT_KERNEL_MEMBER(kernel_of_rank2k, Rank2Kkernel, kernel_itself)
CUTLINT_KERNEL_MEMBER(kernel_of_rankk, RankKkernel, kernel_of_rank2k)
CUTLINT_KERNEL_MEMBER(kernel_of_symm, SymmKernel, kernel_of_rankk)
CUTLINT_KERNEL_MEMBER(kernel_of_trmm, TrmmKernel, kernel_of_symm)

template <class T, class = void> struct kernel_of { using type = typename kernel_of_trmm<T>::type; };
template <class T> struct kernel_of<T, std::void_t<typename T::GemmKernel>> {
  using type = typename T::GemmKernel;
};

#define CUTLINT_HAS_TYPE(NAME, EXPR)                                                   \
  template <class T, class = void> struct NAME : std::false_type {};                   \
  template <class T> struct NAME<T, std::void_t<EXPR>> : std::true_type {};

CUTLINT_HAS_TYPE(has_storage, typename T::SharedStorage)
CUTLINT_HAS_TYPE(has_mainloop3, typename T::CollectiveMainloop::SharedStorage)
CUTLINT_HAS_TYPE(has_epilogue3, typename T::CollectiveEpilogue::SharedStorage)
CUTLINT_HAS_TYPE(has_stages3, decltype(T::CollectiveMainloop::DispatchPolicy::Stages))
CUTLINT_HAS_TYPE(has_max_threads, decltype(T::MaxThreadsPerBlock))
CUTLINT_HAS_TYPE(has_mma2, typename T::Mma::SharedStorage)
// SymmUniversal and Rank2KUniversal (cutlass/gemm/kernel/symm_universal.h, rank_2k_universal.h)
// hold two mainloops, Mma1 and Mma2, in their SharedStorage union; Mma1 stands for both
CUTLINT_HAS_TYPE(has_mma1, typename T::Mma1::SharedStorage)
CUTLINT_HAS_TYPE(has_epilogue2, typename T::Epilogue::SharedStorage)
CUTLINT_HAS_TYPE(has_stages2, decltype(T::Mma::kStages))
CUTLINT_HAS_TYPE(has_stages1, decltype(T::Mma1::kStages))
CUTLINT_HAS_TYPE(has_thread_count, decltype(T::kThreadCount))

#ifdef CUTLINT_PROBE_SM100_TMEM
// TMEM columns of an SM100 kernel's accumulators: the tensor the shells build
// (cutlass::detail::make_sm100_accumulator<AccumulatorPipelineStageCount, IsOverlappingAccum>
// over partition_shape_C of the MMA tile and the epilogue tile), its cosize in 32-bit columns
// (find_tmem_tensor_col_offset; a TMEM address holds the column in its lower 16 bits). Types
// only: no CuTe code runs on the host.
// Shells without IsOverlappingAccum (the input-transform and cp.async ones) are left out.
template <class T, class = void> struct has_tmem_allocator : std::false_type {};
template <class T>
struct has_tmem_allocator<
    T, std::void_t<typename T::TmemAllocator, decltype(T::AccumulatorPipelineStageCount),
                   decltype(T::IsOverlappingAccum), typename T::CollectiveMainloop::TiledMma,
                   typename T::CollectiveMainloop::TileShape,
                   typename T::CollectiveEpilogue::EpilogueTile>> : std::true_type {};
template <class K>
using sm100_accumulators_t = decltype(cutlass::detail::make_sm100_accumulator<
    K::AccumulatorPipelineStageCount, K::IsOverlappingAccum>(
    typename K::CollectiveMainloop::TiledMma{},
    cute::partition_shape_C(typename K::CollectiveMainloop::TiledMma{},
                            cute::take<0, 2>(typename K::CollectiveMainloop::TileShape{})),
    typename K::CollectiveEpilogue::EpilogueTile{}));
template <class K> constexpr long long accumulator_columns() {
  using Acc = sm100_accumulators_t<K>;
  using Cols = decltype(cute::cosize(cute::recast<uint32_t>(std::declval<Acc&>()).layout()));
  return static_cast<long long>(Cols::value) & 0xFFFF;
}
#endif

template <class Given>
void print(const char* name, const char* file, int line) {
  using K = typename kernel_of<Given>::type;
  std::printf("{\"kernel\": \"%s\", \"file\": \"%s\", \"line\": %d", name, file, line);
  if constexpr (has_storage<K>::value) {
    std::printf(", \"kernel_smem\": %zu, \"kernel_align\": %zu", sizeof(typename K::SharedStorage),
                alignof(typename K::SharedStorage));
  }
  if constexpr (has_mainloop3<K>::value) {
    std::printf(", \"mainloop_smem\": %zu", sizeof(typename K::CollectiveMainloop::SharedStorage));
  } else if constexpr (has_mma2<K>::value) {
    std::printf(", \"mainloop_smem\": %zu", sizeof(typename K::Mma::SharedStorage));
  } else if constexpr (has_mma1<K>::value) {
    std::printf(", \"mainloop_smem\": %zu", sizeof(typename K::Mma1::SharedStorage));
  }
  if constexpr (has_epilogue3<K>::value) {
    std::printf(", \"epilogue_smem\": %zu", sizeof(typename K::CollectiveEpilogue::SharedStorage));
  } else if constexpr (has_epilogue2<K>::value) {
    std::printf(", \"epilogue_smem\": %zu", sizeof(typename K::Epilogue::SharedStorage));
  }
  if constexpr (has_stages3<K>::value) {
    std::printf(", \"stages\": %d", int(K::CollectiveMainloop::DispatchPolicy::Stages));
  } else if constexpr (has_stages2<K>::value) {
    std::printf(", \"stages\": %d", int(K::Mma::kStages));
  } else if constexpr (has_stages1<K>::value) {
    std::printf(", \"stages\": %d", int(K::Mma1::kStages));
  }
  if constexpr (has_max_threads<K>::value) {
    std::printf(", \"threads\": %d", int(K::MaxThreadsPerBlock));
  } else if constexpr (has_thread_count<K>::value) {
    std::printf(", \"threads\": %d", int(K::kThreadCount));
  }
#ifdef CUTLINT_PROBE_SM100_TMEM
  if constexpr (has_tmem_allocator<K>::value) {
    std::printf(", \"accumulator_stages\": %d, \"tmem_accumulators\": %lld",
                int(K::AccumulatorPipelineStageCount), accumulator_columns<K>());
  }
#endif
  std::printf("}\n");
}

}  // namespace cutlint_probe
