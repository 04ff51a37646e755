// ---- cutlint nvcc probe helpers for MoeGemmRunner's CUTLASS 2.x grouped kernels ----
// Inserted by cutlint.verify.sm8x_grouped_probe after the includes of the probe copy of
// moe_gemm_template_dispatch.h. genericMoeGemmKernelLauncher::call keeps its text up to
// `using GemmGrouped = ...;`; the rest of the unfused branch (the occupancy query, initialize,
// run) becomes `::cutlint_grouped_probe::report<...>()`, which prints the kernel's compile-time
// numbers. Nothing references cutlass::Kernel<GemmKernel>, so no kernel is generated.
#include <cstdio>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace cutlint_grouped_probe {

// gcc's __PRETTY_FUNCTION__ ends in "[with T = <the type>]": the type as the compiler spells it.
template <class T>
const char* type_name() {
  return __PRETTY_FUNCTION__;
}

struct Out {
  bool first = true;
  void key(const char* k) {
    std::printf("%s\"%s\": ", first ? "" : ", ", k);
    first = false;
  }
  void num(const char* k, long long v) {
    key(k);
    std::printf("%lld", v);
  }
  void str(const char* k, const char* s, int max_len = 4096) {
    if (k != nullptr) key(k);
    std::putchar('"');
    for (int i = 0; *s && i < max_len; ++s, ++i) {
      unsigned char c = static_cast<unsigned char>(*s);
      if (c == '"' || c == '\\') {
        std::putchar('\\');
        std::putchar(c);
      } else if (c >= 0x20) {
        std::putchar(c);
      }
    }
    std::putchar('"');
  }
};

template <class T, class = void>
struct has_storage_shape : std::false_type {};
template <class T>
struct has_storage_shape<T, std::void_t<typename T::StorageShape>> : std::true_type {};

template <class T, class = void>
struct has_storage : std::false_type {};
template <class T>
struct has_storage<T, std::void_t<decltype(std::declval<T&>().storage)>> : std::true_type {};

template <class S, class M>
long long offset_of(M S::*member) {
  void* raw = ::operator new(sizeof(S), std::align_val_t(alignof(S)));
  S* p = static_cast<S*>(raw);
  long long off = reinterpret_cast<const char*>(std::addressof(p->*member)) -
                  reinterpret_cast<const char*>(p);
  ::operator delete(raw, std::align_val_t(alignof(S)));
  return off;
}

template <class GemmKernel, class T, class WeightType, class Arch, class ThreadblockShape,
          class WarpShape, int Stages>
void report() {
  using KS = typename GemmKernel::SharedStorage;
  using Mma = typename GemmKernel::Mma;
  using Epilogue = typename GemmKernel::Epilogue;
  using MS = typename Mma::SharedStorage;
  using ES = typename Epilogue::SharedStorage;
  Out out;
  std::printf("CUTLINT_GROUPED_PROBE {");
  out.str("T", type_name<T>());
  out.str("WeightType", type_name<WeightType>());
  out.str("arch", type_name<Arch>());
  out.num("tb_m", ThreadblockShape::kM);
  out.num("tb_n", ThreadblockShape::kN);
  out.num("tb_k", ThreadblockShape::kK);
  out.num("warp_m", WarpShape::kM);
  out.num("warp_n", WarpShape::kN);
  out.num("warp_k", WarpShape::kK);
  out.num("stages", Stages);
  // base_grouped.h maximum_active_blocks: smem_size = int(sizeof(BaseKernel::SharedStorage))
  out.num("kernel.sizeof", static_cast<long long>(sizeof(KS)));
  out.num("kernel.alignof", static_cast<long long>(alignof(KS)));
  out.num("kernel.kThreadCount", static_cast<long long>(GemmKernel::kThreadCount));
  out.num("mma.kStages", static_cast<long long>(Mma::kStages));
  out.num("mma.sizeof", static_cast<long long>(sizeof(MS)));
  out.num("mma.alignof", static_cast<long long>(alignof(MS)));
  out.num("mma.ShapeA.kRow", MS::ShapeA::kRow);
  out.num("mma.ShapeA.kColumn", MS::ShapeA::kColumn);
  out.num("mma.ShapeB.kRow", MS::ShapeB::kRow);
  out.num("mma.ShapeB.kColumn", MS::ShapeB::kColumn);
  out.num("mma.operand_A.offset", offset_of(&MS::operand_A));
  out.num("mma.operand_A.size", static_cast<long long>(sizeof(std::declval<MS&>().operand_A)));
  out.num("mma.operand_B.offset", offset_of(&MS::operand_B));
  out.num("mma.operand_B.size", static_cast<long long>(sizeof(std::declval<MS&>().operand_B)));
  out.num("mma.element_a_bits", cutlass::sizeof_bits<typename Mma::IteratorA::Element>::value);
  out.num("mma.element_b_bits", cutlass::sizeof_bits<typename Mma::IteratorB::Element>::value);
  out.num("epilogue.sizeof", static_cast<long long>(sizeof(ES)));
  out.num("epilogue.alignof", static_cast<long long>(alignof(ES)));
  if constexpr (has_storage_shape<ES>::value) {
    out.num("epilogue.Shape.kRow", ES::Shape::kRow);
    out.num("epilogue.Shape.kColumn", ES::Shape::kColumn);
    out.num("epilogue.StorageShape.kRow", ES::StorageShape::kRow);
    out.num("epilogue.StorageShape.kColumn", ES::StorageShape::kColumn);
    out.num("epilogue.element_bits", cutlass::sizeof_bits<typename ES::Element>::value);
  }
  if constexpr (has_storage<ES>::value) {
    out.num("epilogue.storage.offset", offset_of(&ES::storage));
    out.num("epilogue.storage.size", static_cast<long long>(sizeof(std::declval<ES&>().storage)));
  }
  out.num("epilogue.kPartitionsK", static_cast<long long>(Epilogue::kPartitionsK));
  out.num("problem_visitor.sizeof",
          static_cast<long long>(sizeof(typename GemmKernel::ProblemVisitor::SharedStorage)));
  out.str("mma_type", type_name<Mma>(), 160);
  out.str("epilogue_type", type_name<Epilogue>(), 160);
  std::printf("}\n");
  std::fflush(stdout);
}

}  // namespace cutlint_grouped_probe
// ---- end of cutlint probe helpers ----
