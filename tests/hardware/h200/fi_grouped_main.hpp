// main() of one FlashInfer SM90 grouped MoE GEMM: the generated instantiation, called through its
// launcher (tma_warp_specialized_generic_moe_gemm_kernelLauncher in FlashInfer's
// moe_gemm_tma_ws_launcher.inl), which runs can_implement(), initialize() and run() itself and
// throws with its own message when one fails.
//
// build.py writes the translation unit: fi_hook.hpp, the launcher (patched only to call
// h200::record_kernel), the generator's own macro call, and in namespace
// tensorrt_llm::kernels::cutlass_kernels_oss the aliases H200_T, H200_W, H200_O, the constants
// H200_SWAP_AB, H200_FINALIZE and `h200_launcher`, the address of the instantiated launcher. The
// inputs are built the way FlashInfer's computeTmaWarpSpecializedInputStrides() builds them
// (fused_moe/cutlass_backend/cutlass_fused_moe_kernels.cuh).
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "cutlass/util/packed_stride.hpp"
#include "harness.hpp"

int main() {
  using namespace h200;
  namespace oss = tensorrt_llm::kernels::cutlass_kernels_oss;
  using Input = tensorrt_llm::kernels::cutlass_kernels::TmaWarpSpecializedGroupedGemmInput;
  using T = oss::H200_T;
  using W = oss::H200_W;
  using O = oss::H200_O;
  constexpr bool swap_ab = oss::H200_SWAP_AB;
  constexpr bool finalize = oss::H200_FINALIZE;
  using Shape = Input::ProblemShape::UnderlyingProblemShape;

  // Two experts with different token counts; N and K multiples of every tile of the sample.
  constexpr int E = 2;
  int const rows[E] = {512, 768};
  int const N = 1024, K = 512;
  int const total = rows[0] + rows[1];

  T* act = nullptr;
  W* weight = nullptr;
  O *D = nullptr, *final_out = nullptr;
  float *ref = nullptr, *router_scales = nullptr;
  int* token_index = nullptr;
  cudaMalloc(&act, sizeof(T) * total * K);
  cudaMalloc(&weight, sizeof(W) * E * N * K);
  cudaMalloc(&D, sizeof(O) * total * N);
  cudaMalloc(&final_out, sizeof(O) * total * N);
  cudaMalloc(&ref, sizeof(float) * total * N);
  cudaMalloc(&router_scales, sizeof(float) * total);
  cudaMalloc(&token_index, sizeof(int) * total);
  fill(act, size_t(total) * K, 1);
  fill(weight, size_t(E) * N * K, 2);
  std::vector<float> ones(total, 1.0f);
  std::vector<int> identity(total);
  for (int i = 0; i < total; ++i) identity[i] = i;
  cudaMemcpy(router_scales, ones.data(), sizeof(float) * total, cudaMemcpyHostToDevice);
  cudaMemcpy(token_index, identity.data(), sizeof(int) * total, cudaMemcpyHostToDevice);

  std::vector<Shape> shapes(E);
  std::vector<Input::StrideA> sA(E);
  std::vector<Input::StrideB> sB(E);
  std::vector<Input::StrideD> sD(E);
  std::vector<Input::StrideD_T> sDT(E);
  std::vector<void const*> p_act(E), p_weight(E), p_scales(E), p_index(E);
  std::vector<void*> p_d(E);
  int offset = 0;
  for (int e = 0; e < E; ++e) {
    int m = rows[e];
    shapes[e] = swap_ab ? Shape(N, m, K) : Shape(m, N, K);
    if (swap_ab) {  // the weight is operand A, the activations operand B, D is transposed
      sB[e] = cutlass::make_cute_packed_stride(Input::StrideB{}, cute::make_shape(m, K, 1));
      sA[e] = cutlass::make_cute_packed_stride(Input::StrideA{}, cute::make_shape(N, K, 1));
      sDT[e] = cutlass::make_cute_packed_stride(Input::StrideD_T{}, cute::make_shape(N, m, 1));
    } else {
      sA[e] = cutlass::make_cute_packed_stride(Input::StrideA{}, cute::make_shape(m, K, 1));
      sB[e] = cutlass::make_cute_packed_stride(Input::StrideB{}, cute::make_shape(N, K, 1));
      sD[e] = cutlass::make_cute_packed_stride(Input::StrideD{}, cute::make_shape(m, N, 1));
    }
    p_act[e] = act + size_t(offset) * K;
    p_weight[e] = weight + size_t(e) * N * K;
    p_d[e] = D + size_t(offset) * N;
    p_scales[e] = router_scales + offset;
    p_index[e] = token_index + offset;
    reference_kernel<<<dim3((N + 127) / 128, m), 128>>>(
        act + size_t(offset) * K, weight + size_t(e) * N * K, static_cast<float const*>(nullptr),
        ref + size_t(offset) * N, m, N, K);
    offset += m;
  }
  auto upload = [](auto const& host) {
    using V = typename std::decay_t<decltype(host)>::value_type;
    void* dev = nullptr;
    cudaMalloc(&dev, sizeof(V) * host.size());
    cudaMemcpy(dev, host.data(), sizeof(V) * host.size(), cudaMemcpyHostToDevice);
    return dev;
  };

  Input in{};
  in.swap_ab = swap_ab;
  in.fusion = finalize ? Input::EpilogueFusion::FINALIZE : Input::EpilogueFusion::NONE;
  in.shape_info.num_groups = E;
  in.shape_info.problem_shapes = static_cast<Shape*>(upload(shapes));
  in.shape_info.host_problem_shapes = nullptr;  // as FlashInfer passes it
  in.stride_act = swap_ab ? upload(sB) : upload(sA);
  in.stride_weight = swap_ab ? upload(sA) : upload(sB);
  in.ptr_act = static_cast<void const**>(upload(p_act));
  in.ptr_weight = static_cast<void const**>(upload(p_weight));
  if (finalize) {
    // setFinalizeFusionParams(final_out, N, total, /*use_reduction=*/false), written out; scale 1
    // and the identity token map make the final output equal D.
    auto& f = in.fused_finalize_epilogue;
    f.ptr_final_output = final_out;
    f.stride_final_output = cutlass::make_cute_packed_stride(
        Input::FusedFinalizeEpilogue::StrideFinalOutput{}, cute::make_shape(total, N, 1));
    f.stride_final_output_transposed = cutlass::make_cute_packed_stride(
        Input::FusedFinalizeEpilogue::StrideFinalOutput_T{}, cute::make_shape(N, total, 1));
    f.num_rows_in_final_output = total;
    f.shape_override = N;
    f.use_reduction = false;
    f.ptr_router_scales = static_cast<float const**>(upload(p_scales));
    f.ptr_source_token_index = static_cast<int const**>(upload(p_index));
  } else {
    in.stride_d = swap_ab ? upload(sDT) : upload(sD);
    in.ptr_d = static_cast<void**>(upload(p_d));
  }
  O* out = finalize ? final_out : D;
  cudaError_t setup = cudaDeviceSynchronize();

  int sm_count = 0;
  cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
  cute::Shape<int32_t, int32_t, cute::_1> cluster{1, 1, cute::_1{}};
  std::string error;
  bool threw = false;
  size_t ws_size = 0;
  try {
    oss::h200_launcher(in, E, sm_count, nullptr, nullptr, &ws_size, cluster, cluster);
  } catch (std::exception const& e) {
    threw = true;
    error = std::string("workspace query: ") + e.what();
  }
  void* workspace = nullptr;
  cudaMalloc(&workspace, ws_size > 0 ? ws_size : 1);
  in.gemm_workspace = static_cast<uint8_t*>(workspace);
  in.gemm_workspace_size = ws_size;

  void const* fn = kernel_record().fn;
  Json before = fn ? func_attributes(fn) : Json().str("error", "kernel not recorded");
  poison(out, size_t(total) * N);
  cudaDeviceSynchronize();
  if (!threw) {
    try {
      oss::h200_launcher(in, E, sm_count, nullptr, nullptr, nullptr, cluster, cluster);
    } catch (std::exception const& e) {
      threw = true;
      error = e.what();
    }
  }
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  fn = kernel_record().fn;
  int const smem = kernel_record().shared_storage_size;
  Json after = fn ? func_attributes(fn) : Json().str("error", "kernel not recorded");

  // The launcher reports initialize() only through its exception; read the status back from it.
  std::string init_status = "Success";
  std::string const marker = "Failed to initialize cutlass TMA WS grouped gemm. Error: ";
  if (threw) {
    auto at = error.find(marker);
    init_status = at == std::string::npos ? "not reached"
                                          : error.substr(at + marker.size(),
                                                         error.find_first_of("\n(", at + marker.size()) -
                                                             (at + marker.size()));
    while (!init_status.empty() && init_status.back() == ' ') init_status.pop_back();
  }
  bool ran = !threw && sync == cudaSuccess;
  double rel = ran ? relative_error(out, ref, size_t(total) * N) : NAN;

  Json result;
  result.str("name", H200_NAME)
      .str("family", "flashinfer_grouped")
      .num("shared_storage_size", smem)
      .num("stages", kernel_record().stages)
      .num("max_threads_per_block", kernel_record().max_threads_per_block)
      .object("device", device_info())
      .str("setup_error", err_name(setup))
      .object("func_attributes_before_initialize", before)
      .object("func_attributes_after_initialize", after)
      .str("can_implement", error.find("will fail for params") != std::string::npos
                                ? "rejected (see launcher_error)"
                                : "Success")
      .str("initialize_status", init_status)
      .str("cuda_error_after_initialize", err_name(launch))
      .str("launcher_error", threw ? error.substr(0, 600) : "")
      .str("run_status", ran ? "Success" : "not run (launcher threw or sync failed)")
      .str("launch_error", err_name(launch))
      .str("sync_error", err_name(sync))
      .real("relative_error", rel)
      .str("problem", std::to_string(E) + " experts x (" + std::to_string(rows[0]) + "," +
                          std::to_string(rows[1]) + ") tokens, N=" + std::to_string(N) +
                          ", K=" + std::to_string(K));
  if (fn) {
    result.object("set_attribute", set_attribute_probe(fn, smem))
        .object("occupancy", occupancy(fn, kernel_record().max_threads_per_block, smem));
  }
  std::printf("H200_RESULT %s\n", result.text().c_str());
  return 0;
}
