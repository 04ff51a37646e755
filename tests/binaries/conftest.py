"""The kernels the binary tests compile: registers under a launch-bounds cap (heavy: 384 threads,
a cap of 168), a stack frame (a local array), forced spills (squeezed: a cap of 32), static shared
memory, a kernel without launch bounds (light)."""

import pytest

SOURCE = r"""
__global__ void __launch_bounds__(384, 1) heavy(float* out, const float* in, int n) {
  __shared__ float tile[1024];
  float acc[64];
  #pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = in[threadIdx.x + i * n];
  tile[threadIdx.x] = acc[threadIdx.x % 64];
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
"""


@pytest.fixture(scope="session")
def kernel_source() -> str:
    return SOURCE
