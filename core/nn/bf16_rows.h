#pragma once
// Rows of floats to bf16 with AVX512_BF16's conversion (to nearest even; denormals to zero, which
// its dot products do anyway), as bf16 pairs of two rows and as plain bf16: what the GEMM's
// packers (gemm_pack_bf16.cpp) and the direct convolution's bf16 kernels (direct_conv.cpp) both
// convert with. Compiled for AVX512_BF16 by target attribute (inlined into code compiled for it);
// called only where the CPU has it.
#include <cstdint>

#include "core/nn/eigen.h"         // <immintrin.h>, with GCC 12's false warnings silenced
#include "core/nn/simd_regions.h"  // ACCELLAB_X86_KERNELS, ACCELLAB_TARGET, firstLanes

#if ACCELLAB_X86_KERNELS
namespace core::nn::detail {

// Words 0-15 and 16-31 of a vector interleaved: word j of each half side by side.
alignas(64) inline constexpr std::uint16_t kHalvesInterleaved[32] = {
    0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
    8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};

// n values of lo and hi (a null hi: zeros) to n words of pairs (`pairs`, lo in the low half) and,
// where given, to n bf16 values each (`loOut`, `hiOut`): one conversion instruction for both rows.
ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
inline void bf16Rows(const float* lo, const float* hi, std::int64_t n, std::uint32_t* pairs,
                     std::uint16_t* loOut, std::uint16_t* hiOut) {
  const __m512i interleave = _mm512_load_si512(kHalvesInterleaved);
  for (std::int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = firstLanes(n - i);
    const __m512 l = _mm512_maskz_loadu_ps(m, lo + i),
                 h = hi ? _mm512_maskz_loadu_ps(m, hi + i) : _mm512_setzero_ps();
    const __m512i both =
        reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(h, l));  // lo in words 0-15, hi in 16-31
    if (pairs) _mm512_mask_storeu_epi32(pairs + i, m, _mm512_permutexvar_epi16(interleave, both));
    if (loOut) _mm512_mask_storeu_epi16(loOut + i, m, both);
    if (hiOut)
      _mm512_mask_storeu_epi16(hiOut + i, m, _mm512_shuffle_i64x2(both, both, _MM_SHUFFLE(3, 2, 3, 2)));
  }
}

}  // namespace core::nn::detail
#endif
