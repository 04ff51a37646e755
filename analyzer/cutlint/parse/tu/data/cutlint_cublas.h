// cutlint: what a stubbed cuBLAS header must declare for a CUTLASS extension's own headers to
// compile: the handle type vLLM's torch_utils.h returns. Not cuBLAS's header.
#pragma once
struct cublasContext;
typedef struct cublasContext* cublasHandle_t;
