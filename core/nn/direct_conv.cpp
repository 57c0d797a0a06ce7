#include "core/nn/direct_conv.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/nn/bf16_rows.h"
#include "core/nn/eigen.h"  // <immintrin.h>, GCC 12 warnings silenced
#include "core/nn/gemm_kernels.h"
#include "core/nn/simd_regions.h"
#include "core/nn/transpose16.h"
#include "core/util/error.h"

// The kernels (direct_conv_kernels.inc) are compiled once per instruction set and chosen at run
// time (simd_regions.h). Before, a build for the portable baseline ran the portable lanes on
// every CPU: lenet5 11x and resnet20 5x slower than a native build.

namespace core::nn {

// The AVX2 and portable kernels' pixelMajor (direct_conv_kernels.inc): one sample's filters x
// pixels to pixels x filters, element by element (AVX-512 transposes 16 x 16 blocks in registers).
namespace direct_scalar {
inline void pixelMajor(const float* gy, std::int64_t pixels, int filters, float* out) {
  for (int f = 0; f < filters; ++f)
    for (std::int64_t p = 0; p < pixels; ++p) out[p * filters + f] = gy[f * pixels + p];
}
}  // namespace direct_scalar

namespace {
constexpr int kMostFilters = 8;  // the widest filter group a pass computes (forward)
constexpr int kWgTaps = 4;       // weight gradient: filters x 4 taps of accumulators
constexpr int kMostLanes = 16;
}  // namespace

// Each set has its own blocking. AVX2 keeps AVX-512's (8 filters x 2 rows, 4 x 4 weight
// gradient) though its 16 registers spill some of it: narrower blocks measured no faster
// (lenet5 under ACCELLAB_GEMM_ISA=avx2 on a Zen 5: 35k images/s; 4-filter groups 23k, 2 x 4
// weight-gradient blocks 34k).
#if ACCELLAB_SIMD_REGIONS
namespace direct_avx512 {
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")  // AVX-512F only, as the dispatch checks
constexpr int kFilterGroup = 8;
constexpr int kWgFilters = 4;
constexpr int kLanes = 16;
using Vec = __m512;
using Mask = __mmask16;
// A whole vector's load unmasked: a masked load that crosses a cache line stalled the FMAs
// after it (resnet20 fp32: the forward kernel 19.6% -> 15.9% of a step). The kernels' loops are
// unswitched on the mask, so the test is not in them.
inline Vec load(const float* p, Mask m) { return m == 0xffff ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec splat(float v) { return _mm512_set1_ps(v); }
inline Vec zero() { return _mm512_setzero_ps(); }
inline void store(float* p, Vec v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
inline float sum(Vec v) { return _mm512_reduce_add_ps(v); }
inline Mask maskOf(int n) { return n >= kLanes ? static_cast<Mask>(0xffff) : static_cast<Mask>((1u << n) - 1u); }
inline void pixelMajor(const float* gy, std::int64_t pixels, int filters,
                       float* out) {  // 16 x 16 blocks in registers
  for (int f0 = 0; f0 < filters; f0 += kLanes)
    for (std::int64_t p0 = 0; p0 < pixels; p0 += kLanes) {
      const int n = pixels - p0 < kLanes ? static_cast<int>(pixels - p0) : kLanes;
      Vec r[kLanes];
      for (int f = 0; f < kLanes; ++f) r[f] = _mm512_maskz_loadu_ps(maskOf(n), gy + (f0 + f) * pixels + p0);
      transpose16x16Registers(r);
      for (int q = 0; q < n; ++q) _mm512_storeu_ps(out + (p0 + q) * filters + f0, r[q]);
    }
}
#include "core/nn/direct_conv_kernels.inc"
#pragma GCC pop_options
}  // namespace direct_avx512

namespace direct_avx2 {
#pragma GCC push_options
#pragma GCC target("avx2,fma")
constexpr int kFilterGroup = 8;
constexpr int kWgFilters = 4;
constexpr int kLanes = 8;
using Vec = __m256;
using Mask = __m256i;  // lanes whose sign bit is set
inline Vec load(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec splat(float v) { return _mm256_set1_ps(v); }
inline Vec zero() { return _mm256_setzero_ps(); }
inline void store(float* p, Vec v, Mask m) { _mm256_maskstore_ps(p, m, v); }
inline float sum(Vec v) {
  const __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 h = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 1)));
}
inline Mask maskOf(int n) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
using direct_scalar::pixelMajor;
#include "core/nn/direct_conv_kernels.inc"
#pragma GCC pop_options
}  // namespace direct_avx2

// AVX512_BF16: the same kernels on bf16 operands, VDPBF16PS multiplying two of them a lane and
// summing in fp32 (twice the multiply-adds of an fp32 FMA). The forward pass pairs channels
// (word = channels 2c and 2c + 1 of one pixel); the weight gradient pairs adjacent pixels of a
// row, so a row vector covers 32 pixels (with filters as lanes: one broadcast word covers two).
// The fp32 lanes and blocking are AVX-512's own.
namespace direct_bf16 {
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512bf16,avx2,fma")
using direct_avx512::kFilterGroup, direct_avx512::kWgFilters, direct_avx512::kLanes, direct_avx512::Vec,
    direct_avx512::Mask;
using direct_avx512::load, direct_avx512::fma, direct_avx512::add, direct_avx512::splat, direct_avx512::zero,
    direct_avx512::store, direct_avx512::sum, direct_avx512::maskOf, direct_avx512::pixelMajor;
struct Bf16 {  // 32 bf16 values, two a lane
  __m512i v;
};
inline Bf16 load(const std::uint32_t* p, Mask m) {
  return {m == 0xffff ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi32(m, p)};
}
inline Bf16 load(const std::uint16_t* p, __mmask32 m) {
  return {m == 0xffffffffu ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi16(m, p)};
}
inline Vec fma(Bf16 a, Bf16 b, Vec c) { return _mm512_dpbf16_ps(c, (__m512bh)a.v, (__m512bh)b.v); }
inline Bf16 splat(std::uint32_t pair) { return {_mm512_set1_epi32(static_cast<int>(pair))}; }
inline int rowStep(const std::uint16_t*) { return 2 * kLanes; }
inline __mmask32 rowMask(const std::uint16_t*, int n) { return n >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((1u << n) - 1u); }
// Zeros in a kept bf16 row (if any) but for [from, to): plain loops, no library template in a
// target region.
inline void zeroOutside(std::uint16_t* row, std::int64_t from, std::int64_t to, std::int64_t width) {
  if (!row) return;
  for (std::int64_t x = 0; x < from; ++x) row[x] = 0;
  for (std::int64_t x = to; x < width; ++x) row[x] = 0;
}

// One image (channel-major, unpadded) straight into the plan's zero-padded layout in bf16, as
// the kernels' channel pairs (`pairs`: plane words per pair of channels, channel 2c in the low
// half) and, where wanted, channel by channel (`kept`: paddedSize() values), in one pass: no
// padded fp32 copy between (padImages, then two conversions, took three passes). In the region:
// its rows' conversions inline (a call a row, checking the CPU each time, was 4-8% of a lenet5
// bf16 step).
void padToBf16(const ConvPlan& plan, const float* image, std::uint32_t* pairs, std::uint16_t* kept) {
  const ConvGeometry& g = plan.g;
  const std::int64_t width = plan.paddedW, plane = static_cast<std::int64_t>(plan.paddedH) * width;
  const std::int64_t inPlane = static_cast<std::int64_t>(g.height) * g.width;
  // Padded column x holds input column x - padLeft (cropped where a 'valid' convolution's
  // windows do not reach the last columns); rows likewise.
  const int x0 = g.padLeft > 0 ? g.padLeft : 0;
  const int x1 = plan.paddedW < g.width + g.padLeft ? plan.paddedW : g.width + g.padLeft;
  const std::int64_t inside = x1 > x0 ? x1 - x0 : 0;
  for (int c = 0; c < g.channels; c += 2) {
    const bool both = c + 1 < g.channels;
    std::uint32_t* pairPlane = pairs + static_cast<std::int64_t>(c / 2) * plane;
    std::uint16_t* keptLo = kept ? kept + c * plane : nullptr;
    std::uint16_t* keptHi = kept && both ? keptLo + plane : nullptr;
    for (int y = 0; y < plan.paddedH; ++y) {
      std::uint32_t* pairRow = pairPlane + y * width;
      std::uint16_t* lo = keptLo ? keptLo + y * width : nullptr;
      std::uint16_t* hi = keptHi ? keptHi + y * width : nullptr;
      const int iy = y - g.padTop;
      if (iy < 0 || iy >= g.height || inside == 0) {
        for (std::int64_t x = 0; x < width; ++x) pairRow[x] = 0u;
        zeroOutside(lo, 0, 0, width);
        zeroOutside(hi, 0, 0, width);
        continue;
      }
      const float* srcLo = image + c * inPlane + static_cast<std::int64_t>(iy) * g.width + (x0 - g.padLeft);
      const float* srcHi = both ? srcLo + inPlane : nullptr;
      // the margins are a column or two: plain loops
      for (std::int64_t x = 0; x < x0; ++x) pairRow[x] = 0u;
      for (std::int64_t x = x0 + inside; x < width; ++x) pairRow[x] = 0u;
      zeroOutside(lo, x0, x0 + inside, width);
      zeroOutside(hi, x0, x0 + inside, width);
      detail::bf16Rows(srcLo, srcHi, inside, pairRow + x0, lo ? lo + x0 : nullptr, hi ? hi + x0 : nullptr);
    }
  }
}

// One sample's gy (pixel-major, gyT) as pairs of a row's adjacent pixels for the filters-as-lanes
// weight gradient: pair q of row oy at out + (oy * ((outW + 1) / 2) + q) * filters, an odd row's
// last pixel with a zero partner.
inline void pixelPairs(const float* gyT, int outH, int outW, int filters, std::uint32_t* out) {
  const int perRow = (outW + 1) / 2;
  for (int oy = 0; oy < outH; ++oy)
    for (int q = 0; q < perRow; ++q) {
      const float* lo = gyT + (oy * outW + 2 * q) * std::int64_t{filters};
      const float* hi = 2 * q + 1 < outW ? lo + filters : nullptr;
      detail::bf16Rows(lo, hi, filters, out + (oy * perRow + q) * std::int64_t{filters}, nullptr, nullptr);
    }
}
#include "core/nn/direct_conv_kernels.inc"
#pragma GCC pop_options
}  // namespace direct_bf16
#endif

namespace direct_portable {
constexpr int kFilterGroup = 8;
constexpr int kWgFilters = 4;
constexpr int kLanes = 16;
struct Vec {
  float v[kLanes];
};
using Mask = int;  // lanes 0 .. n-1
inline Vec load(const float* p, Mask n) {
  Vec r{};
  for (int i = 0; i < n && i < kLanes; ++i) r.v[i] = p[i];
  return r;
}
inline Vec fma(Vec a, Vec b, Vec c) {
  for (int i = 0; i < kLanes; ++i) c.v[i] += a.v[i] * b.v[i];
  return c;
}
inline Vec add(Vec a, Vec b) {
  for (int i = 0; i < kLanes; ++i) a.v[i] += b.v[i];
  return a;
}
inline Vec splat(float x) {
  Vec r;
  for (float& v : r.v) v = x;
  return r;
}
inline Vec zero() { return Vec{}; }
inline void store(float* p, Vec v, Mask n) {
  for (int i = 0; i < n && i < kLanes; ++i) p[i] = v.v[i];
}
inline float sum(Vec v) {
  float s = 0;
  for (float x : v.v) s += x;
  return s;
}
inline Mask maskOf(int n) { return n; }
using direct_scalar::pixelMajor;
#include "core/nn/direct_conv_kernels.inc"
}  // namespace direct_portable

namespace {

// One vector of partial sums per filter and tap, zeroed, on a 64-byte boundary: the kernels
// load them as aligned vectors, and the build's own allocator aligns only for its baseline's
// (32 bytes on x86-64-v3, where AVX-512's aligned loads fault). Per thread, kept.
float* zeroedPartials(const ConvPlan& plan, int filters) {
  thread_local std::vector<float> room;
  const std::size_t n = static_cast<std::size_t>(filters * plan.g.patchSize() * kMostLanes);
  room.resize(n + kMostLanes);
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(room.data()) % (kMostLanes * sizeof(float));
  float* partial = room.data() + (misalign ? (kMostLanes * sizeof(float) - misalign) / sizeof(float) : 0);
  std::fill_n(partial, n, 0.0f);
  return partial;
}

#if ACCELLAB_SIMD_REGIONS
// One sample's bf16 pairs, one layer's weight pairs: per thread, kept.
struct Bf16Room {
  std::vector<std::uint32_t> pairs, weightPairs;
  std::vector<std::uint16_t> gy;
};
Bf16Room& bf16Room() {
  thread_local Bf16Room room;
  return room;
}

#endif

// What the bf16 kernels need of the CPU (its AVX512_BF16 dot products in the GEMM's choice,
// which implies AVX-512BW for 16-bit loads), whatever the limit is now: a limit lowered between
// a forward pass and its backward pass must not strand the backward pass (the caller chose once).
bool bf16KernelsCanRun() {
#if ACCELLAB_SIMD_REGIONS
  return detectedGemmIsa() == GemmIsa::Avx512Bf16;
#else
  return false;
#endif
}

void requireBf16Kernels(const char* what) {
  if (!bf16KernelsCanRun()) throw util::Error(std::string(what) + ": this CPU's bf16 dot products (AVX512_BF16) are not in use");
}

}  // namespace

// Where the GEMM multiplies bf16 with AVX512_BF16 dot products, measured to pay on this CPU
// (GemmIsa::Avx512Bf16). Not on AMX machines: there the dot products were never measured
// against fp32 FMAs (on Intel cores they do not pay), and AMX tiles do not fit these kernels.
bool directConvOnBf16Hardware(util::Precision precision) {
  return precision == util::Precision::BF16 && gemmIsa() == GemmIsa::Avx512Bf16 && bf16KernelsCanRun();
}

namespace {

// The weight gradient on one set of kernels (the Set of a namespace above): filters as lanes where
// they fill whole vectors and the output rows leave lanes idle, summed straight into dW; else the
// row kernels' partial sums.
template <class Set>
void weightGradientOn(const ConvPlan& plan, const float* padded, int samples, const float* gy, int filters,
                      float* dw, bool accumulate) {
  if (!Set::lanesWeightGradient(plan.g, filters)) {
    Set::rowsWeightGradientPass(plan, padded, samples, gy, filters, zeroedPartials(plan, filters), dw,
                                accumulate);
    return;
  }
  if (!accumulate) std::fill_n(dw, filters * plan.g.patchSize(), 0.0f);  // the kernels add into dW
  thread_local std::vector<float> gyT;  // a sample's output gradient, pixel-major
  gyT.resize(static_cast<std::size_t>(filters * plan.g.outPixels()));
  Set::lanesWeightGradientPass(plan, padded, samples, gy, filters, dw, gyT.data());
}

}  // namespace

void directConvForward(const ConvPlan& plan, const float* padded, int samples, const float* weights, int filters,
                       const float* bias, Activation activation, float* y) {
  switch (simdLanes()) {
#if ACCELLAB_SIMD_REGIONS
    case SimdLanes::Avx512:
      return direct_avx512::Set::forwardPass(plan, padded, samples, weights, filters, bias, activation, y);
    case SimdLanes::Avx2:
      return direct_avx2::Set::forwardPass(plan, padded, samples, weights, filters, bias, activation, y);
#endif
    default:
      return direct_portable::Set::forwardPass(plan, padded, samples, weights, filters, bias, activation, y);
  }
}

void directConvWeightGradient(const ConvPlan& plan, const float* padded, int samples, const float* gy,
                              int filters, float* dw, bool accumulate) {
  switch (simdLanes()) {
#if ACCELLAB_SIMD_REGIONS
    case SimdLanes::Avx512:
      return weightGradientOn<direct_avx512::Set>(plan, padded, samples, gy, filters, dw, accumulate);
    case SimdLanes::Avx2:
      return weightGradientOn<direct_avx2::Set>(plan, padded, samples, gy, filters, dw, accumulate);
#endif
    default:
      return weightGradientOn<direct_portable::Set>(plan, padded, samples, gy, filters, dw, accumulate);
  }
}

void directConvForwardBf16(const ConvPlan& plan, const float* images, int samples, const float* weights, int filters,
                           const float* bias, Activation activation, float* y, std::uint16_t* kept) {
  requireBf16Kernels("directConvForwardBf16");
#if ACCELLAB_SIMD_REGIONS
  const ConvGeometry& g = plan.g;
  ConvGeometry halved = g;  // a tap of the pairs' plan is a pair of channels
  halved.channels = (g.channels + 1) / 2;
  const ConvPlan pairs(halved);
  const std::int64_t taps = static_cast<std::int64_t>(g.kernelH) * g.kernelW;
  const std::int64_t size = plan.paddedSize();
  Bf16Room& room = bf16Room();
  room.weightPairs.resize(static_cast<std::size_t>(filters * halved.channels * taps));
  for (int c = 0; c < halved.channels; ++c)
    for (std::int64_t t = 0; t < taps; ++t) {
      const float* lo = weights + filters * (2 * c * taps + t);
      const float* hi = 2 * c + 1 < g.channels ? lo + filters * taps : nullptr;
      detail::toBf16Pairs(lo, hi, filters, room.weightPairs.data() + filters * (c * taps + t));
    }
  room.pairs.resize(static_cast<std::size_t>(pairs.paddedSize()));
  const bool lanes = direct_bf16::forwardTakesFilterLanes(g, filters);
  for (int s = 0; s < samples; ++s) {  // sample by sample: its pairs stay in cache
    direct_bf16::padToBf16(plan, images + s * g.inSize(), room.pairs.data(),
                           kept ? kept + s * size : nullptr);
    float* ys = y + static_cast<std::int64_t>(s) * filters * g.outPixels();
    const std::uint32_t* x = room.pairs.data();
    const std::uint32_t* w = room.weightPairs.data();
    if (lanes)
      direct_bf16::forwardFilterLanes(pairs, x, 1, w, filters, bias, activation, ys);
    else
      direct_bf16::forward(pairs, x, 1, w, filters, bias, activation, ys);
  }
#else
  (void)plan, (void)images, (void)samples, (void)weights, (void)filters, (void)bias, (void)activation, (void)y, (void)kept;
#endif
}

#if ACCELLAB_SIMD_REGIONS
namespace {

// The bf16 weight gradient with filters as lanes (direct_bf16::weightGradTakesFilterLanes): per
// sample, gy pixel-major, then rounded to bf16 as pairs of a row's adjacent pixels.
template <int K>
void weightGradientBf16Lanes(const ConvPlan& plan, const std::uint16_t* kept, int samples, const float* gy,
                             int filters, float* dw) {
  const ConvGeometry& g = plan.g;
  const std::int64_t pixels = g.outPixels(), pw = plan.paddedW;
  const int perRow = (g.outW + 1) / 2;
  thread_local std::vector<float> gyT;
  thread_local std::vector<std::uint32_t> gyP;
  gyT.resize(static_cast<std::size_t>(pixels * filters));
  gyP.resize(static_cast<std::size_t>(g.outH * perRow * filters));
  for (int s = 0; s < samples; ++s) {
    direct_bf16::pixelMajor(gy + s * filters * pixels, pixels, filters, gyT.data());
    direct_bf16::pixelPairs(gyT.data(), g.outH, g.outW, filters, gyP.data());
    const std::uint16_t* xs = kept + s * plan.paddedSize();
    direct_bf16::forEachLanePass<K>(plan, filters, [&]<int Rows>(std::int64_t in, std::int64_t tap, int f0) {
      direct_bf16::weightGradLanesRowsBf16<K, Rows>(xs + in, pw, gyP.data() + f0, filters, g.outH, g.outW,
                                                    dw + tap);
    });
  }
}

}  // namespace
#endif

void directConvWeightGradientBf16(const ConvPlan& plan, const std::uint16_t* kept, int samples, const float* gy,
                                  int filters, float* dw, bool accumulate) {
  requireBf16Kernels("directConvWeightGradientBf16");
#if ACCELLAB_SIMD_REGIONS
  if (direct_bf16::weightGradTakesFilterLanes(plan.g, filters)) {
    if (!accumulate) std::fill_n(dw, filters * plan.g.patchSize(), 0.0f);  // the kernels add into dW
    if (plan.g.kernelH == 3)
      weightGradientBf16Lanes<3>(plan, kept, samples, gy, filters, dw);
    else
      weightGradientBf16Lanes<5>(plan, kept, samples, gy, filters, dw);
    return;
  }
  float* partial = zeroedPartials(plan, filters);
  const std::int64_t outs = filters * plan.g.outPixels();
  Bf16Room& room = bf16Room();
  room.gy.resize(static_cast<std::size_t>(outs));
  for (int s = 0; s < samples; ++s) {
    detail::toBf16(gy + s * outs, outs, room.gy.data());
    direct_bf16::accumulateWeightGradient(plan, kept + s * plan.paddedSize(), 1, room.gy.data(), filters, partial);
  }
  direct_bf16::finishWeightGradient(plan, filters, partial, dw, accumulate);
#else
  (void)plan, (void)kept, (void)samples, (void)gy, (void)filters, (void)dw, (void)accumulate;
#endif
}

}  // namespace core::nn
