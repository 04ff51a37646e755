// main() of one FlashInfer SM90 fpA_intB GEMM (mixed input: fp8/fp16/bf16 activations, int4/int8
// weights), called through its launcher sm90_generic_mixed_gemm_kernelLauncher
// (fpA_intB_launcher_sm90.inl), which runs can_implement(), initialize() and run() itself and
// throws with its own message when one fails.
//
// build.py writes the translation unit: fi_hook.hpp, the launcher (patched only to call
// h200::record_kernel), the generator's own explicit instantiation, and in namespace
// tensorrt_llm::kernels::cutlass_kernels_oss the aliases H200_T, H200_W, H200_SZ, H200_BIAS,
// H200_O, the constants H200_FINEGRAINED, H200_ZEROS, H200_CTA_K and `h200_launcher`. The weights
// are random bytes, not preprocessed the way FlashInfer interleaves them, so the output is not
// checked: this binary shows that the kernel initializes and launches, not that it is right.
#pragma once

#include <exception>
#include <string>

#include "harness.hpp"

int main() {
  using namespace h200;
  namespace oss = tensorrt_llm::kernels::cutlass_kernels_oss;
  using T = oss::H200_T;
  using W = oss::H200_W;
  using SZ = oss::H200_SZ;
  using Bias = oss::H200_BIAS;
  using O = oss::H200_O;

  int const m = 512, n = 1024, k = 1024;
  int const group_size = oss::H200_FINEGRAINED ? 128 : k;
  int const k_groups = (k + group_size - 1) / group_size;
  size_t const weight_bytes = size_t(n) * k * cutlass::sizeof_bits<W>::value / 8;
  T* A = nullptr;
  void* B = nullptr;
  SZ *scales = nullptr, *zeros = nullptr;
  Bias* bias = nullptr;
  O* C = nullptr;
  cudaMalloc(&A, sizeof(T) * m * k);
  cudaMalloc(&B, weight_bytes);
  cudaMalloc(&scales, sizeof(SZ) * n * k_groups);
  cudaMalloc(&bias, sizeof(Bias) * n);
  cudaMalloc(&C, sizeof(O) * m * n);
  fill(A, size_t(m) * k, 1);
  fill_bytes(B, weight_bytes, 2);
  fill(scales, size_t(n) * k_groups, 3, 0.01f);
  fill(bias, n, 4);
  if (oss::H200_ZEROS) {
    cudaMalloc(&zeros, sizeof(SZ) * n * k_groups);
    fill(zeros, size_t(n) * k_groups, 5);
  }
  size_t const ws_size = size_t(64) << 20;
  char* workspace = nullptr;
  cudaMalloc(&workspace, ws_size);
  cudaError_t setup = cudaDeviceSynchronize();

  std::string error;
  bool threw = false;
  try {
    oss::h200_launcher(A, reinterpret_cast<W const*>(B), scales, zeros, bias, 1.0f, C, m, n, k,
                       group_size, tensorrt_llm::cutlass_extensions::CutlassGemmConfig{},
                       workspace, ws_size, nullptr, nullptr);
  } catch (std::exception const& e) {
    threw = true;
    error = e.what();
  }
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  void const* fn = kernel_record().fn;
  int const smem = kernel_record().shared_storage_size;
  Json after = fn ? func_attributes(fn) : Json().str("error", "kernel not recorded");

  std::string init_status = "Success";
  std::string const marker = "Failed to initialize cutlass fpA_intB gemm. Error: ";
  if (threw) {
    auto at = error.find(marker);
    init_status = at == std::string::npos ? "not reached" : error.substr(at + marker.size());
  }
  bool ran = !threw && sync == cudaSuccess;

  Json result;
  result.str("name", H200_NAME)
      .str("family", "flashinfer_fpA_intB")
      .num("shared_storage_size", smem)
      .num("stages", kernel_record().stages)
      .num("max_threads_per_block", kernel_record().max_threads_per_block)
      .object("device", device_info())
      .str("setup_error", err_name(setup))
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
      .null("relative_error")
      .str("problem", std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                          ", group " + std::to_string(group_size));
  if (fn) {
    result.object("set_attribute", set_attribute_probe(fn, smem))
        .object("occupancy", occupancy(fn, kernel_record().max_threads_per_block, smem));
  }
  std::printf("H200_RESULT %s\n", result.text().c_str());
  return 0;
}
