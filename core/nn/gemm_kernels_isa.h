#pragma once
// Internal to the GEMM (core/nn/gemm*.cpp): which instruction sets this build can emit kernels
// for, and the kernels each file defines. Each kernel is compiled for its own instruction set
// (GCC's target attribute) whatever the build's baseline, and is called only where
// gemm_kernels.cpp's run-time choice allows it.
#include <cstdint>

#include "core/nn/gemm_kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define ACCELLAB_X86_KERNELS 1
#define ACCELLAB_TARGET(isa) __attribute__((target(isa)))
#else
#define ACCELLAB_X86_KERNELS 0
#endif
#if ACCELLAB_X86_KERNELS && defined(__linux__)
#define ACCELLAB_AMX_KERNELS 1  // the permission to use AMX is asked of Linux
#else
#define ACCELLAB_AMX_KERNELS 0
#endif

namespace core::nn::detail {

#if ACCELLAB_X86_KERNELS
// gemm_kernels_simd.cpp
void kernelAvx2(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc, bool accumulate,
                std::int64_t mr, std::int64_t nr, float* tile);
void kernelAvx512(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc, bool accumulate,
                  std::int64_t mr, std::int64_t nr, float* tile);
void kernelBf16(std::int64_t pairs, const std::uint32_t* a, const std::uint32_t* b, float* c, std::int64_t ldc,
                bool accumulate, std::int64_t mr, std::int64_t nr, float* tile);
float chainsAvx2(std::int64_t iterations, float seed);
float chainsAvx512(std::int64_t iterations, float seed);
float chainsBf16(std::int64_t iterations, float seed);
#endif
#if ACCELLAB_AMX_KERNELS
// gemm_kernels_amx.cpp
void kernelAmx(std::int64_t depth, const std::uint32_t* a, const std::uint32_t* b, float* c, std::int64_t ldc,
               bool accumulate, std::int64_t mr, std::int64_t nr, float* tile);
void kernelAmx2(std::int64_t depth, const std::uint32_t* a, const std::uint32_t* b0, const std::uint32_t* b1, float* c0,
                float* c1, std::int64_t ldc, bool accumulate, std::int64_t mr, std::int64_t nr1, float* tile0,
                float* tile1);
float chainsAmx(std::int64_t iterations, float seed);
void releaseTilesNow();
#endif

}  // namespace core::nn::detail
