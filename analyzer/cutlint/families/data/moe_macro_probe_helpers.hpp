// ---- cutlint nvcc probe helpers (appended by cutlint.verify.nvcc_probe, after
// cutlint.families.probe.PRINT_HPP) ----
#include <exception>

namespace cutlint_probe {

using cutlint_probe_print::Out;
using cutlint_probe_print::put_str;

inline void put_head(int line, const char* const* args, int nargs) {
  std::printf("CUTLINT_PROBE {\"line\": %d, \"args\": [", line);
  for (int i = 0; i < nargs; ++i) { if (i) std::printf(", "); put_str(args[i]); }
  std::printf("]");
}

// How many launchers reported, so the registrar can tell "returned silently" from "reported".
inline int& report_count() { static int n = 0; return n; }

// Kernel SharedStorage (sm90_gemm_array_tma_warpspecialized_{cooperative,pingpong}.hpp).
CUTLINT_PRINT_MEMBER(k_tensors, tensors, false)
CUTLINT_PRINT_MEMBER(k_tensors_mainloop, tensors.mainloop, false)
CUTLINT_PRINT_MEMBER(k_tensors_epilogue, tensors.epilogue, false)
CUTLINT_PRINT_MEMBER(k_pipelines, pipelines, false)
CUTLINT_PRINT_MEMBER(k_pipelines_scheduler, pipelines.scheduler, false)
CUTLINT_PRINT_MEMBER(k_pipelines_mainloop, pipelines.mainloop, false)
CUTLINT_PRINT_MEMBER(k_pipelines_epi_load, pipelines.epi_load, false)
CUTLINT_PRINT_MEMBER(k_pipelines_load_order, pipelines.load_order, false)
CUTLINT_PRINT_MEMBER(k_scheduler_response, scheduler_response, false)
CUTLINT_PRINT_MEMBER(k_tensormaps, tensormaps, false)
CUTLINT_PRINT_MEMBER(k_tensormaps_mainloop, tensormaps.mainloop, false)
CUTLINT_PRINT_MEMBER(k_tensormaps_epilogue, tensormaps.epilogue, false)
// Kernel SharedStorage of the SM100/SM103 shells (sm100_gemm_array_tma_warpspecialized.hpp,
// sm103_blockscaled_gemm_array_tma_warpspecialized.hpp): CLC/accumulator pipelines, TMEM pointer,
// one tensormap set per tensormap-updater warp.
CUTLINT_PRINT_MEMBER(k_pipelines_clc, pipelines.clc, false)
CUTLINT_PRINT_MEMBER(k_pipelines_accumulator, pipelines.accumulator, false)
CUTLINT_PRINT_MEMBER(k_pipelines_clc_throttle, pipelines.clc_throttle, false)
CUTLINT_PRINT_MEMBER(k_pipelines_tmem_dealloc, pipelines.tmem_dealloc, false)
CUTLINT_PRINT_MEMBER(k_pipelines_tensor_map_ready, pipelines.tensor_map_ready, false)
CUTLINT_PRINT_MEMBER(k_clc_response, clc_response, false)
CUTLINT_PRINT_MEMBER(k_tmem_base_ptr, tmem_base_ptr, false)
CUTLINT_PRINT_MEMBER(k_tensormaps0, tensormaps[0], false)
CUTLINT_PRINT_MEMBER(k_tensormaps0_mainloop, tensormaps[0].mainloop, false)
CUTLINT_PRINT_MEMBER(k_tensormaps0_epilogue, tensormaps[0].epilogue, false)
// Mainloop SharedStorage (sm120_blockscaled_mma_array_tma.hpp and relatives).
CUTLINT_PRINT_MEMBER(m_tensors, tensors, false)
CUTLINT_PRINT_MEMBER(m_smem_A, tensors.smem_A, false)
CUTLINT_PRINT_MEMBER(m_smem_B, tensors.smem_B, false)
CUTLINT_PRINT_MEMBER(m_smem_SFA, tensors.smem_SFA, false)
CUTLINT_PRINT_MEMBER(m_smem_SFB, tensors.smem_SFB, false)
CUTLINT_PRINT_MEMBER(m_tensormaps, tensormaps, false)
CUTLINT_PRINT_MEMBER(m_pipeline_storage, pipeline_storage, false)
CUTLINT_PRINT_MEMBER(m_pipeline, pipeline, false)
// Epilogue SharedStorage (sm90_epilogue_array_tma_warpspecialized.hpp and relatives).
CUTLINT_PRINT_MEMBER(e_tensors, tensors, false)
CUTLINT_PRINT_MEMBER(e_collective, tensors.collective, false)
CUTLINT_PRINT_MEMBER(e_thread, tensors.thread, false)
CUTLINT_PRINT_MEMBER(e_tensormaps, tensormaps, false)
CUTLINT_PRINT_MEMBER(e_smem_C, tensors.collective.smem_C, false)
CUTLINT_PRINT_MEMBER(e_smem_D, tensors.collective.smem_D, false)
CUTLINT_PRINT_MEMBER(e_pipeline, pipeline, false)
CUTLINT_PRINT_STATIC(s_sched_stages, TileSchedulerStages)
CUTLINT_PRINT_STATIC(s_stages_c, StagesC)
CUTLINT_PRINT_STATIC(s_stages_d, StagesD)
CUTLINT_PRINT_STATIC(s_reuse_smem_c, ReuseSmemC)
CUTLINT_PRINT_STATIC(s_sched_pipe_stages, SchedulerPipelineStageCount)
// SM100/SM103 kernel shells and their epilogues (the statics live on the classes themselves).
CUTLINT_PRINT_STATIC(s_acc_pipe_stages, AccumulatorPipelineStageCount)
CUTLINT_PRINT_STATIC(s_overlapping_accum, IsOverlappingAccum)
CUTLINT_PRINT_STATIC(s_tma_update_async, IsTensorMapUpdateAsync)
CUTLINT_PRINT_STATIC(s_tma_updater_threads, NumTensorMapUpdaterThreads)
CUTLINT_PRINT_STATIC(s_epilogue_threads, NumEpilogueThreads)
CUTLINT_PRINT_STATIC(s_dynamic_persistent, IsSchedDynamicPersistent)
CUTLINT_PRINT_STATIC(s_clc_response_size, CLCResponseSize)
CUTLINT_PRINT_STATIC(s_thread_count, ThreadCount)

// The epilogue subtile (EpilogueTile) M and N, where the epilogue names one.
template <class E, class = void> struct has_epilogue_tile : std::false_type {};
template <class E>
struct has_epilogue_tile<E, std::void_t<typename E::EpilogueTile>> : std::true_type {};
template <class E> void emit_epilogue_tile(Out& out) {
  if constexpr (has_epilogue_tile<E>::value) {
    out.num("epilogue.EpilogueTile.M", static_cast<long long>(cute::size<0>(typename E::EpilogueTile{})));
    out.num("epilogue.EpilogueTile.N", static_cast<long long>(cute::size<1>(typename E::EpilogueTile{})));
  }
}

// TMEM columns of the SM100 accumulators (cutlass/detail/sm100_tmem_helper.hpp:
// make_sm100_accumulator, find_tmem_tensor_col_offset = cosize of the layout recast to 32-bit
// columns), laid out as the mainloop's init_tmem_tensors lays them out, and what the kernel's
// TmemAllocator allocates. Only types are computed (decltype): no CuTe code runs on the host.
template <class T, class = void> struct static_value {
  static constexpr long long value = -1;  // not a compile-time constant
};
template <class T> struct static_value<T, std::void_t<decltype(T::value)>> {
  static constexpr long long value = static_cast<long long>(T::value);
};
template <class Tensor>
using tmem_cols_t = decltype(cute::cosize(cute::recast<uint32_t>(std::declval<Tensor&>()).layout()));
// TmemColMask: a TMEM address holds the lane in its upper and the column in its lower 16 bits.
template <class Tensor> constexpr long long tmem_columns() {
  constexpr long long cosize = static_value<tmem_cols_t<Tensor>>::value;
  return cosize < 0 ? -1 : (cosize & 0xFFFF);
}
template <class K, class = void> struct has_tmem_allocator : std::false_type {};
template <class K>
struct has_tmem_allocator<K, std::void_t<typename K::TmemAllocator,
                                         decltype(K::AccumulatorPipelineStageCount)>>
    : std::true_type {};
template <class M, class = void> struct has_sf_tmem : std::false_type {};
template <class M>
struct has_sf_tmem<M, std::void_t<typename M::TiledMma::FrgTypeSFA, typename M::SmemLayoutAtomSFA,
                                  typename M::TiledMma::FrgTypeSFB, typename M::SmemLayoutAtomSFB>>
    : std::true_type {};
template <class K, class M, class E> void emit_tmem(Out& out) {
  if constexpr (has_tmem_allocator<K>::value && has_epilogue_tile<E>::value) {
    using TiledMma = typename M::TiledMma;
    using AccShape = decltype(cute::partition_shape_C(
        TiledMma{}, cute::take<0, 2>(typename M::TileShape{})));
    using Acc = decltype(cutlass::detail::make_sm100_accumulator<K::AccumulatorPipelineStageCount,
                                                                 K::IsOverlappingAccum>(
        TiledMma{}, AccShape{}, typename E::EpilogueTile{}));
    out.num("tmem.accumulators", tmem_columns<Acc>());
    out.num("tmem.allocated", static_cast<long long>(K::TmemAllocator::Sm100TmemCapacityColumns));
    if constexpr (has_sf_tmem<M>::value) {
      using SFA = decltype(cute::make_tensor<typename TiledMma::FrgTypeSFA>(
          cute::shape(typename M::SmemLayoutAtomSFA{})));
      using SFB = decltype(cute::make_tensor<typename TiledMma::FrgTypeSFB>(
          cute::shape(typename M::SmemLayoutAtomSFB{})));
      out.num("tmem.sfa", tmem_columns<SFA>());
      out.num("tmem.sfb", tmem_columns<SFB>());
    }
  }
}

// A collective's DispatchPolicy (where StagesC/StagesD are public), or an empty stand-in.
struct no_policy {};
template <class T, class = void> struct policy_of { using type = no_policy; };
template <class T> struct policy_of<T, std::void_t<typename T::DispatchPolicy>> {
  using type = typename T::DispatchPolicy;
};

template <class GemmKernel, class Mainloop, class Epilogue>
void report(int line, const char* const* args, int nargs) {
  using KS = typename GemmKernel::SharedStorage;
  using MS = typename Mainloop::SharedStorage;
  using ES = typename Epilogue::SharedStorage;
  put_head(line, args, nargs);
  std::printf(", \"status\": \"ok\", \"stages\": %lld, \"mainloop_smem\": %lld, "
              "\"epilogue_smem\": %lld, \"kernel_smem\": %lld, \"kernel_sizeof\": %lld, "
              "\"kernel_align\": %lld, \"max_threads_per_block\": %lld, \"members\": {",
              static_cast<long long>(Mainloop::DispatchPolicy::Stages),
              static_cast<long long>(sizeof(MS)), static_cast<long long>(sizeof(ES)),
              static_cast<long long>(GemmKernel::SharedStorageSize),
              static_cast<long long>(sizeof(KS)), static_cast<long long>(alignof(KS)),
              static_cast<long long>(GemmKernel::MaxThreadsPerBlock));
  using EP = typename policy_of<Epilogue>::type;
  Out m;
  m.num("kernel.sizeof", static_cast<long long>(sizeof(KS)));
  m.num("kernel.align", static_cast<long long>(alignof(KS)));
  m.num("mainloop.align", static_cast<long long>(alignof(MS)));
  m.num("epilogue.align", static_cast<long long>(alignof(ES)));
  emit_k_tensors<KS>(m, "kernel");
  emit_k_tensors_mainloop<KS>(m, "kernel");
  emit_k_tensors_epilogue<KS>(m, "kernel");
  emit_k_pipelines<KS>(m, "kernel");
  emit_k_pipelines_scheduler<KS>(m, "kernel");
  emit_k_pipelines_mainloop<KS>(m, "kernel");
  emit_k_pipelines_epi_load<KS>(m, "kernel");
  emit_k_pipelines_load_order<KS>(m, "kernel");
  emit_k_scheduler_response<KS>(m, "kernel");
  emit_k_tensormaps<KS>(m, "kernel");
  emit_k_tensormaps_mainloop<KS>(m, "kernel");
  emit_k_tensormaps_epilogue<KS>(m, "kernel");
  emit_m_tensors<MS>(m, "mainloop");
  emit_m_smem_A<MS>(m, "mainloop");
  emit_m_smem_B<MS>(m, "mainloop");
  emit_m_smem_SFA<MS>(m, "mainloop");
  emit_m_smem_SFB<MS>(m, "mainloop");
  emit_m_tensormaps<MS>(m, "mainloop");
  emit_m_pipeline_storage<MS>(m, "mainloop");
  emit_m_pipeline<MS>(m, "mainloop");
  emit_e_tensors<ES>(m, "epilogue");
  emit_e_collective<ES>(m, "epilogue");
  emit_e_thread<ES>(m, "epilogue");
  emit_e_tensormaps<ES>(m, "epilogue");
  emit_e_smem_C<ES>(m, "epilogue");
  emit_e_smem_D<ES>(m, "epilogue");
  emit_k_pipelines_clc<KS>(m, "kernel");
  emit_k_pipelines_accumulator<KS>(m, "kernel");
  emit_k_pipelines_clc_throttle<KS>(m, "kernel");
  emit_k_pipelines_tmem_dealloc<KS>(m, "kernel");
  emit_k_pipelines_tensor_map_ready<KS>(m, "kernel");
  emit_k_clc_response<KS>(m, "kernel");
  emit_k_tmem_base_ptr<KS>(m, "kernel");
  emit_k_tensormaps0<KS>(m, "kernel");
  emit_k_tensormaps0_mainloop<KS>(m, "kernel");
  emit_k_tensormaps0_epilogue<KS>(m, "kernel");
  emit_e_pipeline<ES>(m, "epilogue");
  emit_s_sched_stages<GemmKernel>(m, "kernel.TileSchedulerStages");
  emit_s_stages_c<EP>(m, "epilogue.StagesC");
  emit_s_stages_d<EP>(m, "epilogue.StagesD");
  emit_s_reuse_smem_c<EP>(m, "epilogue.ReuseSmemC");
  emit_s_sched_pipe_stages<typename Mainloop::DispatchPolicy>(m,
                                                             "mainloop.SchedulerPipelineStageCount");
  emit_s_sched_pipe_stages<GemmKernel>(m, "kernel.SchedulerPipelineStageCount");
  emit_s_acc_pipe_stages<GemmKernel>(m, "kernel.AccumulatorPipelineStageCount");
  emit_s_overlapping_accum<GemmKernel>(m, "kernel.IsOverlappingAccum");
  emit_s_tma_update_async<GemmKernel>(m, "kernel.IsTensorMapUpdateAsync");
  emit_s_tma_updater_threads<GemmKernel>(m, "kernel.NumTensorMapUpdaterThreads");
  emit_s_epilogue_threads<GemmKernel>(m, "kernel.NumEpilogueThreads");
  emit_s_dynamic_persistent<GemmKernel>(m, "kernel.IsSchedDynamicPersistent");
  emit_s_clc_response_size<GemmKernel>(m, "kernel.CLCResponseSize");
  emit_s_stages_c<Epilogue>(m, "epilogue.class.StagesC");
  emit_s_stages_d<Epilogue>(m, "epilogue.class.StagesD");
  emit_s_reuse_smem_c<Epilogue>(m, "epilogue.class.ReuseSmemC");
  emit_s_thread_count<Epilogue>(m, "epilogue.ThreadCount");
  emit_epilogue_tile<Epilogue>(m);
  emit_tmem<GemmKernel, Mainloop, Epilogue>(m);
  std::printf("}}\n");
  std::fflush(stdout);
  ++report_count();
}

template <class T, class = void> struct has_swap_ab : std::false_type {};
template <class T>
struct has_swap_ab<T, std::void_t<decltype(std::declval<T&>().swap_ab)>> : std::true_type {};

// The launcher checks SwapAB against the run-time flag before the kernel types are built.
template <class T> void set_swap_ab(T& input, bool value) {
  if constexpr (has_swap_ab<T>::value) { input.swap_ab = value; }
}

// Calls the launcher with value-initialized arguments (null pointers, zero counts): only the
// SwapAB flag is checked before the kernel types are built, and the run-time part is gone.
template <class Input, class... Rest>
bool run(void (*launcher)(Input, Rest...), bool swap_ab, int line, const char* const* args,
         int nargs) {
  int before = report_count();
  const char* error = nullptr;
  try {
    std::decay_t<Input> input{};
    set_swap_ab(input, swap_ab);
    launcher(input, std::decay_t<Rest>{}...);
  } catch (std::exception const& e) {
    error = e.what();
  } catch (...) {
    error = "non-std exception";
  }
  if (error != nullptr || report_count() == before) {
    put_head(line, args, nargs);
    std::printf(", \"status\": \"error\", \"error\": ");
    put_str(error != nullptr ? error : "launcher returned without reporting");
    std::printf("}\n");
    std::fflush(stdout);
  }
  return true;
}

}  // namespace cutlint_probe
