// ---- cutlint nvcc probe helpers for the SM80 fused MoE launcher ----
// Inserted (after cutlint.families.probe.PRINT_HPP) by cutlint.verify.sm80_fused_moe_probe after
// the includes of the probe copy of fused_moe_gemm_launcher_sm80.inl. The launcher keeps its text up to `using GemmType = ...;`;
// the rest of its body becomes `::cutlint_sm80_probe::touch<GemmType, ...>();`, which makes
// the explicit instantiation odr-use a static member whose initializer prints the numbers at
// program start. Nothing references fused_moe::run_global<GemmType>, so no kernel is generated.
namespace cutlint_sm80_probe {

using cutlint_probe_print::Out;
using cutlint_probe_print::type_name;

// Offset, size and alignment of a data member, if the struct has one of that name (the gated
// storage has smem_fc1_gate_weight, the plain one does not).
// Fused_Moe_Kernel_traits_sm80::SharedStorageNormal / SharedStorageGate
// (cutlass_extensions/gemm/kernel/fused_moe_kernel_traits.cuh).
CUTLINT_PRINT_MEMBER(smem_input, smem_input, true)
CUTLINT_PRINT_MEMBER(smem_fc1_gate_weight, smem_fc1_gate_weight, true)
CUTLINT_PRINT_MEMBER(smem_fc1_weight, smem_fc1_weight, true)
CUTLINT_PRINT_MEMBER(smem_o, smem_o, true)

template <class Traits>
void emit_traits(Out& out, const char* scope) {
  using SS = typename Traits::SharedStorage;
  char key[160];
  auto put = [&](const char* what, long long v) {
    std::snprintf(key, sizeof key, "%s.%s", scope, what);
    out.num(key, v);
  };
  put("kTileM", Traits::kTileM);
  put("kTileN", Traits::kTileN);
  put("kTileK", Traits::kTileK);
  put("Stages", Traits::Stages);
  put("kThreadCount", Traits::kThreadCount);
  put("kSmemSize", Traits::kSmemSize);
  put("sizeof", static_cast<long long>(sizeof(SS)));
  put("alignof", static_cast<long long>(alignof(SS)));
  put("cosize_A", static_cast<long long>(cute::cosize_v<typename Traits::SmemLayoutA>));
  put("cosize_B", static_cast<long long>(cute::cosize_v<typename Traits::SmemLayoutB>));
  put("cosize_O", static_cast<long long>(cute::cosize_v<typename Traits::SmemLayoutO>));
  emit_smem_input<SS>(out, scope);
  emit_smem_fc1_gate_weight<SS>(out, scope);
  emit_smem_fc1_weight<SS>(out, scope);
  emit_smem_o<SS>(out, scope);
}

template <class GemmType, class Element, class Weight, int MaxTileM, int TileN, int TileK,
          int Stages, class EpilogueTag>
bool report() {
  Out out;
  std::printf("CUTLINT_SM80_PROBE {");
  out.str("element", type_name<Element>());
  out.str("weight", type_name<Weight>());
  out.num("MaxTileM", MaxTileM);
  out.num("TileN", TileN);
  out.num("TileK", TileK);
  out.num("Stages", Stages);
  out.str("epilogue_tag", type_name<EpilogueTag>());
  out.num("activation_type", static_cast<long long>(GemmType::activation_type));
  // The launcher's own number: `constexpr int smem_size = GemmType::kSmemSize;`, the dynamic
  // shared memory of the launch, of cudaFuncSetAttribute and of the occupancy query.
  out.num("kSmemSize", GemmType::kSmemSize);
  out.num("kThreadCount", GemmType::kThreadCount);
  out.num("use_m16", GemmType::use_m16 ? 1 : 0);
  out.num("kernel.kTileN", GemmType::kTileN);
  emit_traits<typename GemmType::BaseKernelTraits>(out, "base");
  emit_traits<typename GemmType::BaseKernelTraits_m16>(out, "m16");
  std::printf("}\n");
  std::fflush(stdout);
  return true;
}

template <class GemmType, class Element, class Weight, int MaxTileM, int TileN, int TileK,
          int Stages, class EpilogueTag>
struct Registrar {
  static const bool done;
};
template <class GemmType, class Element, class Weight, int MaxTileM, int TileN, int TileK,
          int Stages, class EpilogueTag>
const bool Registrar<GemmType, Element, Weight, MaxTileM, TileN, TileK, Stages,
                     EpilogueTag>::done =
    report<GemmType, Element, Weight, MaxTileM, TileN, TileK, Stages, EpilogueTag>();

// Taking the member's address odr-uses it, so its definition (and its initializer) is
// instantiated with the explicit instantiation of the launcher.
template <class GemmType, class Element, class Weight, int MaxTileM, int TileN, int TileK,
          int Stages, class EpilogueTag>
void touch() {
  static_cast<void>(
      &Registrar<GemmType, Element, Weight, MaxTileM, TileN, TileK, Stages, EpilogueTag>::done);
}

}  // namespace cutlint_sm80_probe
// ---- end of cutlint probe helpers ----
