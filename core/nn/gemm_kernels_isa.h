#pragma once
// Internal to the GEMM (core/nn/gemm*.cpp): which instruction sets this build can emit kernels
// for, and the kernels each file defines. Each kernel is compiled for its own instruction set
// (GCC's target attribute) whatever the build's baseline, and is called only where
// gemm_kernels.cpp's run-time choice allows it.
#include <cstdint>

#include "core/nn/gemm.h"
#include "core/nn/gemm_kernels.h"
#include "core/nn/simd_regions.h"  // ACCELLAB_X86_KERNELS, ACCELLAB_TARGET

#if ACCELLAB_X86_KERNELS && defined(__linux__)
#define ACCELLAB_AMX_KERNELS 1  // the permission to use AMX is asked of Linux
#else
#define ACCELLAB_AMX_KERNELS 0
#endif

namespace core::nn::detail {

// A finished kGemmMr x kGemmNr column-major tile into C (mr x nr valid), added or assigned, then
// plus its rows' bias where there is one (as every kernel rounds it: (C + tile) + bias): the
// kernels that compute into a buffer first (portable, AVX2, AMX's partial tiles).
inline void addTile(const float* tile, float* c, std::int64_t ldc, bool accumulate, const float* bias,
                    std::int64_t mr, std::int64_t nr) {
  for (std::int64_t j = 0; j < nr; ++j) {
    const float* t = tile + j * kGemmMr;
    float* cj = c + j * ldc;
    if (!bias)
      for (std::int64_t i = 0; i < mr; ++i) cj[i] = (accumulate ? cj[i] : 0.0f) + t[i];
    else if (accumulate)
      for (std::int64_t i = 0; i < mr; ++i) cj[i] = (cj[i] + t[i]) + bias[i];
    else
      for (std::int64_t i = 0; i < mr; ++i) cj[i] = t[i] + bias[i];
  }
}

// Flops one round of each peak loop does: 12 chains of one FMA (2 flops a lane) or one dot
// product of bf16 pairs (4 flops a lane); AMX: 6 tiles of 16 x 16 x 32 multiply-adds.
inline constexpr double kChainFlopsAvx2 = 12.0 * 8 * 2, kChainFlopsAvx512 = 12.0 * 16 * 2,
                        kChainFlopsBf16 = 12.0 * 16 * 4, kChainFlopsAmx = 6.0 * 16 * 16 * 32 * 2,
                        kChainFlopsPortable = 12.0 * 2;

#if ACCELLAB_X86_KERNELS
// gemm_kernels_simd.cpp
void kernelAvx2(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc, bool accumulate,
                const float* bias, std::int64_t mr, std::int64_t nr, float* tile);
void kernelAvx512(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc,
                  bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr, float* tile);
void kernelAvx512Columns(std::int64_t kc, const float* a, const float* b, std::int64_t ldb, float* c,
                         std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr,
                         std::int64_t nr, float* tile);
void kernelAvx512Rows(std::int64_t kc, const float* a, const float* b, std::int64_t ldb, float* c,
                      std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr,
                      float* tile);
void kernelBf16(std::int64_t pairs, const std::uint32_t* a, const std::uint32_t* b, float* c,
                std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr,
                float* tile);
void kernelBf16Columns(std::int64_t pairs, const std::uint32_t* a, const std::uint32_t* b, float* c,
                       std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr,
                       float* tile);
float chainsAvx2(std::int64_t iterations, float seed);
float chainsAvx512(std::int64_t iterations, float seed);
float chainsBf16(std::int64_t iterations, float seed);
#endif
#if ACCELLAB_AMX_KERNELS
// gemm_kernels_amx.cpp
void kernelAmx(std::int64_t depth, const std::uint32_t* a, const std::uint32_t* b, float* c, std::int64_t ldc,
               bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr, float* tile);
void kernelAmx2(std::int64_t depth, const std::uint32_t* a, const std::uint32_t* b0, const std::uint32_t* b1, float* c0,
                float* c1, std::int64_t ldc, bool accumulate, std::int64_t mr, std::int64_t nr1, float* tile0,
                float* tile1);
float chainsAmx(std::int64_t iterations, float seed);
void releaseTilesNow();
#endif

}  // namespace core::nn::detail
