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
}  // namespace headeronly
}  // namespace torch
namespace at { using torch::Tensor; }
#define STD_TORCH_CHECK(...) ((void)0)
#define TORCH_CHECK(...) ((void)0)
