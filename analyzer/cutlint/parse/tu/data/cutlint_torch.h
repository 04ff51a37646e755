// cutlint: what a stubbed PyTorch header must declare for a CUTLASS extension's own headers to
// parse: the tensor and device classes its functions take (incomplete: no kernel type depends
// on their layout), the scalar types its dispatch compares, and the check macros. Written for
// cutlint from the names vLLM's csrc uses (torch/csrc/stable, torch/headeronly); not PyTorch's.
#pragma once
namespace torch {
class Tensor;
class Device;
namespace stable {
class Tensor;
class Device;
namespace accelerator { class DeviceGuard; }
}  // namespace stable
namespace headeronly {
enum class ScalarType { Byte, Char, Short, Int, Long, Half, Float, Double, BFloat16,
                        Float8_e4m3fn, Float8_e5m2, Float4_e2m1fn_x2 };
// the element types vLLM's cutlass_extensions/torch_utils.hpp maps CUTLASS's to
struct Half {};
struct BFloat16 {};
template <class T> struct CppTypeToScalarType;
template <> struct CppTypeToScalarType<Half> {
  static constexpr ScalarType value = ScalarType::Half;
};
template <> struct CppTypeToScalarType<BFloat16> {
  static constexpr ScalarType value = ScalarType::BFloat16;
};
}  // namespace headeronly
}  // namespace torch
namespace at { using torch::Tensor; }
#define STD_TORCH_CHECK(...) ((void)0)
#define TORCH_CHECK(...) ((void)0)

// The nvcc probe of `cutlint tu --verify` compiles the TU's headers with a real compiler: their
// non-template functions (`get_problem_shape(a, b)`, `get_current_cuda_stream()`) must then
// compile, so there the classes are complete and the stable-ABI calls they make are declared.
// Only the names vLLM's csrc calls; every body is a placeholder (the probe never runs them).
#ifdef CUTLINT_TU_NVCC
#include <cstdint>
#include <optional>
namespace torch {
namespace stable {
class Device {
 public:
  int32_t index() const { return 0; }
};
class Tensor {
 public:
  int64_t size(int64_t) const { return 0; }
  int64_t stride(int64_t) const { return 0; }
  int64_t dim() const { return 0; }
  int64_t numel() const { return 0; }
  bool is_contiguous() const { return true; }
  void* data_ptr() const { return nullptr; }
  template <class T> T* mutable_data_ptr() const { return nullptr; }
  template <class T> const T* const_data_ptr() const { return nullptr; }
  Device device() const { return {}; }
  torch::headeronly::ScalarType scalar_type() const { return {}; }
  int32_t get_device() const { return 0; }
  int32_t get_device_index() const { return 0; }
};
namespace accelerator {
class DeviceGuard {
 public:
  explicit DeviceGuard(int32_t) {}
};
}  // namespace accelerator
template <class... A> Tensor empty(A&&...) { return {}; }
}  // namespace stable
}  // namespace torch
inline int32_t aoti_torch_get_current_cuda_stream(int32_t, void**) { return 0; }
inline int32_t torch_get_current_cuda_blas_handle(void**) { return 0; }
#define TORCH_ERROR_CODE_CHECK(...) ((void)0)
#endif
