// The x86 fp32 and AVX512_BF16 micro-kernels and their peak loops (gemm_kernels.h); each
// compiled for its own instruction set.
#include <algorithm>

#include "core/nn/eigen.h"  // <immintrin.h>, with GCC 12's false warnings silenced
#include "core/nn/gemm.h"
#include "core/nn/gemm_kernels_isa.h"

#if ACCELLAB_X86_KERNELS
namespace core::nn::detail {
namespace {

constexpr std::int64_t kMr = kGemmMr, kNr = kGemmNr;

}  // namespace

// ---- AVX2 + FMA: the 32-row tile as four 8-row quarters (16 ymm registers hold one) ----

ACCELLAB_TARGET("avx2,fma")
void kernelAvx2(std::int64_t kc, const float* __restrict a, const float* __restrict b, float* c,
                std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr,
                float* tile) {
  alignas(32) float buf[kMr * kNr];
  float* out = tile ? tile : buf;
  const std::int64_t quarters = tile ? 4 : (mr + 7) / 8;
  for (std::int64_t q = 0; q < quarters; ++q) {
    __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
    const float* ap = a + q * 8;
    const float* bp = b;
#pragma GCC unroll 4
    for (std::int64_t p = 0; p < kc; ++p, ap += kMr, bp += kNr) {
      const __m256 av = _mm256_loadu_ps(ap);
      c0 = _mm256_fmadd_ps(av, _mm256_broadcast_ss(bp + 0), c0);
      c1 = _mm256_fmadd_ps(av, _mm256_broadcast_ss(bp + 1), c1);
      c2 = _mm256_fmadd_ps(av, _mm256_broadcast_ss(bp + 2), c2);
      c3 = _mm256_fmadd_ps(av, _mm256_broadcast_ss(bp + 3), c3);
      c4 = _mm256_fmadd_ps(av, _mm256_broadcast_ss(bp + 4), c4);
      c5 = _mm256_fmadd_ps(av, _mm256_broadcast_ss(bp + 5), c5);
      c6 = _mm256_fmadd_ps(av, _mm256_broadcast_ss(bp + 6), c6);
      c7 = _mm256_fmadd_ps(av, _mm256_broadcast_ss(bp + 7), c7);
    }
    float* o = out + q * 8;
    _mm256_storeu_ps(o + 0 * kMr, c0);
    _mm256_storeu_ps(o + 1 * kMr, c1);
    _mm256_storeu_ps(o + 2 * kMr, c2);
    _mm256_storeu_ps(o + 3 * kMr, c3);
    _mm256_storeu_ps(o + 4 * kMr, c4);
    _mm256_storeu_ps(o + 5 * kMr, c5);
    _mm256_storeu_ps(o + 6 * kMr, c6);
    _mm256_storeu_ps(o + 7 * kMr, c7);
  }
  if (!tile) addTile(buf, c, ldc, accumulate, bias, mr, nr);
}

// ---- AVX-512: 32 x 8 in 16 zmm accumulators --------------------------------------------

namespace {

// Writes the finished accumulators (lo: rows 0-15, hi: rows 16-31 of each column) to C, added to
// it or not, then plus the rows' bias where there is one, from registers: a layer's bias costs
// two loads and an add per column (through a tile on the stack and a copy it took a fifth of a
// small dense GEMM); or, where `tile` is given, to that buffer as they are.
ACCELLAB_TARGET("avx512f")
inline void storeTile512(const __m512* lo, const __m512* hi, float* c, std::int64_t ldc, bool accumulate,
                         const float* bias, std::int64_t mr, std::int64_t nr, float* tile) {
  if (tile) {
    for (std::int64_t j = 0; j < kNr; ++j) {
      _mm512_storeu_ps(tile + j * kMr, lo[j]);
      _mm512_storeu_ps(tile + j * kMr + 16, hi[j]);
    }
    return;
  }
  if (mr == kMr) {  // whole columns unmasked: a masked load crossing a cache line stalls (Zen 5)
    const __m512 b0 = bias ? _mm512_loadu_ps(bias) : _mm512_setzero_ps();
    const __m512 b1 = bias ? _mm512_loadu_ps(bias + 16) : _mm512_setzero_ps();
    for (std::int64_t j = 0; j < nr; ++j) {
      float* cj = c + j * ldc;
      __m512 v0 = lo[j], v1 = hi[j];
      if (accumulate) {
        v0 = _mm512_add_ps(v0, _mm512_loadu_ps(cj));
        v1 = _mm512_add_ps(v1, _mm512_loadu_ps(cj + 16));
      }
      if (bias) {
        v0 = _mm512_add_ps(v0, b0);
        v1 = _mm512_add_ps(v1, b1);
      }
      _mm512_storeu_ps(cj, v0);
      _mm512_storeu_ps(cj + 16, v1);
    }
    return;
  }
  const __mmask16 m0 = firstLanes(mr), m1 = firstLanes(mr - 16);
  const __m512 b0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
  const __m512 b1 = bias ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
  for (std::int64_t j = 0; j < nr; ++j) {
    float* cj = c + j * ldc;
    __m512 v0 = lo[j], v1 = hi[j];
    if (accumulate) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, cj));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, cj + 16));
    }
    if (bias) {
      v0 = _mm512_add_ps(v0, b0);
      v1 = _mm512_add_ps(v1, b1);
    }
    _mm512_mask_storeu_ps(cj, m0, v0);
    _mm512_mask_storeu_ps(cj + 16, m1, v1);
  }
}

}  // namespace

// The 32 x 8 tile over depth kc: value (p, j) of B's strip at b[p * rowStep + j * colStep], the
// steps fixed at compile time where not 0 (0: `ldb`). A packed strip (kNr, 1); a plain B where it
// lies, as stored (1, ldb) or transposed (ldb, 1): its broadcasts come from 8 columns' cache
// lines (or a row's) instead of a packed strip, the same loads and FMAs without the copy.
// kHalf: rows 0-15 only (a strip of at most 16 rows: an attention head's 16 features), half the
// FMAs; rows 16-31 come out zero.
template <std::int64_t kRowStep, std::int64_t kColStep, bool kHalf = false>
ACCELLAB_TARGET("avx512f")
inline void tile512(std::int64_t kc, const float* __restrict a, const float* __restrict b, std::int64_t ldb,
                    float* c, std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr,
                    std::int64_t nr, float* tile) {
  __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c03 = c00, c04 = c00, c05 = c00, c06 = c00, c07 = c00;
  __m512 c10 = c00, c11 = c00, c12 = c00, c13 = c00, c14 = c00, c15 = c00, c16 = c00, c17 = c00;
  const std::int64_t rowStep = kRowStep ? kRowStep : ldb, colStep = kColStep ? kColStep : ldb;
  const float* b0 = b;
  const float* b1 = b + colStep;
  const float* b2 = b + 2 * colStep;
  const float* b3 = b + 3 * colStep;
  const float* b4 = b + 4 * colStep;
  const float* b5 = b + 5 * colStep;
  const float* b6 = b + 6 * colStep;
  const float* b7 = b + 7 * colStep;
#pragma GCC unroll 4
  for (std::int64_t p = 0; p < kc; ++p) {
    const __m512 a0 = _mm512_loadu_ps(a), a1 = kHalf ? a0 : _mm512_loadu_ps(a + 16);
    const std::int64_t at = p * rowStep;
    __m512 bb;
#define ACCELLAB_GEMM_STEP(j)             \
  bb = _mm512_set1_ps(b##j[at]);          \
  c0##j = _mm512_fmadd_ps(a0, bb, c0##j); \
  if constexpr (!kHalf) c1##j = _mm512_fmadd_ps(a1, bb, c1##j);
    ACCELLAB_GEMM_STEP(0) ACCELLAB_GEMM_STEP(1) ACCELLAB_GEMM_STEP(2) ACCELLAB_GEMM_STEP(3)
    ACCELLAB_GEMM_STEP(4) ACCELLAB_GEMM_STEP(5) ACCELLAB_GEMM_STEP(6) ACCELLAB_GEMM_STEP(7)
#undef ACCELLAB_GEMM_STEP
    a += kMr;
  }
  const __m512 lo[kNr] = {c00, c01, c02, c03, c04, c05, c06, c07};
  const __m512 hi[kNr] = {c10, c11, c12, c13, c14, c15, c16, c17};
  storeTile512(lo, hi, c, ldc, accumulate, bias, mr, nr, tile);
}

ACCELLAB_TARGET("avx512f")
void kernelAvx512(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc,
                  bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr, float* tile) {
  if (mr <= 16)
    tile512<kNr, 1, true>(kc, a, b, 0, c, ldc, accumulate, bias, mr, nr, tile);
  else
    tile512<kNr, 1>(kc, a, b, 0, c, ldc, accumulate, bias, mr, nr, tile);
}

ACCELLAB_TARGET("avx512f")
void kernelAvx512Columns(std::int64_t kc, const float* a, const float* b, std::int64_t ldb, float* c,
                         std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr,
                         std::int64_t nr, float* tile) {
  if (mr <= 16)
    tile512<1, 0, true>(kc, a, b, ldb, c, ldc, accumulate, bias, mr, nr, tile);
  else
    tile512<1, 0>(kc, a, b, ldb, c, ldc, accumulate, bias, mr, nr, tile);
}

ACCELLAB_TARGET("avx512f")
void kernelAvx512Rows(std::int64_t kc, const float* a, const float* b, std::int64_t ldb, float* c,
                      std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr,
                      float* tile) {
  if (mr <= 16)
    tile512<0, 1, true>(kc, a, b, ldb, c, ldc, accumulate, bias, mr, nr, tile);
  else
    tile512<0, 1>(kc, a, b, ldb, c, ldc, accumulate, bias, mr, nr, tile);
}

// ---- AVX512_BF16: two depths per lane per instruction ---------------------------------

// The 32 x 8 tile over `pairs` pair rows: word (q, j) of B's strip at b[q * pairStep + j * colStep],
// the steps fixed at compile time where not 0 (0: `pairs`). Pairs form (kNr, 1); columns form
// (1, 0): column j's pairs in order, as a plain column-major B converts (gemm_kernels.h). kHalf
// as tile512's.
template <std::int64_t kPairStep, std::int64_t kColStep, bool kHalf = false>
ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
inline void tileBf16(std::int64_t pairs, const std::uint32_t* __restrict a, const std::uint32_t* __restrict b,
                     float* c, std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr,
                     std::int64_t nr, float* tile) {
  __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c03 = c00, c04 = c00, c05 = c00, c06 = c00, c07 = c00;
  __m512 c10 = c00, c11 = c00, c12 = c00, c13 = c00, c14 = c00, c15 = c00, c16 = c00, c17 = c00;
  const std::int64_t pairStep = kPairStep ? kPairStep : pairs, colStep = kColStep ? kColStep : pairs;
  const std::uint32_t* b0 = b;
  const std::uint32_t* b1 = b + colStep;
  const std::uint32_t* b2 = b + 2 * colStep;
  const std::uint32_t* b3 = b + 3 * colStep;
  const std::uint32_t* b4 = b + 4 * colStep;
  const std::uint32_t* b5 = b + 5 * colStep;
  const std::uint32_t* b6 = b + 6 * colStep;
  const std::uint32_t* b7 = b + 7 * colStep;
#pragma GCC unroll 4
  for (std::int64_t q = 0; q < pairs; ++q) {
    const __m512bh a0 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(a));
    const __m512bh a1 = kHalf ? a0 : reinterpret_cast<__m512bh>(_mm512_loadu_si512(a + 16));
    const std::int64_t at = q * pairStep;
    __m512bh bb;
#define ACCELLAB_GEMM_STEP(j)                                                       \
  bb = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(b##j[at]))); \
  c0##j = _mm512_dpbf16_ps(c0##j, a0, bb);                                          \
  if constexpr (!kHalf) c1##j = _mm512_dpbf16_ps(c1##j, a1, bb);
    ACCELLAB_GEMM_STEP(0) ACCELLAB_GEMM_STEP(1) ACCELLAB_GEMM_STEP(2) ACCELLAB_GEMM_STEP(3)
    ACCELLAB_GEMM_STEP(4) ACCELLAB_GEMM_STEP(5) ACCELLAB_GEMM_STEP(6) ACCELLAB_GEMM_STEP(7)
#undef ACCELLAB_GEMM_STEP
    a += kMr;
  }
  const __m512 lo[kNr] = {c00, c01, c02, c03, c04, c05, c06, c07};
  const __m512 hi[kNr] = {c10, c11, c12, c13, c14, c15, c16, c17};
  storeTile512(lo, hi, c, ldc, accumulate, bias, mr, nr, tile);
}

ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
void kernelBf16(std::int64_t pairs, const std::uint32_t* a, const std::uint32_t* b, float* c,
                std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr,
                float* tile) {
  if (mr <= 16)
    tileBf16<kNr, 1, true>(pairs, a, b, c, ldc, accumulate, bias, mr, nr, tile);
  else
    tileBf16<kNr, 1>(pairs, a, b, c, ldc, accumulate, bias, mr, nr, tile);
}

ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
void kernelBf16Columns(std::int64_t pairs, const std::uint32_t* a, const std::uint32_t* b, float* c,
                       std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr,
                       float* tile) {
  if (mr <= 16)
    tileBf16<1, 0, true>(pairs, a, b, c, ldc, accumulate, bias, mr, nr, tile);
  else
    tileBf16<1, 0>(pairs, a, b, c, ldc, accumulate, bias, mr, nr, tile);
}

// ---- peak loops: 12 independent chains in registers, enough to fill two FMA pipes ----
// Each returns the sum of its chains' first lanes (every lane holds the same value), so every
// chain is computed: with two of the twelve in the result, GCC kept only those two (a latency-
// bound loop counted as twelve chains: the AVX-512 peak read 1.5x the real one on a Zen 5).

ACCELLAB_TARGET("avx2,fma")
float chainsAvx2(std::int64_t iterations, float seed) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(seed * static_cast<float>(i + 1));
  const __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(1e-3f);
  for (std::int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  return _mm256_cvtss_f32(s);
}

ACCELLAB_TARGET("avx512f")
float chainsAvx512(std::int64_t iterations, float seed) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(seed * static_cast<float>(i + 1));
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-3f);
  for (std::int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  __m512 s = acc[0];  // every chain in the result: a chain it did not need, the compiler would drop
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
  return _mm512_cvtss_f32(s);
}

ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
float chainsBf16(std::int64_t iterations, float seed) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(seed * static_cast<float>(i + 1));
  const __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(seed));
  for (std::int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], x, x);
  __m512 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
  return _mm512_cvtss_f32(s);
}

}  // namespace core::nn::detail
#endif  // ACCELLAB_X86_KERNELS
