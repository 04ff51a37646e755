// cutlint: what a stubbed cuRAND header must declare for CUTLASS's tools/util headers to compile
// (cutlass/util/reference/device/tensor_fill.h: curandState_t, curand_init, curand_normal[_double],
// curand_uniform[_double]), for a toolkit installed without cuRAND. Not cuRAND's header: the
// state's members are placeholders, and nothing here is defined (the probes never launch them).
#pragma once
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;
__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandState_t* state);
__device__ float curand_normal(curandState_t* state);
__device__ double curand_normal_double(curandState_t* state);
__device__ float curand_uniform(curandState_t* state);
__device__ double curand_uniform_double(curandState_t* state);
