// ---- cutlint JIT-module probe helpers (included by cutlint.verify.jit_probe's header copies;
// cutlint.families.probe.PRINT_HPP comes first) ----
// Prints, at program start, the compile-time numbers of one CUTLASS 3.x kernel type: the stage
// count, sizeof of the mainloop, epilogue and kernel SharedStorage, member offsets, threads and
// the register split. Nothing here references device_kernel<GemmKernel>: no GEMM device code.
#pragma once
#include <initializer_list>

namespace cutlint_jit_probe {

using cutlint_probe_print::Out;
using cutlint_probe_print::put_str;

CUTLINT_PRINT_MEMBER(k_pipelines, pipelines, false)
CUTLINT_PRINT_MEMBER(k_pipelines_mainloop, pipelines.mainloop, false)
CUTLINT_PRINT_MEMBER(k_pipelines_epi_load, pipelines.epi_load, false)
CUTLINT_PRINT_MEMBER(k_pipelines_load_order, pipelines.load_order, false)
CUTLINT_PRINT_MEMBER(k_pipelines_scheduler, pipelines.scheduler, false)
CUTLINT_PRINT_MEMBER(k_scheduler, scheduler, false)
CUTLINT_PRINT_MEMBER(k_scheduler_response, scheduler_response, false)
CUTLINT_PRINT_MEMBER(k_tensors, tensors, false)
CUTLINT_PRINT_MEMBER(k_tensors_mainloop, tensors.mainloop, false)
CUTLINT_PRINT_MEMBER(k_tensors_epilogue, tensors.epilogue, false)
CUTLINT_PRINT_MEMBER(k_tensormaps, tensormaps, false)
CUTLINT_PRINT_MEMBER(m_smem_A, tensors.smem_A, false)
CUTLINT_PRINT_MEMBER(m_smem_B, tensors.smem_B, false)
CUTLINT_PRINT_MEMBER(m_smem_SFA, tensors.smem_SFA, false)
CUTLINT_PRINT_MEMBER(m_smem_SFB, tensors.smem_SFB, false)
CUTLINT_PRINT_MEMBER(m_smem_D, tensors.smem_D, false)
CUTLINT_PRINT_MEMBER(m_smem_L1, tensors.smem_L1, false)
CUTLINT_PRINT_MEMBER(m_pipeline_storage, pipeline_storage, false)
CUTLINT_PRINT_MEMBER(m_pipeline_storage_mainloop, pipeline_storage.mainloop, false)
CUTLINT_PRINT_MEMBER(m_pipeline_storage_lora, pipeline_storage.lora, false)
CUTLINT_PRINT_MEMBER(m_tensormaps, tensormaps, false)
CUTLINT_PRINT_MEMBER(e_collective, tensors.collective, false)
CUTLINT_PRINT_MEMBER(e_thread, tensors.thread, false)
CUTLINT_PRINT_MEMBER(e_pipeline, pipeline, false)
CUTLINT_PRINT_MEMBER(e_tensormaps, tensormaps, false)
// the members of a kernel whose SharedStorage is its own struct (FlashInfer's TGV GEMM)
CUTLINT_PRINT_MEMBER(t_A, A, false)
CUTLINT_PRINT_MEMBER(t_B, B, false)
CUTLINT_PRINT_MEMBER(t_full, tma_mma_full_barrier, false)
CUTLINT_PRINT_MEMBER(t_empty, tma_mma_empty_barrier, false)
CUTLINT_PRINT_MEMBER(t_epilog_full, tma_epilog_full_barrier, false)
CUTLINT_PRINT_MEMBER(t_mma_epilog_full, mma_epilog_full_barrier, false)
CUTLINT_PRINT_MEMBER(t_tmem_base_ptr, tmem_base_ptr, false)
CUTLINT_PRINT_STATIC(s_load_regs, LoadRegisterRequirement)
CUTLINT_PRINT_STATIC(s_mma_regs, MmaRegisterRequirement)
CUTLINT_PRINT_STATIC(s_stages_c, StagesC)
CUTLINT_PRINT_STATIC(s_stages_d, StagesD)
CUTLINT_PRINT_STATIC(s_reuse_smem_c, ReuseSmemC)

struct no_policy {};
template <class T, class = void> struct policy_of { using type = no_policy; };
template <class T> struct policy_of<T, std::void_t<typename T::DispatchPolicy>> {
  using type = typename T::DispatchPolicy;
};

// One JSON line for kernel type K. `where`: __FILE__ of the instantiation (a macro expansion) or
// the enclosing function's __PRETTY_FUNCTION__ (an explicit function-template instantiation).
template <class K>
bool report(const char* label, const char* where, int line, std::initializer_list<const char*> args) {
  using M = typename K::CollectiveMainloop;
  using E = typename K::CollectiveEpilogue;
  using KS = typename K::SharedStorage;
  using MS = typename M::SharedStorage;
  using ES = typename E::SharedStorage;
  std::printf("CUTLINT_JIT_PROBE {\"label\": ");
  put_str(label);
  std::printf(", \"where\": ");
  put_str(where);
  std::printf(", \"line\": %d, \"args\": [", line);
  bool first = true;
  for (const char* a : args) { if (!first) std::printf(", "); put_str(a); first = false; }
  std::printf("], ");
  Out o;
  o.num("stages", static_cast<long long>(M::DispatchPolicy::Stages));
  o.num("mainloop_smem", static_cast<long long>(sizeof(MS)));
  o.num("epilogue_smem", static_cast<long long>(sizeof(ES)));
  o.num("kernel_smem", static_cast<long long>(K::SharedStorageSize));
  o.num("kernel_align", static_cast<long long>(alignof(KS)));
  o.num("max_threads_per_block", static_cast<long long>(K::MaxThreadsPerBlock));
  o.key("members");
  std::printf("{");
  Out m;
  m.num("mainloop.align", static_cast<long long>(alignof(MS)));
  m.num("epilogue.align", static_cast<long long>(alignof(ES)));
  emit_k_pipelines<KS>(m, "kernel");
  emit_k_pipelines_mainloop<KS>(m, "kernel");
  emit_k_pipelines_epi_load<KS>(m, "kernel");
  emit_k_pipelines_load_order<KS>(m, "kernel");
  emit_k_pipelines_scheduler<KS>(m, "kernel");
  emit_k_scheduler<KS>(m, "kernel");
  emit_k_scheduler_response<KS>(m, "kernel");
  emit_k_tensors<KS>(m, "kernel");
  emit_k_tensors_mainloop<KS>(m, "kernel");
  emit_k_tensors_epilogue<KS>(m, "kernel");
  emit_k_tensormaps<KS>(m, "kernel");
  emit_m_smem_A<MS>(m, "mainloop");
  emit_m_smem_B<MS>(m, "mainloop");
  emit_m_smem_SFA<MS>(m, "mainloop");
  emit_m_smem_SFB<MS>(m, "mainloop");
  emit_m_smem_D<MS>(m, "mainloop");
  emit_m_smem_L1<MS>(m, "mainloop");
  emit_m_pipeline_storage<MS>(m, "mainloop");
  emit_m_pipeline_storage_mainloop<MS>(m, "mainloop");
  emit_m_pipeline_storage_lora<MS>(m, "mainloop");
  emit_m_tensormaps<MS>(m, "mainloop");
  emit_e_collective<ES>(m, "epilogue");
  emit_e_thread<ES>(m, "epilogue");
  emit_e_pipeline<ES>(m, "epilogue");
  emit_e_tensormaps<ES>(m, "epilogue");
  emit_s_load_regs<K>(m, "kernel.LoadRegisterRequirement");
  emit_s_mma_regs<K>(m, "kernel.MmaRegisterRequirement");
  using EP = typename policy_of<E>::type;
  emit_s_stages_c<EP>(m, "epilogue.StagesC");
  emit_s_stages_d<EP>(m, "epilogue.StagesD");
  emit_s_reuse_smem_c<EP>(m, "epilogue.ReuseSmemC");
  std::printf("}}\n");
  std::fflush(stdout);
  return true;
}

// For a kernel built inside a function template: odr-using `registered<K, Tag>::done` in the
// function body makes its definition (and so its dynamic initializer, which reports) part of the
// program for each explicit instantiation of the function. Tag is a local class of the function,
// whose name() is __PRETTY_FUNCTION__ with the enclosing function's template arguments.
template <class K, class Tag> struct registered { static const bool done; };
template <class K, class Tag>
const bool registered<K, Tag>::done = report<K>(Tag::label(), Tag::name(), 0, {});

// A kernel with no CUTLASS kernel type, whose launcher sizes the dynamic shared memory as
// sizeof(S) of its own SharedStorage struct S (FlashInfer's TGV GEMM): sizeof, alignof and the
// members of S, the stage count and block size the launcher passes (Tag::stages(),
// Tag::threads(): the template argument and the `blockDim` literal of the launcher). There are no
// mainloop and epilogue collectives: mainloop_smem is sizeof(S), epilogue_smem 0.
template <class S, class Tag>
bool report_storage() {
  std::printf("CUTLINT_JIT_PROBE {\"label\": ");
  put_str(Tag::label());
  std::printf(", \"where\": ");
  put_str(Tag::name());
  std::printf(", \"line\": 0, \"args\": [], ");
  Out o;
  o.num("stages", static_cast<long long>(Tag::stages()));
  o.num("mainloop_smem", static_cast<long long>(sizeof(S)));
  o.num("epilogue_smem", 0);
  o.num("kernel_smem", static_cast<long long>(sizeof(S)));
  o.num("kernel_align", static_cast<long long>(alignof(S)));
  o.num("max_threads_per_block", static_cast<long long>(Tag::threads()));
  o.key("members");
  std::printf("{");
  Out m;
  emit_t_A<S>(m, "kernel");
  emit_t_B<S>(m, "kernel");
  emit_t_full<S>(m, "kernel");
  emit_t_empty<S>(m, "kernel");
  emit_t_epilog_full<S>(m, "kernel");
  emit_t_mma_epilog_full<S>(m, "kernel");
  emit_t_tmem_base_ptr<S>(m, "kernel");
  std::printf("}}\n");
  std::fflush(stdout);
  return true;
}

template <class S, class Tag> struct registered_storage { static const bool done; };
template <class S, class Tag>
const bool registered_storage<S, Tag>::done = report_storage<S, Tag>();

}  // namespace cutlint_jit_probe
