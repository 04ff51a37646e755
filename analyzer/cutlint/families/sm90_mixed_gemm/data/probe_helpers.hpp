// ---- cutlint nvcc probe helpers for the SM90 mixed-input launchers ----
// Inserted (after cutlint.families.probe.PRINT_HPP) by cutlint.verify.sm90_mixed_probe after the
// includes of the probe copy of fpA_intB_launcher_sm90.inl (or the mixed-input MoE launcher). The launcher keeps its text up
// to `using GemmKernel = ...;`; the rest of the run-time part becomes
// `::cutlint_sm90_mixed_probe::touch<...>();`, which makes the explicit instantiation odr-use a
// static member whose initializer prints the numbers at program start. Nothing references
// device_kernel<GemmKernel>, so no GEMM device code is generated.
namespace cutlint_sm90_mixed_probe {

using cutlint_probe_print::Out;
using cutlint_probe_print::type_name;

// Offset and size of a data member of the mainloop's TensorStorage, if it has one of that name.
CUTLINT_PRINT_MEMBER(smem_A, smem_A, false)
CUTLINT_PRINT_MEMBER(smem_B, smem_B, false)
CUTLINT_PRINT_MEMBER(smem_scale, smem_scale, false)
CUTLINT_PRINT_MEMBER(smem_zero, smem_zero, false)

template <class Kernel, class Mainloop, class Epilogue, class Activation, class Weight,
          class ScaleZero, class Bias, class Output, int QuantOp, class Tile, class Cluster,
          class MainloopSchedule, class EpilogueSchedule>
bool report() {
  Out out;
  std::printf("CUTLINT_SM90_MIXED_PROBE {");
  out.str("activation", type_name<Activation>());
  out.str("weight", type_name<Weight>());
  out.str("scale_zero", type_name<ScaleZero>());
  out.str("bias", type_name<Bias>());
  out.str("output", type_name<Output>());
  out.num("quant_op", QuantOp);
  out.num("tile_m", cute::size<0>(Tile{}));
  out.num("tile_n", cute::size<1>(Tile{}));
  out.num("tile_k", cute::size<2>(Tile{}));
  out.num("cluster_m", cute::size<0>(Cluster{}));
  out.num("cluster_n", cute::size<1>(Cluster{}));
  out.num("cluster_k", cute::size<2>(Cluster{}));
  out.str("mainloop_schedule", type_name<MainloopSchedule>());
  out.str("epilogue_schedule", type_name<EpilogueSchedule>());
  out.num("Stages", Mainloop::DispatchPolicy::Stages);
  out.num("mainloop.sizeof", static_cast<long long>(sizeof(typename Mainloop::SharedStorage)));
  using TS = typename Mainloop::TensorStorage;
  out.num("mainloop.tensors.sizeof", static_cast<long long>(sizeof(TS)));
  out.num("mainloop.tensors.alignof", static_cast<long long>(alignof(TS)));
  emit_smem_A<TS>(out, "mainloop.tensors");
  emit_smem_B<TS>(out, "mainloop.tensors");
  emit_smem_scale<TS>(out, "mainloop.tensors");
  emit_smem_zero<TS>(out, "mainloop.tensors");
  out.num("epilogue.sizeof", static_cast<long long>(sizeof(typename Epilogue::SharedStorage)));
  out.num("SharedStorageSize", static_cast<long long>(Kernel::SharedStorageSize));
  out.num("MaxThreadsPerBlock", static_cast<long long>(Kernel::MaxThreadsPerBlock));
  std::printf("}\n");
  std::fflush(stdout);
  return true;
}

template <class Kernel, class Mainloop, class Epilogue, class Activation, class Weight,
          class ScaleZero, class Bias, class Output, int QuantOp, class Tile, class Cluster,
          class MainloopSchedule, class EpilogueSchedule>
struct Holder {
  static const bool done;
};
template <class Kernel, class Mainloop, class Epilogue, class Activation, class Weight,
          class ScaleZero, class Bias, class Output, int QuantOp, class Tile, class Cluster,
          class MainloopSchedule, class EpilogueSchedule>
const bool Holder<Kernel, Mainloop, Epilogue, Activation, Weight, ScaleZero, Bias, Output, QuantOp,
                  Tile, Cluster, MainloopSchedule, EpilogueSchedule>::done =
    report<Kernel, Mainloop, Epilogue, Activation, Weight, ScaleZero, Bias, Output, QuantOp, Tile,
           Cluster, MainloopSchedule, EpilogueSchedule>();

// Taking the member's address odr-uses it, so its definition (and its initializer) is
// instantiated with the explicit instantiation of the launcher.
template <class Kernel, class Mainloop, class Epilogue, class Activation, class Weight,
          class ScaleZero, class Bias, class Output, int QuantOp, class Tile, class Cluster,
          class MainloopSchedule, class EpilogueSchedule>
void touch() {
  static_cast<void>(&Holder<Kernel, Mainloop, Epilogue, Activation, Weight, ScaleZero, Bias,
                            Output, QuantOp, Tile, Cluster, MainloopSchedule,
                            EpilogueSchedule>::done);
}

}  // namespace cutlint_sm90_mixed_probe
// ---- end of cutlint probe helpers ----
