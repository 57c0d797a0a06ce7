// Operands packed in the bf16 forms (gemm_kernels.h): bf16 pairs, AMX's tile rows, and plain
// matrices converted as they are read. The forms exist only where AVX-512 does (AVX512_BF16 and
// AMX imply it): a build for another architecture has none.
#include <algorithm>
#include <bit>

#include "core/nn/bf16_rows.h"
#include "core/nn/eigen.h"  // <immintrin.h>, with GCC 12's false warnings silenced
#include "core/nn/gemm.h"
#include "core/nn/gemm_kernels_isa.h"
#include "core/nn/transpose16.h"
#include "core/util/error.h"

namespace core::nn::detail {
namespace {

constexpr std::int64_t kMr = kGemmMr, kNr = kGemmNr;

#if ACCELLAB_X86_KERNELS
// 16 floats (as bits) to bf16 bits in the low half of each lane: to nearest even, as
// roundToPrecision; infinities kept, NaN kept quiet.
ACCELLAB_TARGET("avx512f")
inline __m512i bf16Bits16(__m512i u) {
  const __m512i one = _mm512_set1_epi32(1), expMask = _mm512_set1_epi32(0x7f800000);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), one);
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb), 16);
  const __mmask16 special = _mm512_cmpeq_epi32_mask(_mm512_and_si512(u, expMask), expMask);
  if (!special) return rounded;
  // inf stays inf; NaN stays a (quiet) NaN
  const __mmask16 nan = _mm512_mask_test_epi32_mask(special, u, _mm512_set1_epi32(0x007fffff));
  __m512i kept = _mm512_srli_epi32(u, 16);
  kept = _mm512_mask_or_epi32(kept, nan, kept, _mm512_set1_epi32(0x40));
  return _mm512_mask_mov_epi32(rounded, special, kept);
}

// Rows lo and hi (n <= 16 values each) to n words of pairs.
ACCELLAB_TARGET("avx512f")
inline void pairRow(const float* lo, const float* hi, std::int64_t n, std::uint32_t* out) {
  const __mmask16 m = firstLanes(n);
  const __m512i l = bf16Bits16(_mm512_maskz_loadu_epi32(m, lo));
  const __m512i h = hi ? bf16Bits16(_mm512_maskz_loadu_epi32(m, hi)) : _mm512_setzero_si512();
  _mm512_mask_storeu_epi32(out, m, _mm512_or_si512(l, _mm512_slli_epi32(h, 16)));
}

// The bf16 forms exist only where AVX-512 does (AVX512_BF16 and AMX imply it).
ACCELLAB_TARGET("avx512f")
void toPairs(const float* src, std::int64_t width, std::int64_t kc, std::int64_t strips, std::int64_t depth,
             std::uint32_t* dst) {
  const std::int64_t pairs = (kc + 1) / 2;
  for (std::int64_t s = 0; s < strips; ++s, src += width * kc, dst += width * depth) {
    for (std::int64_t q = 0; q < pairs; ++q) {
      const float* lo = src + 2 * q * width;
      const float* hi = 2 * q + 1 < kc ? lo + width : nullptr;
      for (std::int64_t i = 0; i < width; i += 16) pairRow(lo + i, hi ? hi + i : nullptr, std::min<std::int64_t>(16, width - i), dst + q * width + i);
    }
    std::fill(dst + pairs * width, dst + depth * width, 0u);
  }
}

// AMX's B^T rows: per tile of 16 pairs, column j's 16 pairs together (word (j, q) at
// (q / 16) * 16 * width + j * 16 + q % 16), zero-padded to `depth` pairs. Column j's values
// are width floats apart: gathered.
ACCELLAB_TARGET("avx512f")
void toTileRows(const float* src, std::int64_t width, std::int64_t kc, std::int64_t strips, std::int64_t depth,
                std::uint32_t* dst) {
  const __m512i step = _mm512_mullo_epi32(_mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
                                          _mm512_set1_epi32(static_cast<int>(width)));
  for (std::int64_t s = 0; s < strips; ++s, src += width * kc, dst += width * depth)
    for (std::int64_t q0 = 0; q0 < depth; q0 += 16) {
      // depths 2 q0 + 2 t (lo) and 2 q0 + 2 t + 1 (hi), t = 0..15, those below kc
      const std::int64_t left = kc - 2 * q0;
      const __mmask16 mLo = firstLanes((left + 1) / 2), mHi = firstLanes(left / 2);
      const float* base = src + 2 * q0 * width;
      for (std::int64_t j = 0; j < width; ++j) {
        const __m512i lo = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mLo, step, base + j, 4);
        const __m512i hi = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mHi, step, base + width + j, 4);
        const __m512i w = _mm512_or_si512(_mm512_maskz_mov_epi32(mLo, bf16Bits16(lo)),
                                          _mm512_slli_epi32(_mm512_maskz_mov_epi32(mHi, bf16Bits16(hi)), 16));
        _mm512_storeu_si512(dst + q0 * width + j * 16, w);
      }
    }
}

// 32 floats (n valid, zeros after) to 32 bf16 in order, with the hardware's conversion (to
// nearest even; denormals to zero, which AVX512_BF16's and AMX's products do anyway).
ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
inline __m512i bf16x32(const float* src, std::int64_t n) {
  const __m512 lo = _mm512_maskz_loadu_ps(firstLanes(n), src), hi = _mm512_maskz_loadu_ps(firstLanes(n - 16), src + 16);
  return reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo));
}

// 16 lines of a plain matrix (columns of B, rows of a transposed A), each `ld` floats after the
// one before and read from `first` on: the first `count` of them converted (32 values each, `left`
// of them there; zeros past it) and transposed as 16 x 16 words, so r[q] holds pair row q of the
// 16 lines (a line's 32 values converted in order are its 16 pairs). Lines past `count`: zeros.
ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
inline void pairRowsOfLines(const float* first, std::int64_t ld, std::int64_t count, std::int64_t left, __m512* r) {
  for (std::int64_t j = 0; j < 16; ++j)
    r[j] = j < count ? _mm512_castsi512_ps(bf16x32(first + j * ld, left)) : _mm512_setzero_ps();
  transpose16x16Registers(r);
}

ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
void plainA(const float* a, std::int64_t ld, std::int64_t mc, std::int64_t kc, std::int64_t depth, std::uint32_t* dst) {
  // Word i of a pair strip is row i at depth p (low half) and p + 1 (high half): interleave.
  alignas(64) static constexpr std::uint16_t kInterleave[32] = {0,  32, 1,  33, 2,  34, 3,  35, 4,  36, 5,
                                                                37, 6,  38, 7,  39, 8,  40, 9,  41, 10, 42,
                                                                11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
  const __m512i even = _mm512_load_si512(kInterleave);
  const __m512i odd = _mm512_add_epi16(even, _mm512_set1_epi16(16));
  // Depth outermost: each column of the block is read once, front to back (strip by strip it
  // would jump a whole column, ld floats, per pair: a cache and TLB miss each).
  for (std::int64_t q = 0; q < depth; ++q)
    for (std::int64_t ir = 0; ir < mc; ir += kMr) {
      const std::int64_t mr = std::min(kMr, mc - ir);
      std::uint32_t* out = dst + ir * depth + q * kMr;
      const std::int64_t p = 2 * q;
      if (p >= kc) {
        _mm512_storeu_si512(out, _mm512_setzero_si512());
        _mm512_storeu_si512(out + 16, _mm512_setzero_si512());
        continue;
      }
      const __m512i x = bf16x32(a + ir + p * ld, mr);
      const __m512i y = p + 1 < kc ? bf16x32(a + ir + (p + 1) * ld, mr) : _mm512_setzero_si512();
      _mm512_storeu_si512(out, _mm512_permutex2var_epi16(x, even, y));
      _mm512_storeu_si512(out + 16, _mm512_permutex2var_epi16(x, odd, y));
    }
}

// The same from a transposed plain A (value (i, p) at a[p + i * ld], rows contiguous): a row's 32
// values converted in order are its 16 pair words (depth 2q low, 2q + 1 high), so 16 rows
// converted and transposed as 16 x 16 words give those rows' next 16 pair rows of the strip
// (packed in fp32 first, the transposed copy and the conversion were two passes).
ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
void plainARows(const float* a, std::int64_t ld, std::int64_t mc, std::int64_t kc, std::int64_t depth, std::uint32_t* dst) {
  for (std::int64_t ir = 0; ir < mc; ir += kMr) {
    std::uint32_t* strip = dst + ir * depth;
    for (std::int64_t q0 = 0; q0 < depth; q0 += 16)
      for (std::int64_t half = 0; half < kMr; half += 16) {
        __m512 r[16];
        const std::int64_t rows = mc - ir - half;  // 0 or fewer: a strip's empty half, zeros
        pairRowsOfLines(rows > 0 ? a + 2 * q0 + (ir + half) * ld : a, ld, rows, kc - 2 * q0, r);
        for (std::int64_t q = 0; q < 16 && q0 + q < depth; ++q)
          _mm512_storeu_si512(strip + (q0 + q) * kMr + half, _mm512_castps_si512(r[q]));
      }
  }
}

ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
void plainAmxB(const float* b, std::int64_t ld, std::int64_t kc, std::int64_t nc, std::uint32_t* dst) {
  const std::int64_t depth = packedDepth(Form::AmxTiles, kc);
  for (std::int64_t jr = 0; jr < nc; jr += kNr, dst += kNr * depth)
    for (std::int64_t q = 0; q < depth; q += 16)
      for (std::int64_t j = 0; j < kNr; ++j) {
        const __m512i w = jr + j < nc ? bf16x32(b + 2 * q + (jr + j) * ld, kc - 2 * q) : _mm512_setzero_si512();
        _mm512_storeu_si512(dst + q * kNr + j * 16, w);
      }
}

// The columns form's B strips straight from a plain column-major B (value (p, j) at b[p + j * ld]):
// a column's values converted in order are its pairs, stored as they come; the columns past nc
// of the last strip are zeros.
ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
void plainColumnsB(const float* b, std::int64_t ld, std::int64_t kc, std::int64_t nc, std::uint32_t* dst) {
  const std::int64_t depth = packedDepth(Form::Bf16Columns, kc);
  for (std::int64_t j = 0; j < (nc + kNr - 1) / kNr * kNr; ++j, dst += depth)
    for (std::int64_t q = 0; q < depth; q += 16) {
      const __m512i w = j < nc ? bf16x32(b + j * ld + 2 * q, kc - 2 * q) : _mm512_setzero_si512();
      _mm512_mask_storeu_epi32(dst + q, firstLanes(depth - q), w);
    }
}

// The same from a transposed plain B (value (p, j) at b[j + p * ld], rows contiguous): rows 2q
// and 2q + 1 of 16 columns converted together and interleaved are pair row q of two strips.
ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
void plainPairsBRows(const float* b, std::int64_t ld, std::int64_t kc, std::int64_t nc, std::uint32_t* dst) {
  const __m512i interleave = _mm512_load_si512(kHalvesInterleaved);
  const std::int64_t depth = packedDepth(Form::Bf16Pairs, kc);
  for (std::int64_t jr = 0; jr < nc; jr += 2 * kNr) {
    const std::int64_t cols = std::min(2 * kNr, nc - jr);
    const __mmask16 m = firstLanes(cols);
    std::uint32_t* strip0 = dst + jr * depth;
    std::uint32_t* strip1 = cols > kNr ? strip0 + kNr * depth : nullptr;
    for (std::int64_t q = 0; q < depth; ++q) {
      const float* even = b + jr + 2 * q * ld;
      const __m512 lo = _mm512_maskz_loadu_ps(m, even);
      const __m512 hi = 2 * q + 1 < kc ? _mm512_maskz_loadu_ps(m, even + ld) : _mm512_setzero_ps();
      // bf16 of lo in elements 0-15, of hi in 16-31; interleaved: word j = (lo[j], hi[j])
      const __m512i w = _mm512_permutexvar_epi16(interleave, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(strip0 + q * kNr), _mm512_castsi512_si256(w));
      if (strip1) _mm256_storeu_si256(reinterpret_cast<__m256i*>(strip1 + q * kNr), _mm512_extracti64x4_epi64(w, 1));
    }
  }
}

#endif

}  // namespace

bool packPlainA(const float* a, std::int64_t ld, bool transposed, std::int64_t mc, std::int64_t kc, std::uint32_t* dst,
                Form form) {
#if ACCELLAB_X86_KERNELS
  if (form == Form::Fp32 || detectedGemmIsa() < GemmIsa::Avx512Bf16) return false;
  if (transposed) plainARows(a, ld, mc, kc, packedDepth(form, kc), dst);
  else plainA(a, ld, mc, kc, packedDepth(form, kc), dst);
  return true;
#else
  (void)a, (void)ld, (void)transposed, (void)mc, (void)kc, (void)dst, (void)form;
  return false;
#endif
}

bool packPlainB(const float* b, std::int64_t ld, bool transposed, std::int64_t kc, std::int64_t nc, std::uint32_t* dst,
                Form form) {
#if ACCELLAB_X86_KERNELS
  // An untransposed plain B takes the columns form on this path (formFor), never pairs.
  if (form == Form::Bf16Pairs && transposed && detectedGemmIsa() >= GemmIsa::Avx512Bf16) {
    plainPairsBRows(b, ld, kc, nc, dst);
    return true;
  }
  if (form == Form::Bf16Columns && !transposed && detectedGemmIsa() >= GemmIsa::Avx512Bf16) {
    plainColumnsB(b, ld, kc, nc, dst);
    return true;
  }
  if (transposed || form != Form::AmxTiles || detectedGemmIsa() < GemmIsa::Amx) return false;
  plainAmxB(b, ld, kc, nc, dst);
  return true;
#else
  (void)b, (void)ld, (void)transposed, (void)kc, (void)nc, (void)dst, (void)form;
  return false;
#endif
}

void toBf16Pairs(const float* lo, const float* hi, std::int64_t n, std::uint32_t* out, std::uint16_t* loOut,
                 std::uint16_t* hiOut) {
#if ACCELLAB_X86_KERNELS
  if (detectedGemmIsa() < GemmIsa::Avx512Bf16) throw util::Error("toBf16Pairs: this CPU has no bf16 hardware");
  bf16Rows(lo, hi, n, out, loOut, hiOut);
#else
  (void)lo, (void)hi, (void)n, (void)out, (void)loOut, (void)hiOut;
  throw util::Error("toBf16Pairs: no bf16 form on this architecture");
#endif
}

void toBf16(const float* src, std::int64_t n, std::uint16_t* out) {
#if ACCELLAB_X86_KERNELS
  if (detectedGemmIsa() < GemmIsa::Avx512Bf16) throw util::Error("toBf16: this CPU has no bf16 hardware");
  bf16Rows(src, nullptr, n, nullptr, out, nullptr);
#else
  (void)src, (void)n, (void)out;
  throw util::Error("toBf16: no bf16 form on this architecture");
#endif
}

void packBf16A(const float* src, std::int64_t kc, std::int64_t strips, std::uint32_t* dst, Form form) {
  if (form == Form::Fp32) throw util::Error("packBf16A: the fp32 form has no bf16 packing");
#if ACCELLAB_X86_KERNELS
  toPairs(src, kMr, kc, strips, packedDepth(form, kc), dst);
#else
  (void)src, (void)kc, (void)strips, (void)dst;
  throw util::Error("packBf16A: no bf16 form on this architecture");
#endif
}

void packBf16B(const float* src, std::int64_t kc, std::int64_t strips, std::uint32_t* dst, Form form) {
  if (form == Form::Fp32) throw util::Error("packBf16B: the fp32 form has no bf16 packing");
  if (form == Form::Bf16Columns) throw util::Error("packBf16B: the columns form is only for plain matrices (packPlainB)");
#if ACCELLAB_X86_KERNELS
  if (form == Form::AmxTiles) toTileRows(src, kNr, kc, strips, packedDepth(form, kc), dst);
  else toPairs(src, kNr, kc, strips, packedDepth(form, kc), dst);
#else
  (void)src, (void)kc, (void)strips, (void)dst;
  throw util::Error("packBf16B: no bf16 form on this architecture");
#endif
}

}  // namespace core::nn::detail
