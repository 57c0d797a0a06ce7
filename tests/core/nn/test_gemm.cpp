// The packed SGEMM against a plain triple loop: every transpose combination, edge sizes
// that leave partial micro-tiles and partial cache blocks, accumulation, and rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/nn/gemm.h"
#include "core/nn/gemm_kernels.h"
#include "core/nn/fma_peak.h"
#include "core/nn/gemm_precision.h"
#include "core/util/error.h"

namespace core::nn {
namespace {

struct Mat {
  std::int64_t rows, cols, ld;
  std::vector<float> v;
  Mat(std::int64_t r, std::int64_t c, std::int64_t pad, std::mt19937& rng) : rows(r), cols(c), ld(r + pad), v(static_cast<std::size_t>((r + pad) * c)) {
    std::uniform_real_distribution<float> u(-1, 1);
    for (float& x : v) x = u(rng);
  }
  float at(std::int64_t i, std::int64_t j) const { return v[static_cast<std::size_t>(i + j * ld)]; }
};

void checkGemm(std::int64_t m, std::int64_t n, std::int64_t k, Transpose ta, Transpose tb, bool accumulate,
               util::Precision p = util::Precision::FP32) {
  std::mt19937 rng(static_cast<std::uint32_t>(m * 7919 + n * 31 + k));
  // Stored shapes: A is m x k (or k x m when transposed); padding tests the leading dimension.
  const Mat a = ta == Transpose::No ? Mat(m, k, 3, rng) : Mat(k, m, 1, rng);
  const Mat b = tb == Transpose::No ? Mat(k, n, 2, rng) : Mat(n, k, 5, rng);
  Mat c(m, n, 4, rng);
  const Mat c0 = c;
  sgemm(m, n, k, {a.v.data(), a.ld, ta}, {b.v.data(), b.ld, tb}, c.v.data(), c.ld, accumulate, p);
  double worst = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double ref = accumulate ? c0.at(i, j) : 0.0;
      for (std::int64_t q = 0; q < k; ++q) {
        const float av = ta == Transpose::No ? a.at(i, q) : a.at(q, i);
        const float bv = tb == Transpose::No ? b.at(q, j) : b.at(j, q);
        ref += static_cast<double>(roundToPrecision(av, p)) * roundToPrecision(bv, p);
      }
      worst = std::max(worst, std::abs(ref - c.at(i, j)));
    }
  EXPECT_LT(worst, 1e-4 * std::sqrt(static_cast<double>(k)) + 1e-6) << m << "x" << n << "x" << k;
  // Padding rows of C are untouched.
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = m; i < c.ld; ++i) EXPECT_EQ(c.at(i, j), c0.at(i, j));
}

TEST(Gemm, MatchesNaiveProductForAllTransposes) {
  for (Transpose ta : {Transpose::No, Transpose::Yes})
    for (Transpose tb : {Transpose::No, Transpose::Yes})
      for (bool acc : {false, true}) {
        checkGemm(1, 1, 1, ta, tb, acc);
        checkGemm(33, 9, 17, ta, tb, acc);    // partial micro-tiles in both directions
        checkGemm(64, 16, 400, ta, tb, acc);  // two depth panels
        checkGemm(5, 70, 3, ta, tb, acc);
      }
}

TEST(Gemm, LargeBlocksSpanSeveralCacheBlocks) {
  checkGemm(420, 2100, 70, Transpose::No, Transpose::Yes, false);  // > one A block and one B panel
  checkGemm(97, 41, 800, Transpose::Yes, Transpose::No, true);
}

TEST(Gemm, RoundsOperandsWhilePacking) {
  checkGemm(40, 12, 50, Transpose::No, Transpose::No, false, util::Precision::BF16);
  checkGemm(40, 12, 50, Transpose::Yes, Transpose::Yes, true, util::Precision::FP16);
}

// C (m x n, column-major, leading dimension m) is A B of plain untransposed operands, each
// operand rounded to the precision, within fp32 summation error.
void expectNaiveProduct(const Mat& a, const Mat& b, const std::vector<float>& c, util::Precision p) {
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  double worst = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double ref = 0;
      for (std::int64_t q = 0; q < k; ++q)
        ref += static_cast<double>(roundToPrecision(a.at(i, q), p)) * roundToPrecision(b.at(q, j), p);
      worst = std::max(worst, std::abs(ref - c[static_cast<std::size_t>(i + j * m)]));
    }
  EXPECT_LT(worst, 1e-4 * std::sqrt(static_cast<double>(k)) + 1e-6) << m << "x" << n << "x" << k << " " << gemmIsaName(gemmIsa());
}

// C (m x n, column-major) filled by a GEMM's store callback: a tile's first depth panel is
// assigned, later ones added (a PackedB GEMM delivers each tile once, first and last).
struct TileSink {
  std::int64_t m;
  std::vector<float> c;
  TileSink(std::int64_t rows, std::int64_t cols) : m(rows), c(static_cast<std::size_t>(rows * cols), -7.0f) {}
  GemmC gemmC() {
    GemmC g;
    g.ctx = this;
    g.store = [](void* ctx, const float* tile, std::int64_t i0, std::int64_t j0, std::int64_t mr, std::int64_t nr,
                 bool first, bool) {
      TileSink& o = *static_cast<TileSink*>(ctx);
      for (std::int64_t j = 0; j < nr; ++j)
        for (std::int64_t i = 0; i < mr; ++i) {
          float& v = o.c[static_cast<std::size_t>(i0 + i + (j0 + j) * o.m)];
          v = (first ? 0.0f : v) + tile[i + j * kGemmMr];
        }
    };
    return g;
  }
};

// An operand packed once (PackedB), the product delivered tile by tile to a store callback (a
// convolution's weights) and into a plain C (a dense layer's activations): odd depths leave half
// a bf16 pair, several depth panels and column blocks, B's leading dimension past its depth.
void checkPacked(std::int64_t m, std::int64_t n, std::int64_t k, util::Precision p) {
  std::mt19937 rng(static_cast<std::uint32_t>(m + 131 * n + 17 * k));
  const Mat a(m, k, 1, rng), b(k, n, 3, rng);
  PackedB packed;
  const GemmOperand bo{b.v.data(), b.ld, Transpose::No};
  packed.pack(gemmB(bo), k, n, p);
  EXPECT_EQ(packed.bf16Pairs(), p == util::Precision::BF16 && bf16OnHardware());
  // AVX512_BF16 keeps a plain untransposed B column by column (no transpose while packing).
  if (p == util::Precision::BF16 && gemmIsa() == GemmIsa::Avx512Bf16) {
    EXPECT_EQ(packed.form(), static_cast<int>(detail::Form::Bf16Columns));
  }
  TileSink out(m, n);
  const GemmOperand ao{a.v.data(), a.ld, Transpose::No};
  gemm(m, n, k, gemmA(ao), packed, out.gemmC(), p);
  expectNaiveProduct(a, b, out.c, p);
  std::vector<float> c(static_cast<std::size_t>(m * n), -7.0f);
  GemmC plain;
  plain.data = c.data();
  plain.ld = m;
  gemm(m, n, k, gemmA(ao), packed, plain, p);
  expectNaiveProduct(a, b, c, p);
}

// A store callback with B packed per call: tiles arrive once per depth panel, the first
// assigned, the later ones added (the form a convolution's own B packer uses).
void checkStoreUnpacked(std::int64_t m, std::int64_t n, std::int64_t k, util::Precision p) {
  std::mt19937 rng(static_cast<std::uint32_t>(3 * m + 7 * n + k));
  const Mat a(m, k, 2, rng), b(k, n, 1, rng);
  TileSink out(m, n);
  const GemmOperand ao{a.v.data(), a.ld, Transpose::No}, bo{b.v.data(), b.ld, Transpose::No};
  gemm(m, n, k, gemmA(ao), gemmB(bo), out.gemmC(), p);
  expectNaiveProduct(a, b, out.c, p);
}

// Every path this CPU has computes the same products: the portable kernel, AVX2, AVX-512 and,
// for bf16, AVX512_BF16's dot products and AMX tiles (the rounding of the operands is the
// same; only the fp32 summation order differs).
TEST(Gemm, EveryKernelPathTheCpuHasAgrees) {
  const GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512, GemmIsa::Avx512Bf16, GemmIsa::Amx}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    EXPECT_EQ(gemmIsa(), isa);
    EXPECT_EQ(bf16OnHardware(), isa >= GemmIsa::Avx512Bf16);
    for (util::Precision p : {util::Precision::FP32, util::Precision::BF16}) {
      checkGemm(33, 9, 17, Transpose::No, Transpose::Yes, false, p);  // odd depth: half a pair
      checkGemm(64, 16, 401, Transpose::Yes, Transpose::No, true, p);  // two depth panels, the last odd
      checkGemm(47, 9, 33, Transpose::Yes, Transpose::No, false, p);  // a partial second strip, odd depth
      checkGemm(420, 2100, 70, Transpose::No, Transpose::Yes, false, p);
      checkPacked(1, 1, 1, p);
      checkPacked(200, 37, 389, p);   // more rows than a store block, an odd last panel
      checkPacked(40, 2055, 24, p);   // two column blocks
      checkPacked(40, 2060, 400, p);  // two column blocks of two depth panels each
      checkGemm(33, 9, 17, Transpose::No, Transpose::No, true, p);  // partial tiles added into C
      checkStoreUnpacked(70, 21, 500, p);  // two strips at once, a partial third; two depth panels
      checkStoreUnpacked(70, 21, 501, p);  // the same, the last panel odd
      checkGemm(33, 2100, 401, Transpose::No, Transpose::No, true, p);  // two column blocks of two panels, the last odd
    }
    // The peak loop loads its own tile configuration (AMX) and lets it go: a GEMM after it on the
    // same thread configures again.
    (void)measureFmaPeak(1);
    checkGemm(64, 16, 40, Transpose::No, Transpose::No, false, util::Precision::BF16);
  }
  limitGemmIsa(was);
}

// The operands' rounding is roundToPrecision's on every path: ties to even, overflow to
// infinity, infinities and NaN kept (denormals aside, none here: the hardware's conversion
// flushes them, as its dot products would). Sums of two rounded values are exact here, so the products
// (by ones) are compared exactly.
TEST(Gemm, Bf16RoundsTiesAndSpecialValuesAsTheEmulationDoes) {
  const GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {1.0f + 0x1p-8f,      1.0f + 3 * 0x1p-8f, -(1.0f + 0x1p-8f), 3.14159265f,
                                     3.39e38f,            0x1.fep127f,        -2.5f,             0.1f,
                                     1.0f + 0x1p-8f + 0x1p-12f, 65504.0f,     -0.0f,             7.0f};
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx512, GemmIsa::Avx512Bf16, GemmIsa::Amx}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    const std::int64_t m = static_cast<std::int64_t>(values.size()), k = 2;
    std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k), 1.0f), c(static_cast<std::size_t>(m));
    for (std::int64_t i = 0; i < m; ++i) {
      a[static_cast<std::size_t>(i)] = values[static_cast<std::size_t>(i)];                  // column 0
      a[static_cast<std::size_t>(m + i)] = values[static_cast<std::size_t>((i + 5) % m)];  // column 1
    }
    for (Transpose t : {Transpose::No, Transpose::Yes}) {
      // Transposed: A stored k x m (the same values), read through the other packer.
      std::vector<float> at(a.size());
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t p = 0; p < k; ++p) at[static_cast<std::size_t>(p + i * k)] = a[static_cast<std::size_t>(i + p * m)];
      const GemmOperand op = t == Transpose::No ? GemmOperand{a.data(), m, t} : GemmOperand{at.data(), k, t};
      sgemm(m, 1, k, op, {b.data(), k, Transpose::No}, c.data(), m, false, util::Precision::BF16);
      for (std::int64_t i = 0; i < m; ++i) {
        const float expected = roundToPrecision(a[static_cast<std::size_t>(i)], util::Precision::BF16) +
                               roundToPrecision(a[static_cast<std::size_t>(m + i)], util::Precision::BF16);
        EXPECT_EQ(c[static_cast<std::size_t>(i)], expected) << "row " << i << (t == Transpose::No ? "" : " (transposed)");
      }
    }
    // NaN stays NaN, infinity stays infinity.
    std::vector<float> special = {std::nanf(""), inf, -inf, 1.0f}, one = {1.0f}, out(4);
    sgemm(4, 1, 1, {special.data(), 4, Transpose::No}, {one.data(), 1, Transpose::No}, out.data(), 4, false,
          util::Precision::BF16);
    EXPECT_TRUE(std::isnan(out[0]));
    EXPECT_EQ(out[1], inf);
    EXPECT_EQ(out[2], -inf);
    EXPECT_EQ(out[3], 1.0f);
  }
  limitGemmIsa(was);
}

// AVX512_BF16 is chosen only where its dot products beat fp32 FMAs clearly: on Intel's cores
// they are as fast (one port against two), on AMD's twice.
TEST(Gemm, Bf16DotProductsAreUsedOnlyWhereTheyPay) {
  EXPECT_FALSE(bf16DotProductsPay(677, 667));  // measured here: Sapphire Rapids, 2 threads
  EXPECT_TRUE(bf16DotProductsPay(1300, 660));  // twice the multiply-adds an instruction
  EXPECT_FALSE(bf16DotProductsPay(0, 660));
}

// On AVX-512 a plain fp32 B is kept by reference, not copied; a limit lowered after it was
// "packed" leaves its GEMMs correct (they pack per call on the lower path).
TEST(Gemm, APlainOperandKeptByReferenceSurvivesALoweredLimit) {
  const GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  std::mt19937 rng(5);
  const Mat a(70, 30, 1, rng), b(30, 45, 2, rng);
  const GemmOperand ao{a.v.data(), a.ld, Transpose::No}, bo{b.v.data(), b.ld, Transpose::No};
  PackedB packed;
  packed.pack(gemmB(bo), 30, 45, util::Precision::FP32);
  EXPECT_EQ(packed.plain() != nullptr, gemmIsa() >= GemmIsa::Avx512);
  limitGemmIsa(GemmIsa::Portable);
  TileSink out(70, 45);
  gemm(70, 45, 30, gemmA(ao), packed, out.gemmC(), util::Precision::FP32);
  expectNaiveProduct(a, b, out.c, util::Precision::FP32);
  limitGemmIsa(was);
}

// A layer's bias rides on the GEMM: added once per element, after the last depth panel, on every
// path (each kernel adds it as it writes C), packed per call or once, into a fresh or an
// accumulated C, whole tiles and partial ones (1 and 18 rows of a strip; 24 columns: AMX's
// two-strip kernel and its single one).
TEST(Gemm, ARowBiasIsAddedOnceAfterTheLastPanel) {
  const GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  struct Shape {
    std::int64_t m, n, k;
  };
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512, GemmIsa::Avx512Bf16, GemmIsa::Amx}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    for (util::Precision p : {util::Precision::FP32, util::Precision::BF16})
      for (const Shape& sh :
           {Shape{33, 9, 17}, Shape{50, 24, 17}, Shape{64, 20, 401}, Shape{40, 2060, 10}, Shape{5, 3, 0}})
        for (bool packedOnce : {false, true})
          for (bool accumulate : {false, true}) {
            SCOPED_TRACE(std::string(gemmIsaName(isa)) + " " + util::precisionName(p) + " " + std::to_string(sh.m) + "x" +
                         std::to_string(sh.n) + "x" + std::to_string(sh.k) + (packedOnce ? " packed" : "") +
                         (accumulate ? " accumulate" : ""));
            std::mt19937 rng(static_cast<std::uint32_t>(sh.m + sh.n + sh.k));
            const Mat a(sh.m, sh.k, 0, rng), b(sh.k, sh.n, 0, rng), bias(sh.m, 1, 0, rng);
            Mat c(sh.m, sh.n, 0, rng);
            const Mat c0 = c;
            const GemmOperand opA{a.v.data(), sh.m, Transpose::No}, opB{b.v.data(), std::max<std::int64_t>(sh.k, 1), Transpose::No};
            GemmC out;
            out.data = c.v.data();
            out.ld = sh.m;
            out.accumulate = accumulate;
            out.rowBias = bias.v.data();
            if (packedOnce) {
              PackedB packed;
              packed.pack(gemmB(opB), sh.k, sh.n, p);
              gemm(sh.m, sh.n, sh.k, gemmA(opA), packed, out, p);
            } else {
              gemm(sh.m, sh.n, sh.k, gemmA(opA), gemmB(opB), out, p);
            }
            double worst = 0;
            for (std::int64_t i = 0; i < sh.m; ++i)
              for (std::int64_t j = 0; j < sh.n; ++j) {
                double ref = (accumulate ? c0.at(i, j) : 0.0) + bias.at(i, 0);
                for (std::int64_t q = 0; q < sh.k; ++q)
                  ref += static_cast<double>(roundToPrecision(a.at(i, q), p)) * roundToPrecision(b.at(q, j), p);
                worst = std::max(worst, std::abs(ref - c.at(i, j)));
              }
            EXPECT_LT(worst, 1e-4 * std::sqrt(static_cast<double>(sh.k) + 1) + 1e-6);
          }
  }
  limitGemmIsa(was);
  std::vector<float> one = {1.0f};
  GemmC withStore;  // a store callback places tiles itself: a bias there is refused
  withStore.rowBias = one.data();
  withStore.store = [](void*, const float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, bool, bool) {};
  const GemmOperand scalar{one.data(), 1, Transpose::No};
  EXPECT_THROW(gemm(1, 1, 1, gemmA(scalar), gemmB(scalar), withStore), util::Error);
}

// The peak loop's figure counts twelve chains a round: every one must be computed. Its result is
// the sum of all twelve (one lane each), so a chain the compiler dropped shows here (GCC dropped
// ten of AVX-512's twelve while two were summed: the peak read 1.5x the real one).
TEST(Gemm, ThePeakLoopComputesEveryChainItCounts) {
  const GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512, GemmIsa::Avx512Bf16}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    constexpr std::int64_t kRounds = 1000;
    float sink = 0;
    ASSERT_GT(detail::peakChains(false, kRounds, 1.0f, &sink), 0);
    double expected = 0;  // chain i starts at i + 1 and runs acc = acc * 0.999 + 0.001
    for (int i = 0; i < 12; ++i) {
      float acc = static_cast<float>(i + 1);
      for (std::int64_t r = 0; r < kRounds; ++r) acc = std::fma(acc, 0.999f, 1e-3f);
      expected += acc;
    }
    EXPECT_NEAR(sink, expected, 1e-4 * expected);
    if (gemmIsa() == GemmIsa::Avx512Bf16) {  // chain i's first lane: i + 1, then + 1 * 1 + 1 * 1 a round
      ASSERT_GT(detail::peakChains(true, kRounds, 1.0f, &sink), 0);
      const double bf16Expected = 78.0 + 12.0 * kRounds * 2.0;
      EXPECT_NEAR(sink, bf16Expected, 1e-4 * bf16Expected);
    }
  }
  limitGemmIsa(was);
}

TEST(Gemm, PathsAreNamedAndALimitNeverExceedsTheCpu) {
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512, GemmIsa::Avx512Bf16, GemmIsa::Amx})
    EXPECT_EQ(parseGemmIsa(gemmIsaName(isa)), isa);
  EXPECT_FALSE(parseGemmIsa("avx512bf16").has_value());
  const GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  EXPECT_EQ(gemmIsa(), detectedGemmIsa());  // the limit is a ceiling, not a wish
  EXPECT_EQ(gemmPathText(util::Precision::BF16).find("emulated") == std::string::npos, bf16OnHardware());
  limitGemmIsa(GemmIsa::Portable);
  EXPECT_FALSE(bf16OnHardware());
  EXPECT_NE(gemmPathText(util::Precision::BF16).find("emulated"), std::string::npos);
  EXPECT_NE(gemmPathText(util::Precision::FP32).find("portable"), std::string::npos);
  limitGemmIsa(was);
}

TEST(Gemm, EmptyDepthClearsOrKeeps) {
  std::vector<float> c = {1, 2, 3, 4};
  sgemm(2, 2, 0, {nullptr, 2, Transpose::No}, {nullptr, 1, Transpose::No}, c.data(), 2, true);
  EXPECT_EQ(c, (std::vector<float>{1, 2, 3, 4}));
  sgemm(2, 2, 0, {nullptr, 2, Transpose::No}, {nullptr, 1, Transpose::No}, c.data(), 2, false);
  EXPECT_EQ(c, (std::vector<float>{0, 0, 0, 0}));
}

}  // namespace
}  // namespace core::nn
