// The AMX micro-kernels and peak loop (gemm_kernels.h): bf16 tiles, the tile transposed so it
// lands column-major. Linux only (the permission to use AMX is asked of it).
#include <cstdint>

#include "core/nn/eigen.h"  // <immintrin.h>, with GCC 12's false warnings silenced
#include "core/nn/gemm.h"
#include "core/nn/gemm_kernels_isa.h"

#if ACCELLAB_AMX_KERNELS
namespace core::nn::detail {
namespace {

constexpr std::int64_t kMr = kGemmMr, kNr = kGemmNr;

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

}  // namespace

// A finished C^T pair of tiles (rows 0-15 in T0, 16-31 in T1) to C or to a tile buffer; with a
// bias (single strips only) through a buffer, as a partial tile.
#define ACCELLAB_AMX_FINISH(T0, T1, c, tile, nr, bias)                                 \
  do {                                                                                 \
    if (!(tile) && (bias) == nullptr && mr == kMr && (nr) == kNr) {                    \
      _tile_stored(T0, c, ldc * 4);                                                    \
      _tile_stored(T1, (c) + 16, ldc * 4);                                             \
      break;                                                                           \
    }                                                                                  \
    alignas(64) float buf_[kMr * kNr];                                                 \
    float* out_ = (tile) ? (tile) : buf_;                                              \
    _tile_stored(T0, out_, kMr * 4); /* row j of C^T is column j of C: column-major */ \
    _tile_stored(T1, out_ + 16, kMr * 4);                                              \
    if (!(tile)) addTile(buf_, c, ldc, accumulate, bias, mr, nr);                      \
  } while (false)

#define ACCELLAB_AMX_START(T0, T1, c, tile, nr, bias)                           \
  if (!(tile) && (bias) == nullptr && mr == kMr && (nr) == kNr && accumulate) { \
    _tile_loadd(T0, c, ldc * 4);                                                \
    _tile_loadd(T1, (c) + 16, ldc * 4);                                         \
  } else {                                                                      \
    _tile_zero(T0);                                                             \
    _tile_zero(T1);                                                             \
  }

ACCELLAB_TARGET("amx-tile,amx-bf16,avx512f")
void kernelAmx(std::int64_t depth, const std::uint32_t* __restrict a, const std::uint32_t* __restrict b,
               float* c, std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr,
               std::int64_t nr, float* tile) {
  configureTiles();
  ACCELLAB_AMX_START(0, 1, c, tile, nr, bias)
  for (std::int64_t q = 0; q < depth; q += 16) {
    _tile_loadd(4, b + q * kNr, 64);       // 8 columns, 16 pairs each
    _tile_loadd(6, a + q * kMr, kMr * 4);  // pairs q..q+15 of rows 0-15
    _tile_loadd(7, a + q * kMr + 16, kMr * 4);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
  }
  ACCELLAB_AMX_FINISH(0, 1, c, tile, nr, bias);
}

// Two adjacent B strips (the first whole) against one A strip: each A tile loaded once for
// both, half the A traffic of two single calls.
ACCELLAB_TARGET("amx-tile,amx-bf16,avx512f")
void kernelAmx2(std::int64_t depth, const std::uint32_t* __restrict a, const std::uint32_t* __restrict b0,
                const std::uint32_t* __restrict b1, float* c0, float* c1, std::int64_t ldc, bool accumulate,
                std::int64_t mr, std::int64_t nr1, float* tile0, float* tile1) {
  configureTiles();
  ACCELLAB_AMX_START(0, 1, c0, tile0, kNr, nullptr)
  ACCELLAB_AMX_START(2, 3, c1, tile1, nr1, nullptr)
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
  ACCELLAB_AMX_FINISH(0, 1, c0, tile0, kNr, nullptr);
  ACCELLAB_AMX_FINISH(2, 3, c1, tile1, nr1, nullptr);
}

#undef ACCELLAB_AMX_START
#undef ACCELLAB_AMX_FINISH

void releaseTilesNow() {
  if (!t_tilesConfigured) return;
  releaseTileState();
  t_tilesConfigured = false;
}

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

}  // namespace core::nn::detail
#endif  // ACCELLAB_AMX_KERNELS
