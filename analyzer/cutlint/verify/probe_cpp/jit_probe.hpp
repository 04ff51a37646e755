// ---- cutlint JIT-module probe helpers (included by cutlint.verify.jit_probe's header copies) ----
// Prints, at program start, the compile-time numbers of one CUTLASS 3.x kernel type: the stage
// count, sizeof of the mainloop, epilogue and kernel SharedStorage, member offsets, threads and
// the register split. Nothing here references device_kernel<GemmKernel>: no GEMM device code.
#pragma once
#include <cstddef>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace cutlint_jit_probe {

inline void put_str(const char* s) {
  std::putchar('"');
  for (; *s; ++s) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') { std::putchar('\\'); std::putchar(c); }
    else if (c < 0x20) { std::printf("\\u%04x", c); }
    else { std::putchar(c); }
  }
  std::putchar('"');
}

struct Out {
  bool first = true;
  void key(const char* k) { std::printf("%s\"%s\": ", first ? "" : ", ", k); first = false; }
  void num(const char* k, long long v) { key(k); std::printf("%lld", v); }
};

// offset and size of a (possibly nested) data member, if the struct has it; the struct is never
// constructed: only member addresses are taken, inside raw storage of the right alignment.
#define CUTLINT_JIT_MEMBER(ID, PATH)                                                            \
  template <class T, class = void> struct has_##ID : std::false_type {};                        \
  template <class T>                                                                            \
  struct has_##ID<T, std::void_t<decltype(std::declval<T&>().PATH)>> : std::true_type {};       \
  template <class T> void emit_##ID(Out& out, const char* scope) {                              \
    if constexpr (has_##ID<T>::value) {                                                         \
      void* raw = ::operator new(sizeof(T), std::align_val_t(alignof(T)));                      \
      T* p = static_cast<T*>(raw);                                                              \
      long long off = reinterpret_cast<const char*>(std::addressof(p->PATH)) -                  \
                      reinterpret_cast<const char*>(p);                                         \
      char k[160];                                                                              \
      std::snprintf(k, sizeof k, "%s.%s.offset", scope, #PATH);                                 \
      out.num(k, off);                                                                          \
      std::snprintf(k, sizeof k, "%s.%s.size", scope, #PATH);                                   \
      out.num(k, static_cast<long long>(sizeof(p->PATH)));                                      \
      ::operator delete(raw, std::align_val_t(alignof(T)));                                     \
    }                                                                                           \
  }

#define CUTLINT_JIT_STATIC(ID, NAME)                                                            \
  template <class T, class = void> struct has_##ID : std::false_type {};                        \
  template <class T> struct has_##ID<T, std::void_t<decltype(T::NAME)>> : std::true_type {};   \
  template <class T> void emit_##ID(Out& out, const char* key) {                                \
    if constexpr (has_##ID<T>::value) { out.num(key, static_cast<long long>(T::NAME)); }        \
  }

CUTLINT_JIT_MEMBER(k_pipelines, pipelines)
CUTLINT_JIT_MEMBER(k_pipelines_mainloop, pipelines.mainloop)
CUTLINT_JIT_MEMBER(k_pipelines_epi_load, pipelines.epi_load)
CUTLINT_JIT_MEMBER(k_pipelines_load_order, pipelines.load_order)
CUTLINT_JIT_MEMBER(k_pipelines_scheduler, pipelines.scheduler)
CUTLINT_JIT_MEMBER(k_scheduler, scheduler)
CUTLINT_JIT_MEMBER(k_scheduler_response, scheduler_response)
CUTLINT_JIT_MEMBER(k_tensors, tensors)
CUTLINT_JIT_MEMBER(k_tensors_mainloop, tensors.mainloop)
CUTLINT_JIT_MEMBER(k_tensors_epilogue, tensors.epilogue)
CUTLINT_JIT_MEMBER(k_tensormaps, tensormaps)
CUTLINT_JIT_MEMBER(m_smem_A, tensors.smem_A)
CUTLINT_JIT_MEMBER(m_smem_B, tensors.smem_B)
CUTLINT_JIT_MEMBER(m_smem_SFA, tensors.smem_SFA)
CUTLINT_JIT_MEMBER(m_smem_SFB, tensors.smem_SFB)
CUTLINT_JIT_MEMBER(m_smem_D, tensors.smem_D)
CUTLINT_JIT_MEMBER(m_smem_L1, tensors.smem_L1)
CUTLINT_JIT_MEMBER(m_pipeline_storage, pipeline_storage)
CUTLINT_JIT_MEMBER(m_pipeline_storage_mainloop, pipeline_storage.mainloop)
CUTLINT_JIT_MEMBER(m_pipeline_storage_lora, pipeline_storage.lora)
CUTLINT_JIT_MEMBER(m_tensormaps, tensormaps)
CUTLINT_JIT_MEMBER(e_collective, tensors.collective)
CUTLINT_JIT_MEMBER(e_thread, tensors.thread)
CUTLINT_JIT_MEMBER(e_pipeline, pipeline)
CUTLINT_JIT_MEMBER(e_tensormaps, tensormaps)
// the members of a kernel whose SharedStorage is its own struct (FlashInfer's TGV GEMM)
CUTLINT_JIT_MEMBER(t_A, A)
CUTLINT_JIT_MEMBER(t_B, B)
CUTLINT_JIT_MEMBER(t_full, tma_mma_full_barrier)
CUTLINT_JIT_MEMBER(t_empty, tma_mma_empty_barrier)
CUTLINT_JIT_MEMBER(t_epilog_full, tma_epilog_full_barrier)
CUTLINT_JIT_MEMBER(t_mma_epilog_full, mma_epilog_full_barrier)
CUTLINT_JIT_MEMBER(t_tmem_base_ptr, tmem_base_ptr)
CUTLINT_JIT_STATIC(s_load_regs, LoadRegisterRequirement)
CUTLINT_JIT_STATIC(s_mma_regs, MmaRegisterRequirement)
CUTLINT_JIT_STATIC(s_stages_c, StagesC)
CUTLINT_JIT_STATIC(s_stages_d, StagesD)
CUTLINT_JIT_STATIC(s_reuse_smem_c, ReuseSmemC)

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
