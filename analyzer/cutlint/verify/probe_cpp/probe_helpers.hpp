// ---- cutlint nvcc probe helpers (appended by cutlint.verify.nvcc_probe) ----
#include <cstddef>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace cutlint_probe {

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

inline void put_head(int line, const char* const* args, int nargs) {
  std::printf("CUTLINT_PROBE {\"line\": %d, \"args\": [", line);
  for (int i = 0; i < nargs; ++i) { if (i) std::printf(", "); put_str(args[i]); }
  std::printf("]");
}

// How many launchers reported, so the registrar can tell "returned silently" from "reported".
inline int& report_count() { static int n = 0; return n; }

struct Members {
  bool first = true;
  void add(const char* key, long long v) {
    std::printf("%s\"%s\": %lld", first ? "" : ", ", key, v);
    first = false;
  }
  void add2(const char* scope, const char* path, long long off, long long size) {
    std::printf("%s\"%s.%s.offset\": %lld, \"%s.%s.size\": %lld",
                first ? "" : ", ", scope, path, off, scope, path, size);
    first = false;
  }
};

// offset and size of a (possibly nested) data member, if the struct has it. The struct is never
// constructed: only member addresses are taken, inside raw storage of the right alignment.
#define CUTLINT_PROBE_MEMBER(ID, PATH)                                                          \
  template <class T, class = void> struct has_##ID : std::false_type {};                        \
  template <class T>                                                                            \
  struct has_##ID<T, std::void_t<decltype(std::declval<T&>().PATH)>> : std::true_type {};       \
  template <class T> void emit_##ID(Members& out, const char* scope) {                          \
    if constexpr (has_##ID<T>::value) {                                                         \
      void* raw = ::operator new(sizeof(T), std::align_val_t(alignof(T)));                      \
      T* p = static_cast<T*>(raw);                                                              \
      long long off = reinterpret_cast<const char*>(std::addressof(p->PATH)) -                  \
                      reinterpret_cast<const char*>(p);                                         \
      out.add2(scope, #PATH, off, static_cast<long long>(sizeof(p->PATH)));                     \
      ::operator delete(raw, std::align_val_t(alignof(T)));                                     \
    }                                                                                           \
  }

// A static constexpr member, if the class has it.
#define CUTLINT_PROBE_STATIC(ID, NAME)                                                          \
  template <class T, class = void> struct has_##ID : std::false_type {};                        \
  template <class T> struct has_##ID<T, std::void_t<decltype(T::NAME)>> : std::true_type {};   \
  template <class T> void emit_##ID(Members& out, const char* key) {                            \
    if constexpr (has_##ID<T>::value) { out.add(key, static_cast<long long>(T::NAME)); }        \
  }

// Kernel SharedStorage (sm90_gemm_array_tma_warpspecialized_{cooperative,pingpong}.hpp).
CUTLINT_PROBE_MEMBER(k_tensors, tensors)
CUTLINT_PROBE_MEMBER(k_tensors_mainloop, tensors.mainloop)
CUTLINT_PROBE_MEMBER(k_tensors_epilogue, tensors.epilogue)
CUTLINT_PROBE_MEMBER(k_pipelines, pipelines)
CUTLINT_PROBE_MEMBER(k_pipelines_scheduler, pipelines.scheduler)
CUTLINT_PROBE_MEMBER(k_pipelines_mainloop, pipelines.mainloop)
CUTLINT_PROBE_MEMBER(k_pipelines_epi_load, pipelines.epi_load)
CUTLINT_PROBE_MEMBER(k_pipelines_load_order, pipelines.load_order)
CUTLINT_PROBE_MEMBER(k_scheduler_response, scheduler_response)
CUTLINT_PROBE_MEMBER(k_tensormaps, tensormaps)
CUTLINT_PROBE_MEMBER(k_tensormaps_mainloop, tensormaps.mainloop)
CUTLINT_PROBE_MEMBER(k_tensormaps_epilogue, tensormaps.epilogue)
// Mainloop SharedStorage (sm120_blockscaled_mma_array_tma.hpp and relatives).
CUTLINT_PROBE_MEMBER(m_tensors, tensors)
CUTLINT_PROBE_MEMBER(m_smem_A, tensors.smem_A)
CUTLINT_PROBE_MEMBER(m_smem_B, tensors.smem_B)
CUTLINT_PROBE_MEMBER(m_smem_SFA, tensors.smem_SFA)
CUTLINT_PROBE_MEMBER(m_smem_SFB, tensors.smem_SFB)
CUTLINT_PROBE_MEMBER(m_tensormaps, tensormaps)
CUTLINT_PROBE_MEMBER(m_pipeline_storage, pipeline_storage)
CUTLINT_PROBE_MEMBER(m_pipeline, pipeline)
// Epilogue SharedStorage (sm90_epilogue_array_tma_warpspecialized.hpp and relatives).
CUTLINT_PROBE_MEMBER(e_tensors, tensors)
CUTLINT_PROBE_MEMBER(e_collective, tensors.collective)
CUTLINT_PROBE_MEMBER(e_thread, tensors.thread)
CUTLINT_PROBE_MEMBER(e_tensormaps, tensormaps)
CUTLINT_PROBE_MEMBER(e_pipeline, pipeline)
CUTLINT_PROBE_STATIC(s_sched_stages, TileSchedulerStages)
CUTLINT_PROBE_STATIC(s_stages_c, StagesC)
CUTLINT_PROBE_STATIC(s_stages_d, StagesD)
CUTLINT_PROBE_STATIC(s_reuse_smem_c, ReuseSmemC)
CUTLINT_PROBE_STATIC(s_sched_pipe_stages, SchedulerPipelineStageCount)

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
  Members m;
  m.add("kernel.sizeof", static_cast<long long>(sizeof(KS)));
  m.add("kernel.align", static_cast<long long>(alignof(KS)));
  m.add("mainloop.align", static_cast<long long>(alignof(MS)));
  m.add("epilogue.align", static_cast<long long>(alignof(ES)));
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
  emit_e_pipeline<ES>(m, "epilogue");
  emit_s_sched_stages<GemmKernel>(m, "kernel.TileSchedulerStages");
  emit_s_stages_c<EP>(m, "epilogue.StagesC");
  emit_s_stages_d<EP>(m, "epilogue.StagesD");
  emit_s_reuse_smem_c<EP>(m, "epilogue.ReuseSmemC");
  emit_s_sched_pipe_stages<typename Mainloop::DispatchPolicy>(m,
                                                             "mainloop.SchedulerPipelineStageCount");
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
