#include "core/nn/gemm_kernels.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/nn/eigen.h"  // <immintrin.h>, with GCC 12's false warnings silenced
#include "core/nn/gemm.h"
#include "core/util/error.h"

// Each kernel is compiled for its own instruction set, whatever the build's baseline.
#if defined(__x86_64__) && defined(__GNUC__)
#define ACCELLAB_X86_KERNELS 1
#define ACCELLAB_TARGET(isa) __attribute__((target(isa)))
#else
#define ACCELLAB_X86_KERNELS 0
#endif
#if ACCELLAB_X86_KERNELS && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#define ACCELLAB_AMX_KERNELS 1  // the permission to use AMX is asked of Linux
#else
#define ACCELLAB_AMX_KERNELS 0
#endif

namespace core::nn {
namespace {

constexpr std::int64_t kMr = kGemmMr, kNr = kGemmNr;

GemmIsa initialLimit();

// Linux hands AMX's 8 KiB of tile state to a process that asks (arch_prctl, Linux 5.16+); until
// then the instructions fault. The permission is the process's, for all its threads; it is asked
// only where ACCELLAB_GEMM_ISA allows AMX (it makes every signal frame larger).
bool amxPermitted() {
#if ACCELLAB_AMX_KERNELS
  if (initialLimit() < GemmIsa::Amx) return false;
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return ::syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

GemmIsa detect() {
#if ACCELLAB_X86_KERNELS
  __builtin_cpu_init();  // GCC's checks include the OS's saving of the wider registers (XCR0)
  if (__builtin_cpu_supports("avx512f")) {
    if (!__builtin_cpu_supports("avx512bf16")) return GemmIsa::Avx512;
    if (__builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-bf16") && amxPermitted()) return GemmIsa::Amx;
    return GemmIsa::Avx512Bf16;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return GemmIsa::Avx2;
#endif
  return GemmIsa::Portable;
}

// The limit starts at the environment's choice (a benchmark of another path needs no rebuild);
// a name that is not a path is said once on stderr and ignored.
GemmIsa readLimit() {
  const char* env = std::getenv("ACCELLAB_GEMM_ISA");
  if (!env || !*env) return GemmIsa::Amx;
  if (const auto isa = parseGemmIsa(env)) return *isa;
  std::fprintf(stderr,
               "accellab: ACCELLAB_GEMM_ISA=%s is not one of portable, avx2, avx512, avx512-bf16, amx; it is ignored\n",
               env);
  return GemmIsa::Amx;
}

GemmIsa initialLimit() {
  static const GemmIsa l = readLimit();
  return l;
}

std::atomic<int>& limit() {
  static std::atomic<int> l{static_cast<int>(initialLimit())};
  return l;
}

// ---- portable --------------------------------------------------------------------------

void kernelPortable(std::int64_t kc, const float* __restrict a, const float* __restrict b, float* c, std::int64_t ldc,
                    bool accumulate, std::int64_t mr, std::int64_t nr, float* tile) {
  float acc[kNr][kMr] = {};
  for (std::int64_t p = 0; p < kc; ++p, a += kMr, b += kNr)
    for (std::int64_t j = 0; j < kNr; ++j)
      for (std::int64_t i = 0; i < kMr; ++i) acc[j][i] += a[i] * b[j];
  if (tile) {
    for (std::int64_t j = 0; j < kNr; ++j)
      for (std::int64_t i = 0; i < kMr; ++i) tile[j * kMr + i] = acc[j][i];
    return;
  }
  for (std::int64_t j = 0; j < nr; ++j)
    for (std::int64_t i = 0; i < mr; ++i) c[i + j * ldc] = (accumulate ? c[i + j * ldc] : 0.0f) + acc[j][i];
}

#if ACCELLAB_X86_KERNELS

// ---- AVX2 + FMA: the 32-row tile as four 8-row quarters (16 ymm registers hold one) ----

ACCELLAB_TARGET("avx2,fma")
void kernelAvx2(std::int64_t kc, const float* __restrict a, const float* __restrict b, float* c, std::int64_t ldc,
                bool accumulate, std::int64_t mr, std::int64_t nr, float* tile) {
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
  if (tile) return;
  for (std::int64_t j = 0; j < nr; ++j)
    for (std::int64_t i = 0; i < mr; ++i) c[i + j * ldc] = (accumulate ? c[i + j * ldc] : 0.0f) + buf[j * kMr + i];
}

// ---- AVX-512: 32 x 8 in 16 zmm accumulators --------------------------------------------

ACCELLAB_TARGET("avx512f")
inline __mmask16 rowMask(std::int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xffff) : n <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << n) - 1u);
}

// Writes the finished accumulators (lo: rows 0-15, hi: rows 16-31 of each column).
ACCELLAB_TARGET("avx512f")
inline void storeTile512(const __m512* lo, const __m512* hi, float* c, std::int64_t ldc, bool accumulate,
                         std::int64_t mr, std::int64_t nr, float* tile) {
  if (tile) {
    for (std::int64_t j = 0; j < kNr; ++j) {
      _mm512_storeu_ps(tile + j * kMr, lo[j]);
      _mm512_storeu_ps(tile + j * kMr + 16, hi[j]);
    }
    return;
  }
  const __mmask16 m0 = rowMask(mr), m1 = rowMask(mr - 16);
  for (std::int64_t j = 0; j < nr; ++j) {
    float* cj = c + j * ldc;
    __m512 v0 = lo[j], v1 = hi[j];
    if (accumulate) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, cj));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, cj + 16));
    }
    _mm512_mask_storeu_ps(cj, m0, v0);
    _mm512_mask_storeu_ps(cj + 16, m1, v1);
  }
}

ACCELLAB_TARGET("avx512f")
void kernelAvx512(std::int64_t kc, const float* __restrict a, const float* __restrict b, float* c, std::int64_t ldc,
                  bool accumulate, std::int64_t mr, std::int64_t nr, float* tile) {
  __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c03 = c00, c04 = c00, c05 = c00, c06 = c00, c07 = c00;
  __m512 c10 = c00, c11 = c00, c12 = c00, c13 = c00, c14 = c00, c15 = c00, c16 = c00, c17 = c00;
#pragma GCC unroll 4
  for (std::int64_t p = 0; p < kc; ++p) {
    const __m512 a0 = _mm512_loadu_ps(a), a1 = _mm512_loadu_ps(a + 16);
    __m512 bb;
#define ACCELLAB_GEMM_STEP(j)             \
  bb = _mm512_set1_ps(b[j]);              \
  c0##j = _mm512_fmadd_ps(a0, bb, c0##j); \
  c1##j = _mm512_fmadd_ps(a1, bb, c1##j);
    ACCELLAB_GEMM_STEP(0) ACCELLAB_GEMM_STEP(1) ACCELLAB_GEMM_STEP(2) ACCELLAB_GEMM_STEP(3)
    ACCELLAB_GEMM_STEP(4) ACCELLAB_GEMM_STEP(5) ACCELLAB_GEMM_STEP(6) ACCELLAB_GEMM_STEP(7)
#undef ACCELLAB_GEMM_STEP
    a += kMr;
    b += kNr;
  }
  const __m512 lo[kNr] = {c00, c01, c02, c03, c04, c05, c06, c07};
  const __m512 hi[kNr] = {c10, c11, c12, c13, c14, c15, c16, c17};
  storeTile512(lo, hi, c, ldc, accumulate, mr, nr, tile);
}

// ---- AVX512_BF16: two depths per lane per instruction ---------------------------------

ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
void kernelBf16(std::int64_t pairs, const std::uint32_t* __restrict a, const std::uint32_t* __restrict b, float* c,
                std::int64_t ldc, bool accumulate, std::int64_t mr, std::int64_t nr, float* tile) {
  __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c03 = c00, c04 = c00, c05 = c00, c06 = c00, c07 = c00;
  __m512 c10 = c00, c11 = c00, c12 = c00, c13 = c00, c14 = c00, c15 = c00, c16 = c00, c17 = c00;
#pragma GCC unroll 4
  for (std::int64_t q = 0; q < pairs; ++q) {
    const __m512bh a0 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(a));
    const __m512bh a1 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(a + 16));
    __m512bh bb;
#define ACCELLAB_GEMM_STEP(j)                                                   \
  bb = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(b[j]))); \
  c0##j = _mm512_dpbf16_ps(c0##j, a0, bb);                                      \
  c1##j = _mm512_dpbf16_ps(c1##j, a1, bb);
    ACCELLAB_GEMM_STEP(0) ACCELLAB_GEMM_STEP(1) ACCELLAB_GEMM_STEP(2) ACCELLAB_GEMM_STEP(3)
    ACCELLAB_GEMM_STEP(4) ACCELLAB_GEMM_STEP(5) ACCELLAB_GEMM_STEP(6) ACCELLAB_GEMM_STEP(7)
#undef ACCELLAB_GEMM_STEP
    a += kMr;
    b += kNr;
  }
  const __m512 lo[kNr] = {c00, c01, c02, c03, c04, c05, c06, c07};
  const __m512 hi[kNr] = {c10, c11, c12, c13, c14, c15, c16, c17};
  storeTile512(lo, hi, c, ldc, accumulate, mr, nr, tile);
}

#if ACCELLAB_AMX_KERNELS
// ---- AMX: the tile transposed, C^T (8 x 32) = B^T (8 x 32 depths) A^T (32 depths x 32) ----

// One configuration for both kernels: tiles 0-3 are C^T (8 rows of 16 floats: a strip's 8
// columns for rows 0-15 or 16-31, two strips), tiles 4, 5 B^T (8 columns x 16 pairs, two
// strips), tiles 6, 7 A (16 pairs x 16 rows, rows 0-15 and 16-31).
struct alignas(64) TileConfig {
  std::uint8_t palette = 1, startRow = 0, reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

// The configuration is each thread's own state, loaded by a thread's first tile kernel of a
// GEMM; the GEMM lets the tile state (8 KiB, saved at each context switch) go when it ends, as
// Intel advises (the peak loop loads its own and lets it go too). Measured on colab-cnn:
// 866-872 images/s with the release, 844-868 without (2026-11-27): no cost.
thread_local bool t_tilesConfigured = false;

ACCELLAB_TARGET("amx-tile")
void releaseTileState() { _tile_release(); }

ACCELLAB_TARGET("amx-tile")
void configureTiles() {
  if (t_tilesConfigured) return;
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.rows[t] = t < 6 ? kNr : 16;
    cfg.colsb[t] = 64;
  }
  _tile_loadconfig(&cfg);
  t_tilesConfigured = true;
}

// A finished C^T pair of tiles (rows 0-15 in T0, 16-31 in T1) to C or to a tile buffer.
#define ACCELLAB_AMX_FINISH(T0, T1, c, tile, nr)                                                 \
  do {                                                                                           \
    if (!(tile) && mr == kMr && (nr) == kNr) {                                                   \
      _tile_stored(T0, c, ldc * 4);                                                              \
      _tile_stored(T1, (c) + 16, ldc * 4);                                                       \
      break;                                                                                     \
    }                                                                                            \
    alignas(64) float buf_[kMr * kNr];                                                           \
    float* out_ = (tile) ? (tile) : buf_;                                                        \
    _tile_stored(T0, out_, kMr * 4); /* row j of C^T is column j of C: column-major */          \
    _tile_stored(T1, out_ + 16, kMr * 4);                                                        \
    if (tile) break;                                                                             \
    for (std::int64_t j = 0; j < (nr); ++j)                                                      \
      for (std::int64_t i = 0; i < mr; ++i)                                                      \
        (c)[i + j * ldc] = (accumulate ? (c)[i + j * ldc] : 0.0f) + buf_[j * kMr + i];           \
  } while (false)

#define ACCELLAB_AMX_START(T0, T1, c, tile, nr)     \
  if (!(tile) && mr == kMr && (nr) == kNr && accumulate) { \
    _tile_loadd(T0, c, ldc * 4);                  \
    _tile_loadd(T1, (c) + 16, ldc * 4);           \
  } else {                                        \
    _tile_zero(T0);                               \
    _tile_zero(T1);                               \
  }

ACCELLAB_TARGET("amx-tile,amx-bf16,avx512f")
void kernelAmx(std::int64_t depth, const std::uint32_t* __restrict a, const std::uint32_t* __restrict b, float* c,
               std::int64_t ldc, bool accumulate, std::int64_t mr, std::int64_t nr, float* tile) {
  configureTiles();
  ACCELLAB_AMX_START(0, 1, c, tile, nr)
  for (std::int64_t q = 0; q < depth; q += 16) {
    _tile_loadd(4, b + q * kNr, 64);       // 8 columns, 16 pairs each
    _tile_loadd(6, a + q * kMr, kMr * 4);  // pairs q..q+15 of rows 0-15
    _tile_loadd(7, a + q * kMr + 16, kMr * 4);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
  }
  ACCELLAB_AMX_FINISH(0, 1, c, tile, nr);
}

// Two adjacent B strips (the first whole) against one A strip: each A tile loaded once for
// both, half the A traffic of two single calls.
ACCELLAB_TARGET("amx-tile,amx-bf16,avx512f")
void kernelAmx2(std::int64_t depth, const std::uint32_t* __restrict a, const std::uint32_t* __restrict b0,
                const std::uint32_t* __restrict b1, float* c0, float* c1, std::int64_t ldc, bool accumulate,
                std::int64_t mr, std::int64_t nr1, float* tile0, float* tile1) {
  configureTiles();
  ACCELLAB_AMX_START(0, 1, c0, tile0, kNr)
  ACCELLAB_AMX_START(2, 3, c1, tile1, nr1)
  for (std::int64_t q = 0; q < depth; q += 16) {
    _tile_loadd(6, a + q * kMr, kMr * 4);
    _tile_loadd(7, a + q * kMr + 16, kMr * 4);
    _tile_loadd(4, b0 + q * kNr, 64);
    _tile_loadd(5, b1 + q * kNr, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  ACCELLAB_AMX_FINISH(0, 1, c0, tile0, kNr);
  ACCELLAB_AMX_FINISH(2, 3, c1, tile1, nr1);
}

#undef ACCELLAB_AMX_START
#undef ACCELLAB_AMX_FINISH

void releaseTilesNow() {
  if (!t_tilesConfigured) return;
  releaseTileState();
  t_tilesConfigured = false;
}
#endif  // ACCELLAB_AMX_KERNELS

// ---- peak loops: 12 independent chains in registers, enough to fill two FMA pipes ----

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
  return _mm512_reduce_add_ps(acc[0]) + _mm512_reduce_add_ps(acc[11]);
}

ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
float chainsBf16(std::int64_t iterations, float seed) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(seed * static_cast<float>(i + 1));
  const __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(seed));
  for (std::int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], x, x);
  return _mm512_reduce_add_ps(acc[0]) + _mm512_reduce_add_ps(acc[11]);
}

#if ACCELLAB_AMX_KERNELS
// Six 16 x 16 accumulators, each TDPBF16PS 16 x 16 x 32 multiply-adds.
ACCELLAB_TARGET("amx-tile,amx-bf16")
float chainsAmx(std::int64_t iterations, float seed) {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) cfg.rows[t] = 16, cfg.colsb[t] = 64;
  _tile_loadconfig(&cfg);
  alignas(64) std::uint32_t src[16 * 16];
  for (auto& w : src) w = 0x3f803f80u;  // bf16 pairs of 1.0
  alignas(64) float out[16 * 16];
  _tile_loadd(6, src, 64);
  _tile_loadd(7, src, 64);
  _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3); _tile_zero(4); _tile_zero(5);
  for (std::int64_t it = 0; it < iterations; ++it) {
    _tile_dpbf16ps(0, 6, 7); _tile_dpbf16ps(1, 6, 7); _tile_dpbf16ps(2, 6, 7);
    _tile_dpbf16ps(3, 6, 7); _tile_dpbf16ps(4, 6, 7); _tile_dpbf16ps(5, 6, 7);
  }
  _tile_stored(0, out, 64);
  _tile_release();  // the peak loop's own configuration is gone: the GEMM's is loaded again
  t_tilesConfigured = false;
  return out[0] * seed;
}
#endif

#endif  // ACCELLAB_X86_KERNELS

float chainsPortable(std::int64_t iterations, float seed) {
  float acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = seed * static_cast<float>(i + 1);
  for (std::int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < 12; ++i) acc[i] = acc[i] * 0.999f + 1e-3f;
  float s = 0;
  for (float v : acc) s += v;
  return s;
}

// fp32 -> bf16 bits, to nearest even; NaN stays NaN (quiet), infinities stay.
inline std::uint32_t bf16Bits(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if ((u & 0x7f800000u) == 0x7f800000u) return (u >> 16) | ((u & 0x007fffffu) ? 0x40u : 0u);
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

}  // namespace

const char* gemmIsaName(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::Portable: return "portable";
    case GemmIsa::Avx2: return "avx2";
    case GemmIsa::Avx512: return "avx512";
    case GemmIsa::Avx512Bf16: return "avx512-bf16";
    case GemmIsa::Amx: return "amx";
  }
  return "portable";
}

std::optional<GemmIsa> parseGemmIsa(std::string_view name) {
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512, GemmIsa::Avx512Bf16, GemmIsa::Amx})
    if (name == gemmIsaName(isa)) return isa;
  return std::nullopt;
}

GemmIsa detectedGemmIsa() {
  static const GemmIsa isa = detect();
  return isa;
}

GemmIsa gemmIsa() {
  return static_cast<GemmIsa>(std::min(static_cast<int>(detectedGemmIsa()), limit().load(std::memory_order_relaxed)));
}

GemmIsa limitGemmIsa(GemmIsa most) { return static_cast<GemmIsa>(limit().exchange(static_cast<int>(most))); }

bool bf16OnHardware() { return gemmIsa() >= GemmIsa::Avx512Bf16; }

std::string gemmPathText(util::Precision precision) {
  const GemmIsa isa = gemmIsa();
  std::string fp32;
  switch (isa) {
    case GemmIsa::Portable: fp32 = "portable fp32 kernel"; break;
    case GemmIsa::Avx2: fp32 = "AVX2 fp32 FMA"; break;
    case GemmIsa::Avx512:
    case GemmIsa::Avx512Bf16:
    case GemmIsa::Amx: fp32 = "AVX-512 fp32 FMA"; break;
  }
  switch (precision) {
    case util::Precision::FP32: return fp32;
    case util::Precision::BF16:
      if (isa == GemmIsa::Amx) return "AMX bf16 tiles (TDPBF16PS), fp32 accumulation";
      if (isa == GemmIsa::Avx512Bf16) return "AVX512_BF16 bf16 dot products, fp32 accumulation";
      if (detectedGemmIsa() >= GemmIsa::Avx512Bf16)
        return fp32 + " on operands rounded to bf16 (this CPU's bf16 units are off: ACCELLAB_GEMM_ISA or a limit;"
                      " emulated, no faster than fp32)";
      return fp32 + " on operands rounded to bf16 (no AMX or AVX512_BF16 here: emulated, no faster than fp32)";
    default:
      return fp32 + " on operands rounded to " + util::precisionName(precision) + " (emulated, no faster than fp32)";
  }
}

namespace detail {

Fp32Kernel fp32Kernel() {
#if ACCELLAB_X86_KERNELS
  switch (gemmIsa()) {
    case GemmIsa::Amx:
    case GemmIsa::Avx512Bf16:
    case GemmIsa::Avx512: return kernelAvx512;
    case GemmIsa::Avx2: return kernelAvx2;
    case GemmIsa::Portable: break;
  }
#endif
  return kernelPortable;
}

Bf16Kernel2 amxKernel2() {
#if ACCELLAB_AMX_KERNELS
  if (detectedGemmIsa() >= GemmIsa::Amx) return kernelAmx2;
#endif
  return nullptr;
}

void releaseTiles() {
#if ACCELLAB_AMX_KERNELS
  releaseTilesNow();
#endif
}

Bf16Kernel bf16Kernel(Form form) {
#if ACCELLAB_AMX_KERNELS
  if (form == Form::AmxTiles && detectedGemmIsa() >= GemmIsa::Amx) return kernelAmx;
#endif
#if ACCELLAB_X86_KERNELS
  if (form == Form::Bf16Pairs && detectedGemmIsa() >= GemmIsa::Avx512Bf16) return kernelBf16;
#endif
  (void)form;
  return nullptr;
}

double peakChains(bool bf16, std::int64_t iterations, float seed, float* sink) {
  [[maybe_unused]] const GemmIsa isa = gemmIsa();
#if ACCELLAB_AMX_KERNELS
  if (bf16 && isa == GemmIsa::Amx) {  // AMX's rate is so high that a tenth of the rounds is enough
    *sink = chainsAmx(iterations / 10, seed);
    return 6.0 * 16 * 16 * 32 * 2 * static_cast<double>(iterations / 10);
  }
#endif
#if ACCELLAB_X86_KERNELS
  if (bf16) {
    if (isa != GemmIsa::Avx512Bf16) return 0;
    *sink = chainsBf16(iterations, seed);
    return 12.0 * 64 * static_cast<double>(iterations);  // 16 lanes x 2 pairs x 2 flops
  }
  if (isa >= GemmIsa::Avx512) {
    *sink = chainsAvx512(iterations, seed);
    return 12.0 * 32 * static_cast<double>(iterations);
  }
  if (isa == GemmIsa::Avx2) {
    *sink = chainsAvx2(iterations, seed);
    return 12.0 * 16 * static_cast<double>(iterations);
  }
#endif
  if (bf16) return 0;
  *sink = chainsPortable(iterations, seed);
  return 12.0 * 2 * static_cast<double>(iterations);
}

namespace {

#if ACCELLAB_X86_KERNELS
// 16 floats (as bits) to bf16 bits in the low half of each lane, as bf16Bits does.
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
  const __mmask16 m = n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
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
      const auto lanes = [](std::int64_t n) {
        return n >= 16 ? static_cast<__mmask16>(0xffff) : n <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << n) - 1u);
      };
      const __mmask16 mLo = lanes((left + 1) / 2), mHi = lanes(left / 2);
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
#else
// Pairs (word (i, q) at q * width + i), zero-padded to `depth` pairs.
void toPairs(const float* src, std::int64_t width, std::int64_t kc, std::int64_t strips, std::int64_t depth,
             std::uint32_t* dst) {
  const std::int64_t pairs = (kc + 1) / 2;
  for (std::int64_t s = 0; s < strips; ++s, src += width * kc, dst += width * depth) {
    for (std::int64_t q = 0; q < pairs; ++q) {
      const float* lo = src + 2 * q * width;
      const float* hi = lo + width;
      std::uint32_t* out = dst + q * width;
      if (2 * q + 1 < kc)
        for (std::int64_t i = 0; i < width; ++i) out[i] = bf16Bits(lo[i]) | bf16Bits(hi[i]) << 16;
      else
        for (std::int64_t i = 0; i < width; ++i) out[i] = bf16Bits(lo[i]);
    }
    std::fill(dst + pairs * width, dst + depth * width, 0u);
  }
}

// AMX's B^T rows: per tile of 16 pairs, column j's 16 pairs together (word (j, q) at
// (q / 16) * 16 * width + j * 16 + q % 16), zero-padded to `depth` pairs.
void toTileRows(const float* src, std::int64_t width, std::int64_t kc, std::int64_t strips, std::int64_t depth,
                std::uint32_t* dst) {
  for (std::int64_t s = 0; s < strips; ++s, src += width * kc, dst += width * depth)
    for (std::int64_t q = 0; q < depth; ++q) {
      std::uint32_t* out = dst + (q / 16) * 16 * width + q % 16;
      for (std::int64_t j = 0; j < width; ++j) {
        const std::uint32_t lo = 2 * q < kc ? bf16Bits(src[2 * q * width + j]) : 0u;
        const std::uint32_t hi = 2 * q + 1 < kc ? bf16Bits(src[(2 * q + 1) * width + j]) : 0u;
        out[j * 16] = lo | hi << 16;
      }
    }
}
#endif

#if ACCELLAB_X86_KERNELS
// 32 floats (n valid, zeros after) to 32 bf16 in order, with the hardware's conversion (to
// nearest even; denormals to zero, which AVX512_BF16's and AMX's products do anyway).
ACCELLAB_TARGET("avx512f,avx512bw,avx512bf16")
inline __m512i bf16x32(const float* src, std::int64_t n) {
  const auto lanes = [](std::int64_t k) {
    return k >= 16 ? static_cast<__mmask16>(0xffff) : k <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << k) - 1u);
  };
  const __m512 lo = _mm512_maskz_loadu_ps(lanes(n), src), hi = _mm512_maskz_loadu_ps(lanes(n - 16), src + 16);
  return reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo));
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
#endif

}  // namespace

bool packPlainA(const float* a, std::int64_t ld, std::int64_t mc, std::int64_t kc, std::uint32_t* dst, Form form) {
#if ACCELLAB_X86_KERNELS
  if (form == Form::Fp32 || detectedGemmIsa() < GemmIsa::Avx512Bf16) return false;
  plainA(a, ld, mc, kc, packedDepth(form, kc), dst);
  return true;
#else
  (void)a, (void)ld, (void)mc, (void)kc, (void)dst, (void)form;
  return false;
#endif
}

bool packPlainB(const float* b, std::int64_t ld, std::int64_t kc, std::int64_t nc, std::uint32_t* dst, Form form) {
#if ACCELLAB_X86_KERNELS
  if (form != Form::AmxTiles || detectedGemmIsa() < GemmIsa::Amx) return false;
  plainAmxB(b, ld, kc, nc, dst);
  return true;
#else
  (void)b, (void)ld, (void)kc, (void)nc, (void)dst, (void)form;
  return false;
#endif
}

void packBf16A(const float* src, std::int64_t kc, std::int64_t strips, std::uint32_t* dst, Form form) {
  if (form == Form::Fp32) throw util::Error("packBf16A: the fp32 form has no bf16 packing");
  toPairs(src, kMr, kc, strips, packedDepth(form, kc), dst);
}

void packBf16B(const float* src, std::int64_t kc, std::int64_t strips, std::uint32_t* dst, Form form) {
  if (form == Form::Fp32) throw util::Error("packBf16B: the fp32 form has no bf16 packing");
  if (form == Form::AmxTiles) toTileRows(src, kNr, kc, strips, packedDepth(form, kc), dst);
  else toPairs(src, kNr, kc, strips, packedDepth(form, kc), dst);
}

}  // namespace detail
}  // namespace core::nn
