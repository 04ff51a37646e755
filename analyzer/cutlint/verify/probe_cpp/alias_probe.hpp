// cutlint's compiler probe for kernels defined by `using` chains (cutlass_library files and
// hand-written CollectiveBuilder code): prints, for each kernel type, what nvcc computes. Every
// member is looked for, not assumed, so one probe serves CUTLASS 2.x and 3.x kernels and
// device-level types (`device::GemmUniversalAdapter<...>`, whose kernel is `::GemmKernel`, and the
// BLAS-3 device types below).
#pragma once
#include <cstdio>
#include <type_traits>

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
  std::printf("}\n");
}

}  // namespace cutlint_probe
