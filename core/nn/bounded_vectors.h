#pragma once
// Whole AVX-512 vectors where the memory allows, masked ones only where it does not. A masked
// load or store that crosses a cache line stalls on AMD's cores (measured: half of max pooling's
// forward pass at first, most of padImages' first version), while a whole one that reads past
// what the caller needs inside its buffer, or writes floats the caller writes again later, costs
// nothing extra. Each caller says where its memory ends; the lanes past its n values are dropped
// (read: garbage or zeros; written: written again later by the caller).
#include <cstdint>

#include "core/nn/eigen.h"  // <immintrin.h>, GCC 12 warnings silenced
#include "core/nn/simd_regions.h"

namespace core::nn {

#if ACCELLAB_X86_KERNELS
// The first n of 16 values at p: one whole load where 16 lie before `end`, else n under a mask.
ACCELLAB_TARGET("avx512f")
inline __m512 loadBounded(const float* p, const float* end, std::int64_t n) {
  return end - p >= 16 ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(firstLanes(n), p);
}

ACCELLAB_TARGET("avx512f")
inline __m512i loadBounded(const std::int32_t* p, const std::int32_t* end, std::int64_t n) {
  return end - p >= 16 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi32(firstLanes(n), p);
}

// v's first n lanes to p: one whole store where 16 floats fit before `end`, else n under a mask.
ACCELLAB_TARGET("avx512f")
inline void storeBounded(float* p, const float* end, std::int64_t n, __m512 v) {
  if (end - p >= 16)
    _mm512_storeu_ps(p, v);
  else
    _mm512_mask_storeu_ps(p, firstLanes(n), v);
}

ACCELLAB_TARGET("avx512f")
inline void storeBounded(std::int32_t* p, const std::int32_t* end, std::int64_t n, __m512i v) {
  if (end - p >= 16)
    _mm512_storeu_si512(p, v);
  else
    _mm512_mask_storeu_epi32(p, firstLanes(n), v);
}
#endif

}  // namespace core::nn
