// main() of one CollectiveBuilder kernel: included by a generated file that first defines
// H200_NAME (a string) and `using Config = h200::CbGemm<...>;` (build.py writes these files).
//
// It runs the kernel the way CUTLASS's examples do: can_implement(), initialize(), run(), on a
// valid problem, and records what the GPU answered at each step (harness.hpp).
#pragma once

#include "cutlass/util/packed_stride.hpp"
#include "harness.hpp"

// Inside a template, so that the branch a bias-less epilogue has no bias_ptr for is discarded.
template <bool HasBias, class Arguments, class Bias>
void set_bias(Arguments& args, Bias const* bias) {
  if constexpr (HasBias) {
    args.epilogue.thread.bias_ptr = bias;
  }
}

int main() {
  using namespace h200;
  using Gemm = typename Config::Gemm;
  using GemmKernel = typename Config::GemmKernel;
  using EA = typename Config::ElementInput;
  using ED = typename Config::ElementOutput;
  using EBias = typename Config::ElementBias;

  // Any problem the tiles of the set accept: N a multiple of 96 and 224, K of 64, every extent
  // 16-byte aligned; one wave or more of tiles on 132 SMs.
  int const M = 1536, N = 1344, K = 1024;
  EA *A = nullptr, *B = nullptr;
  ED* D = nullptr;
  EBias* bias = nullptr;
  float* ref = nullptr;
  cudaMalloc(&A, sizeof(EA) * M * K);
  cudaMalloc(&B, sizeof(EA) * N * K);
  cudaMalloc(&D, sizeof(ED) * M * N);
  cudaMalloc(&ref, sizeof(float) * M * N);
  fill(A, size_t(M) * K, 1);
  fill(B, size_t(N) * K, 2);
  if constexpr (Config::HasBias) {
    cudaMalloc(&bias, sizeof(EBias) * N);
    fill(bias, N, 3);
  }
  reference_kernel<<<dim3((N + 127) / 128, M), 128>>>(A, B, Config::HasBias ? bias : nullptr, ref,
                                                      M, N, K);
  cudaError_t setup = cudaDeviceSynchronize();

  using StrideA = typename GemmKernel::StrideA;
  using StrideB = typename GemmKernel::StrideB;
  using StrideC = typename GemmKernel::StrideC;
  using StrideD = typename GemmKernel::StrideD;
  auto stride_A = cutlass::make_cute_packed_stride(StrideA{}, cute::make_shape(M, K, 1));
  auto stride_B = cutlass::make_cute_packed_stride(StrideB{}, cute::make_shape(N, K, 1));
  auto stride_C = cutlass::make_cute_packed_stride(StrideC{}, cute::make_shape(M, N, 1));
  auto stride_D = cutlass::make_cute_packed_stride(StrideD{}, cute::make_shape(M, N, 1));

  cutlass::KernelHardwareInfo hw_info;
  hw_info.device_id = 0;
  hw_info.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(0);

  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                {M, N, K, 1},
                                {A, stride_A, B, stride_B},
                                {{}, nullptr, stride_C, D, stride_D},
                                hw_info};
  args.epilogue.thread.alpha = 1.0f;
  args.epilogue.thread.beta = 0.0f;
  set_bias<Config::HasBias>(args, bias);

  void const* fn = reinterpret_cast<void const*>(&cutlass::device_kernel<GemmKernel>);
  int const smem = GemmKernel::SharedStorageSize;
  Json before = func_attributes(fn);

  Gemm gemm;
  cutlass::Status can = gemm.can_implement(args);
  size_t ws_size = Gemm::get_workspace_size(args);
  void* workspace = nullptr;
  if (ws_size) cudaMalloc(&workspace, ws_size);
  cutlass::Status init = gemm.initialize(args, workspace);
  cudaError_t after_init = cudaGetLastError();
  Json after = func_attributes(fn);

  // run() also where initialize() failed: its Params are set before the attribute is asked for,
  // so this shows whether the GPU would launch the kernel all the same.
  poison(D, size_t(M) * N);
  cudaDeviceSynchronize();
  cutlass::Status run = gemm.run();
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  double rel = (run == cutlass::Status::kSuccess && sync == cudaSuccess)
                   ? relative_error(D, ref, size_t(M) * N)
                   : NAN;

  Json result;
  result.str("name", H200_NAME)
      .str("family", "collective_builder")
      .num("shared_storage_size", smem)
      .num("stages", GemmKernel::CollectiveMainloop::DispatchPolicy::Stages)
      .num("max_threads_per_block", GemmKernel::MaxThreadsPerBlock)
      .str("schedule", Config::schedule)
      .object("device", device_info())
      .str("setup_error", err_name(setup))
      .object("func_attributes_before_initialize", before)
      .object("func_attributes_after_initialize", after)
      .str("can_implement", cutlassGetStatusString(can))
      .str("initialize_status", cutlassGetStatusString(init))
      .str("cuda_error_after_initialize", err_name(after_init))
      .null("launcher_error")
      .str("run_status", cutlassGetStatusString(run))
      .str("launch_error", err_name(launch))
      .str("sync_error", err_name(sync))
      .real("relative_error", rel)
      .str("problem", std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K))
      .object("set_attribute", set_attribute_probe(fn, smem))
      .object("occupancy", occupancy(fn, GemmKernel::MaxThreadsPerBlock, smem));
  std::printf("H200_RESULT %s\n", result.text().c_str());
  return 0;
}
