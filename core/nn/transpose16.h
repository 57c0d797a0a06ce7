#pragma once
// Float blocks transposed in registers: 16 x 16 in AVX-512 (the GEMM's packing, the bf16
// packers and the Winograd convolution's channel-last copy share it; compiled for AVX-512 by
// target attribute on any x86 build), 8 x 8 in AVX where the build targets it (the GEMM's B
// strips).
#include <cstdint>

#include "core/nn/eigen.h"  // <immintrin.h>, with GCC 12's false warnings silenced

namespace core::nn {

#if defined(__AVX__)
// dst[q * 8 + r] = src[r * lds + q] for an 8 x 8 block (eight columns of a packed strip).
inline void transpose8x8(const float* src, std::int64_t lds, float* dst) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * lds);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
  }
  for (int i = 0; i < 8; ++i) _mm256_storeu_ps(dst + i * 8, t[i]);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
// The 16 x 16 transpose on registers, in place (r[q] lane i <- r[i] lane q). Compiled for
// AVX-512 by target attribute, so kernels chosen at run time in a build for an older baseline
// (the bf16 packers) share it; called only where the CPU has AVX-512.
__attribute__((target("avx512f"))) inline void transpose16x16Registers(__m512* r) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int h = 0; h < 16; h += 8)
    for (int i = 0; i < 4; ++i) {
      t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0x88);
      t[h + i + 4] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0xDD);
    }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
  }
}

// dst[q * ldd + r] = src[r * lds + q] for a 16 x 16 block; as the one above, for AVX-512 by
// target attribute (the Winograd copy and the GEMM's A packing call it where AVX-512 runs).
__attribute__((target("avx512f"))) inline void transpose16x16(const float* src, std::int64_t lds, float* dst,
                                                              std::int64_t ldd) {
  __m512 r[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * lds);
  transpose16x16Registers(r);
  for (int i = 0; i < 16; ++i) _mm512_storeu_ps(dst + i * ldd, r[i]);
}
#endif

}  // namespace core::nn
