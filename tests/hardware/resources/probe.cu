// The occupancy and launch half of the registers proof (run.sh): for each kernel below and a
// sweep of block sizes and dynamic shared memory sizes, what
// cudaOccupancyMaxActiveBlocksPerMultiprocessor answers, with the kernel's cudaFuncGetAttributes;
// then a launch of `wide` (no __launch_bounds__, more than 64 registers a thread) with 1,024
// threads, which cutlint says cannot launch (CUT108), and the error the runtime gives.
// One JSON object a line on stdout, prefixed PROBE / LAUNCH.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void __launch_bounds__(384, 1) heavy(float* out, const float* in, int n) {
  __shared__ float tile[1024];
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = in[threadIdx.x + i * n];
  tile[threadIdx.x % 1024] = acc[threadIdx.x % 64];
  __syncthreads();
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += acc[i] * tile[(threadIdx.x + i) % 1024];
  out[threadIdx.x] = s;
}
__global__ void __launch_bounds__(1024, 2) squeezed(float* out, const float* in, int n) {
  float acc[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) acc[i] = in[threadIdx.x + i * n];
  float s = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int i = 0; i < 96; ++i) s = s * acc[(i + j) % 96] + acc[i];
  out[threadIdx.x] = s;
}
__global__ void framed(float* out, const float* in, int n) {
  float acc[256];
  for (int i = 0; i < 256; ++i) acc[i] = in[i * n + threadIdx.x];
  float s = 0;
  for (int i = 0; i < 256; ++i) s += acc[(i * 7 + threadIdx.x) % 256] * acc[i];
  out[threadIdx.x] = s;
}
__global__ void light(int* x) { x[threadIdx.x] += 1; }
__global__ void wide(float* out, const float* in, int n) {
  float acc[80];
#pragma unroll
  for (int i = 0; i < 80; ++i) acc[i] = in[threadIdx.x + i * n];
  float s = 0;
#pragma unroll
  for (int j = 0; j < 3; ++j)
#pragma unroll
    for (int i = 0; i < 80; ++i) s = s * acc[(i + j) % 80] + acc[i];
  out[threadIdx.x] = s;
}
__global__ void __launch_bounds__(256, 1) staticsmem(float* out) {
  __shared__ float big[10240];  // 40 KiB of static shared memory
  big[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = big[(threadIdx.x * 7) % 10240];
}

template <typename F>
static void sweep(const char* name, F* f) {
  cudaFuncAttributes a;
  cudaFuncGetAttributes(&a, f);
  int optin = 0;
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - (int)a.sharedSizeBytes);
  const int threads[] = {32, 64, 96, 128, 160, 192, 256, 288, 384, 512, 640, 768, 1024};
  const int smem[] = {0, 1000, 8192, 16384, 47000, 49152, 65536, 100000, 116736, 200000, 232448, 232449};
  for (int t : threads) {
    if (t > a.maxThreadsPerBlock) continue;
    for (int s : smem) {
      int blocks = -1;
      cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, t, s);
      printf("PROBE {\"kernel\": \"%s\", \"threads\": %d, \"dynamic_smem\": %d, \"blocks\": %d, "
             "\"error\": \"%s\", \"num_regs\": %d, \"static_smem\": %zu, \"local\": %zu, "
             "\"max_threads\": %d}\n",
             name, t, s, blocks, cudaGetErrorName(e), a.numRegs, a.sharedSizeBytes,
             a.localSizeBytes, a.maxThreadsPerBlock);
      cudaGetLastError();
    }
  }
}

int main() {
  sweep("heavy", heavy);
  sweep("squeezed", squeezed);
  sweep("framed", framed);
  sweep("light", light);
  sweep("wide", wide);
  sweep("staticsmem", staticsmem);
  float *out, *in;
  cudaMalloc(&out, 1 << 20);
  cudaMalloc(&in, 1 << 24);
  cudaFuncAttributes a;
  cudaFuncGetAttributes(&a, wide);
  for (int t : {256, 640, 1024}) {
    wide<<<1, t>>>(out, in, 1024);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    printf("LAUNCH {\"kernel\": \"wide\", \"threads\": %d, \"num_regs\": %d, \"launch\": \"%s\", "
           "\"message\": \"%s\", \"sync\": \"%s\"}\n",
           t, a.numRegs, cudaGetErrorName(launch), cudaGetErrorString(launch), cudaGetErrorName(sync));
  }
  return 0;
}
