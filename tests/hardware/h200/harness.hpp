// What the H200 harness asks the GPU about one kernel, and how it prints the answers.
//
// Each kernel binary prints one line `H200_RESULT {json}` on stdout. Everything in it is read off
// the GPU or the CUDA runtime at run time, except `shared_storage_size` and `stages`, which are
// the compiled kernel's own constants (GemmKernel::SharedStorageSize, the mainloop's
// DispatchPolicy::Stages): the very values GemmUniversalAdapter::initialize() passes to
// cudaFuncSetAttribute (include/cutlass/gemm/device/gemm_universal_adapter.h).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace h200 {

// ---------------------------------------------------------------- a tiny JSON object writer
class Json {
 public:
  Json& str(char const* key, std::string const& value) {
    sep(key);
    quote(value);
    return *this;
  }
  Json& num(char const* key, long long value) {
    sep(key);
    out_ += std::to_string(value);
    return *this;
  }
  Json& real(char const* key, double value) {
    sep(key);
    if (std::isfinite(value)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g", value);
      out_ += buf;
    } else {
      out_ += "null";
    }
    return *this;
  }
  Json& boolean(char const* key, bool value) {
    sep(key);
    out_ += value ? "true" : "false";
    return *this;
  }
  Json& null(char const* key) {
    sep(key);
    out_ += "null";
    return *this;
  }
  Json& object(char const* key, Json const& inner) {
    sep(key);
    out_ += inner.text();
    return *this;
  }
  std::string text() const { return "{" + out_ + "}"; }

 private:
  void sep(char const* key) {
    if (!out_.empty()) out_ += ", ";
    quote(key);
    out_ += ": ";
  }
  void quote(std::string const& s) {
    out_ += '"';
    for (char ch : s) {
      unsigned char c = static_cast<unsigned char>(ch);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += ch;
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
      } else {
        out_ += ch;
      }
    }
    out_ += '"';
  }
  std::string out_;
};

inline std::string err_name(cudaError_t e) { return cudaGetErrorName(e); }

// ---------------------------------------------------------------- the device and the runtime
inline Json device_info() {
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, dev);
  int optin = 0, per_sm = 0, per_block = 0, driver = 0, runtime = 0;
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
  cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, dev);
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  Json j;
  j.str("name", prop.name)
      .num("cc_major", prop.major)
      .num("cc_minor", prop.minor)
      .num("sm_count", prop.multiProcessorCount)
      .num("smem_optin_per_block", optin)
      .num("smem_per_sm", per_sm)
      .num("smem_per_block_default", per_block)
      .num("reserved_smem_per_block", static_cast<long long>(prop.reservedSharedMemPerBlock))
      .num("cuda_driver_version", driver)
      .num("cuda_runtime_version", runtime);
  return j;
}

inline int smem_optin() {
  int dev = 0, optin = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  return optin;
}

inline Json func_attributes(void const* fn) {
  cudaFuncAttributes a{};
  cudaError_t e = cudaFuncGetAttributes(&a, fn);
  Json j;
  j.str("error", err_name(e));
  if (e == cudaSuccess) {
    j.num("num_regs", a.numRegs)
        .num("local_size_bytes", static_cast<long long>(a.localSizeBytes))
        .num("static_shared_size_bytes", static_cast<long long>(a.sharedSizeBytes))
        .num("max_dynamic_shared_size_bytes", a.maxDynamicSharedSizeBytes)
        .num("max_threads_per_block", a.maxThreadsPerBlock)
        .num("binary_version", a.binaryVersion)
        .num("ptx_version", a.ptxVersion);
  }
  cudaGetLastError();
  return j;
}

// cudaFuncSetAttribute(MaxDynamicSharedMemorySize) at the kernel's own size, at the opt-in limit
// and one byte above it; each error is cleared right away (none of them is sticky). The kernel is
// left with its own size set again when that succeeded, so a later launch is unaffected.
inline Json set_attribute_probe(void const* fn, int shared_storage_size) {
  int optin = smem_optin();
  auto set = [&](int bytes) {
    cudaError_t e =
        cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaGetLastError();
    return e;
  };
  cudaError_t at_optin = set(optin);
  cudaError_t above = set(optin + 1);
  cudaError_t own = set(shared_storage_size);
  Json j;
  j.str("at_shared_storage_size", err_name(own))
      .str("at_optin", err_name(at_optin))
      .str("at_optin_plus_1", err_name(above));
  return j;
}

inline Json occupancy(void const* fn, int threads, int smem) {
  int blocks = -1;
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, smem);
  cudaGetLastError();
  Json j;
  j.str("error", err_name(e)).num("blocks_per_sm", e == cudaSuccess ? blocks : -1);
  return j;
}

// ---------------------------------------------------------------- data and a reference GEMM
// A hash of the index, in [-1, 1): the same inputs on every run, never zeros (METHOD.md).
__host__ __device__ inline float hash_value(uint64_t i, uint32_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<float>(x & 0xFFFFFF) / static_cast<float>(1 << 23) - 1.0f;
}

template <class T>
__global__ void fill_kernel(T* p, size_t n, uint32_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = T(hash_value(i, seed) * scale);
  }
}

template <class T>
void fill(T* p, size_t n, uint32_t seed, float scale = 1.0f) {
  fill_kernel<<<1024, 256>>>(p, n, seed, scale);
}

// Random bytes, for packed integer weights (uint4b_t pairs, uint8_t).
template <class Byte>
__global__ void fill_bytes_kernel(Byte* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = static_cast<Byte>((hash_value(i, seed) + 1.0f) * 127.0f);
  }
}

inline void fill_bytes(void* p, size_t n, uint32_t seed) {
  fill_bytes_kernel<<<1024, 256>>>(static_cast<uint8_t*>(p), n, seed);
}

template <class T>
__global__ void poison_kernel(T* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = T(-12345.0f);
  }
}

template <class T>
void poison(T* p, size_t n) {
  poison_kernel<<<1024, 256>>>(p, n);
}

// ref[m, n] = sum_k A[m, k] * B[n, k] (+ bias[n]); A row-major M x K, B stored N x K (K
// contiguous, i.e. column-major K x N), in fp32 from the very values the GEMM reads.
template <class TA, class TB, class TBias>
__global__ void reference_kernel(TA const* A, TB const* B, TBias const* bias, float* ref, int M,
                                 int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y;
  if (n >= N || m >= M) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) {
    acc += float(A[size_t(m) * K + k]) * float(B[size_t(n) * K + k]);
  }
  if (bias != nullptr) acc += float(bias[n]);
  ref[size_t(m) * N + n] = acc;
}

// ||out - ref|| / ||ref|| over M x N row-major, with out read back as float; NaN if any output
// element still holds the poison value or is not finite.
template <class TD>
double relative_error(TD const* d_out, float const* d_ref, size_t count) {
  std::vector<TD> out(count);
  std::vector<float> ref(count);
  cudaMemcpy(out.data(), d_out, count * sizeof(TD), cudaMemcpyDeviceToHost);
  cudaMemcpy(ref.data(), d_ref, count * sizeof(float), cudaMemcpyDeviceToHost);
  double const poisoned = float(TD(-12345.0f));
  double num = 0, den = 0;
  for (size_t i = 0; i < count; ++i) {
    double o = float(out[i]);
    if (!std::isfinite(o) || o == poisoned) return NAN;
    double r = ref[i];
    num += (o - r) * (o - r);
    den += r * r;
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

}  // namespace h200
