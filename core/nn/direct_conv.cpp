#include "core/nn/direct_conv.h"

#include <algorithm>
#include <vector>

#include "core/nn/eigen.h"  // <immintrin.h>, GCC 12 warnings silenced

namespace core::nn {
namespace {
constexpr int kLanes = 16;
constexpr int kFilterGroup = 8;  // filters sharing each input load (forward)
constexpr int kWgFilters = 4;    // weight gradient: 4 filters x 4 taps of accumulators
constexpr int kWgTaps = 4;

#if defined(__AVX512F__)
using Vec = __m512;
inline Vec load(const float* p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec splat(float v) { return _mm512_set1_ps(v); }
inline Vec zero() { return _mm512_setzero_ps(); }
inline void store(float* p, Vec v, __mmask16 m) { _mm512_mask_storeu_ps(p, m, v); }
inline float sum(Vec v) { return _mm512_reduce_add_ps(v); }
inline __mmask16 maskOf(int n) { return n >= kLanes ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u); }
#else
struct Vec {
  float v[kLanes];
};
using __mmask16 = int;
inline Vec load(const float* p, int n) {
  Vec r{};
  for (int i = 0; i < n && i < kLanes; ++i) r.v[i] = p[i];
  return r;
}
inline Vec fma(Vec a, Vec b, Vec c) {
  for (int i = 0; i < kLanes; ++i) c.v[i] += a.v[i] * b.v[i];
  return c;
}
inline Vec splat(float x) {
  Vec r;
  std::fill(r.v, r.v + kLanes, x);
  return r;
}
inline Vec zero() { return Vec{}; }
inline void store(float* p, Vec v, int n) {
  for (int i = 0; i < n && i < kLanes; ++i) p[i] = v.v[i];
}
inline float sum(Vec v) {
  float s = 0;
  for (float x : v.v) s += x;
  return s;
}
inline int maskOf(int n) { return n; }
#endif

}  // namespace

namespace {

// One row segment (up to 16 pixels) of NF filters: accumulators stay in registers. With few
// filters the taps are split over P partial sums so consecutive FMAs do not wait on each
// other (an FMA's latency is four of its issue slots).
template <int NF>
inline void forwardRow(const float* row, const std::int32_t* tapOffsets, std::int64_t taps, const float* weights, int filters,
                       int f0, __mmask16 m, const float* bias, float* out, std::int64_t pixels) {
  constexpr int P = NF >= 4 ? 1 : (NF == 1 ? 4 : 2);
  Vec acc[P][NF];
#pragma GCC unroll 4
  for (int q = 0; q < P; ++q)
#pragma GCC unroll 8
    for (int f = 0; f < NF; ++f) acc[q][f] = q == 0 ? splat(bias ? bias[f0 + f] : 0.0f) : zero();
  std::int64_t t = 0;
  for (; t + P <= taps; t += P)
#pragma GCC unroll 4
    for (int q = 0; q < P; ++q) {
      const Vec x = load(row + tapOffsets[t + q], m);
      const float* w = weights + f0 + static_cast<std::int64_t>(filters) * (t + q);
#pragma GCC unroll 8
      for (int f = 0; f < NF; ++f) acc[q][f] = fma(splat(w[f]), x, acc[q][f]);
    }
  for (; t < taps; ++t) {
    const Vec x = load(row + tapOffsets[t], m);
    const float* w = weights + f0 + static_cast<std::int64_t>(filters) * t;
#pragma GCC unroll 8
    for (int f = 0; f < NF; ++f) acc[0][f] = fma(splat(w[f]), x, acc[0][f]);
  }
#pragma GCC unroll 8
  for (int f = 0; f < NF; ++f) {
    Vec total = acc[0][f];
#pragma GCC unroll 4
    for (int q = 1; q < P; ++q) total = fma(splat(1.0f), acc[q][f], total);
    store(out + f * pixels, total, m);
  }
}

using ForwardRowFn = void (*)(const float*, const std::int32_t*, std::int64_t, const float*, int, int, __mmask16, const float*,
                              float*, std::int64_t);
constexpr ForwardRowFn kForwardRow[kFilterGroup + 1] = {nullptr,         forwardRow<1>, forwardRow<2>, forwardRow<3>, forwardRow<4>,
                                                        forwardRow<5>,   forwardRow<6>, forwardRow<7>, forwardRow<8>};

}  // namespace

void directConvForward(const ConvPlan& plan, const float* padded, int samples, const float* weights, int filters,
                       const float* bias, Activation activation, float* y) {
  const ConvGeometry& g = plan.g;
  const std::int64_t taps = g.patchSize(), pixels = g.outPixels(), pw = plan.paddedW;
  const std::int32_t* tapOffsets = plan.tapOffsets.data();
  for (int s = 0; s < samples; ++s) {
    const float* xs = padded + s * plan.paddedSize();
    float* ys = y + static_cast<std::int64_t>(s) * filters * pixels;
    for (int f0 = 0; f0 < filters; f0 += kFilterGroup) {
      const int nf = std::min(kFilterGroup, filters - f0);
      const ForwardRowFn rowFn = kForwardRow[nf];
      for (int oy = 0; oy < g.outH; ++oy)
        for (int ox = 0; ox < g.outW; ox += kLanes)
          rowFn(xs + oy * pw + ox, tapOffsets, taps, weights, filters, f0, maskOf(g.outW - ox), bias,
                ys + f0 * pixels + oy * g.outW + ox, pixels);
      for (int f = 0; f < nf; ++f) applyActivation(activation, ys + (f0 + f) * pixels, pixels);
    }
  }
}

namespace {

// NF filters x NT taps of weight gradient, summed over every sample, row and pixel.
template <int NF, int NT>
void weightGradBlock(const ConvPlan& plan, const float* padded, int samples, const float* gy, int filters, int f0,
                     std::int64_t t0, float* dw, bool accumulate) {
  const ConvGeometry& g = plan.g;
  const std::int64_t pixels = g.outPixels(), pw = plan.paddedW;
  std::int32_t offs[NT];
  for (int t = 0; t < NT; ++t) offs[t] = plan.tapOffsets[static_cast<std::size_t>(t0 + t)];
  Vec acc[NF][NT];
#pragma GCC unroll 4
  for (int f = 0; f < NF; ++f)
#pragma GCC unroll 4
    for (int t = 0; t < NT; ++t) acc[f][t] = zero();
  for (int s = 0; s < samples; ++s) {
    const float* xs = padded + s * plan.paddedSize();
    const float* gs = gy + (static_cast<std::int64_t>(s) * filters + f0) * pixels;
    for (int oy = 0; oy < g.outH; ++oy)
      for (int ox = 0; ox < g.outW; ox += kLanes) {
        const __mmask16 m = maskOf(g.outW - ox);
        const float* grow = gs + oy * g.outW + ox;
        const float* xrow = xs + oy * pw + ox;
        Vec gv[NF], xv[NT];
#pragma GCC unroll 4
        for (int f = 0; f < NF; ++f) gv[f] = load(grow + f * pixels, m);
#pragma GCC unroll 4
        for (int t = 0; t < NT; ++t) xv[t] = load(xrow + offs[t], m);
#pragma GCC unroll 4
        for (int f = 0; f < NF; ++f)
#pragma GCC unroll 4
          for (int t = 0; t < NT; ++t) acc[f][t] = fma(gv[f], xv[t], acc[f][t]);
      }
  }
  for (int f = 0; f < NF; ++f)
    for (int t = 0; t < NT; ++t) {
      float& out = dw[(f0 + f) + static_cast<std::int64_t>(filters) * (t0 + t)];
      out = (accumulate ? out : 0.0f) + sum(acc[f][t]);
    }
}

#if defined(__AVX512F__)
// The full 4 x 4 block with named accumulators: GCC keeps them in registers (the array form
// spills them on every row).
template <>
void weightGradBlock<4, 4>(const ConvPlan& plan, const float* padded, int samples, const float* gy, int filters, int f0,
                           std::int64_t t0, float* dw, bool accumulate) {
  const ConvGeometry& g = plan.g;
  const std::int64_t pixels = g.outPixels(), pw = plan.paddedW;
  const std::int32_t o0 = plan.tapOffsets[static_cast<std::size_t>(t0)], o1 = plan.tapOffsets[static_cast<std::size_t>(t0 + 1)],
                     o2 = plan.tapOffsets[static_cast<std::size_t>(t0 + 2)], o3 = plan.tapOffsets[static_cast<std::size_t>(t0 + 3)];
  __m512 a00 = _mm512_setzero_ps(), a01 = a00, a02 = a00, a03 = a00, a10 = a00, a11 = a00, a12 = a00, a13 = a00;
  __m512 a20 = a00, a21 = a00, a22 = a00, a23 = a00, a30 = a00, a31 = a00, a32 = a00, a33 = a00;
  for (int s = 0; s < samples; ++s) {
    const float* xs = padded + s * plan.paddedSize();
    const float* gs = gy + (static_cast<std::int64_t>(s) * filters + f0) * pixels;
    for (int oy = 0; oy < g.outH; ++oy) {
      const float* grow = gs + oy * g.outW;
      const float* xrow = xs + oy * pw;
      for (int ox = 0; ox < g.outW; ox += kLanes) {
        const __mmask16 m = maskOf(g.outW - ox);
        const __m512 g0 = _mm512_maskz_loadu_ps(m, grow + ox), g1 = _mm512_maskz_loadu_ps(m, grow + pixels + ox);
        const __m512 g2 = _mm512_maskz_loadu_ps(m, grow + 2 * pixels + ox), g3 = _mm512_maskz_loadu_ps(m, grow + 3 * pixels + ox);
        const __m512 x0 = _mm512_maskz_loadu_ps(m, xrow + ox + o0), x1 = _mm512_maskz_loadu_ps(m, xrow + ox + o1);
        const __m512 x2 = _mm512_maskz_loadu_ps(m, xrow + ox + o2), x3 = _mm512_maskz_loadu_ps(m, xrow + ox + o3);
        a00 = _mm512_fmadd_ps(g0, x0, a00); a01 = _mm512_fmadd_ps(g0, x1, a01); a02 = _mm512_fmadd_ps(g0, x2, a02); a03 = _mm512_fmadd_ps(g0, x3, a03);
        a10 = _mm512_fmadd_ps(g1, x0, a10); a11 = _mm512_fmadd_ps(g1, x1, a11); a12 = _mm512_fmadd_ps(g1, x2, a12); a13 = _mm512_fmadd_ps(g1, x3, a13);
        a20 = _mm512_fmadd_ps(g2, x0, a20); a21 = _mm512_fmadd_ps(g2, x1, a21); a22 = _mm512_fmadd_ps(g2, x2, a22); a23 = _mm512_fmadd_ps(g2, x3, a23);
        a30 = _mm512_fmadd_ps(g3, x0, a30); a31 = _mm512_fmadd_ps(g3, x1, a31); a32 = _mm512_fmadd_ps(g3, x2, a32); a33 = _mm512_fmadd_ps(g3, x3, a33);
      }
    }
  }
  const __m512 acc[4][4] = {{a00, a01, a02, a03}, {a10, a11, a12, a13}, {a20, a21, a22, a23}, {a30, a31, a32, a33}};
  for (int f = 0; f < 4; ++f)
    for (int t = 0; t < 4; ++t) {
      float& out = dw[(f0 + f) + static_cast<std::int64_t>(filters) * (t0 + t)];
      out = (accumulate ? out : 0.0f) + _mm512_reduce_add_ps(acc[f][t]);
    }
}
#endif

using WeightGradFn = void (*)(const ConvPlan&, const float*, int, const float*, int, int, std::int64_t, float*, bool);
template <int NF>
constexpr WeightGradFn kWeightGradRow[kWgTaps + 1] = {nullptr, weightGradBlock<NF, 1>, weightGradBlock<NF, 2>,
                                                      weightGradBlock<NF, 3>, weightGradBlock<NF, 4>};
constexpr const WeightGradFn* kWeightGrad[kWgFilters + 1] = {nullptr, kWeightGradRow<1>, kWeightGradRow<2>, kWeightGradRow<3>,
                                                             kWeightGradRow<4>};

}  // namespace

void directConvWeightGradient(const ConvPlan& plan, const float* padded, int samples, const float* gy, int filters,
                              float* dw, bool accumulate) {
  const std::int64_t taps = plan.g.patchSize();
  for (int f0 = 0; f0 < filters; f0 += kWgFilters) {
    const int nf = std::min(kWgFilters, filters - f0);
    for (std::int64_t t0 = 0; t0 < taps; t0 += kWgTaps) {
      const int nt = static_cast<int>(std::min<std::int64_t>(kWgTaps, taps - t0));
      kWeightGrad[nf][nt](plan, padded, samples, gy, filters, f0, t0, dw, accumulate);
    }
  }
}

}  // namespace core::nn
