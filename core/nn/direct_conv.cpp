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

// One row segment (up to 16 pixels) of NF filters in R adjacent output rows: accumulators
// stay in registers, and each weight broadcast feeds R rows. With few accumulators the taps are
// split over P partial sums so consecutive FMAs do not wait on each other (an FMA's latency is
// four of its issue slots).
template <int NF, int R>
inline void forwardRows(const float* row, std::int64_t pw, std::int64_t outW, const std::int32_t* tapOffsets,
                        std::int64_t taps, const float* weights, int filters, int f0, __mmask16 m, const float* bias,
                        float* out, std::int64_t pixels) {
  constexpr int P = NF * R >= 4 ? 1 : (NF * R == 1 ? 4 : 2);
  Vec acc[P][R][NF];
#pragma GCC unroll 4
  for (int q = 0; q < P; ++q)
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int f = 0; f < NF; ++f) acc[q][r][f] = q == 0 ? splat(bias ? bias[f0 + f] : 0.0f) : zero();
  std::int64_t t = 0;
  for (; t + P <= taps; t += P)
#pragma GCC unroll 4
    for (int q = 0; q < P; ++q) {
      Vec x[R];
#pragma GCC unroll 2
      for (int r = 0; r < R; ++r) x[r] = load(row + r * pw + tapOffsets[t + q], m);
      const float* w = weights + f0 + static_cast<std::int64_t>(filters) * (t + q);
#pragma GCC unroll 8
      for (int f = 0; f < NF; ++f) {
        const Vec wf = splat(w[f]);
#pragma GCC unroll 2
        for (int r = 0; r < R; ++r) acc[q][r][f] = fma(wf, x[r], acc[q][r][f]);
      }
    }
  for (; t < taps; ++t) {
    Vec x[R];
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r) x[r] = load(row + r * pw + tapOffsets[t], m);
    const float* w = weights + f0 + static_cast<std::int64_t>(filters) * t;
#pragma GCC unroll 8
    for (int f = 0; f < NF; ++f) {
      const Vec wf = splat(w[f]);
#pragma GCC unroll 2
      for (int r = 0; r < R; ++r) acc[0][r][f] = fma(wf, x[r], acc[0][r][f]);
    }
  }
#pragma GCC unroll 8
  for (int f = 0; f < NF; ++f)
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r) {
      Vec total = acc[0][r][f];
#pragma GCC unroll 4
      for (int q = 1; q < P; ++q) total = fma(splat(1.0f), acc[q][r][f], total);
      store(out + f * pixels + r * outW, total, m);
    }
}

using ForwardRowFn = void (*)(const float*, std::int64_t, std::int64_t, const std::int32_t*, std::int64_t, const float*, int,
                              int, __mmask16, const float*, float*, std::int64_t);
template <int R>
constexpr ForwardRowFn kForwardRows[kFilterGroup + 1] = {nullptr,           forwardRows<1, R>, forwardRows<2, R>,
                                                         forwardRows<3, R>, forwardRows<4, R>, forwardRows<5, R>,
                                                         forwardRows<6, R>, forwardRows<7, R>, forwardRows<8, R>};

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
      for (int oy = 0; oy < g.outH; oy += 2) {
        const ForwardRowFn rowFn = oy + 1 < g.outH ? kForwardRows<2>[nf] : kForwardRows<1>[nf];  // two rows a pass
        for (int ox = 0; ox < g.outW; ox += kLanes)
          rowFn(xs + oy * pw + ox, pw, g.outW, tapOffsets, taps, weights, filters, f0, maskOf(g.outW - ox), bias,
                ys + f0 * pixels + oy * g.outW + ox, pixels);
      }
      for (int f = 0; f < nf; ++f) applyActivation(activation, ys + (f0 + f) * pixels, pixels);
    }
  }
}

namespace {

// One sample's weight gradient for NF filters x NT taps, added to their partial sums: one vector
// per filter and tap (acc[f * taps + t]), summed across lanes once every sample is in. Sample
// by sample, so a sample's input and gradient stay in cache while every block reads them (block
// by block over all samples, each block streamed the whole sub-batch from memory again).
template <int NF, int NT>
void weightGradBlock(const ConvPlan& plan, const float* xs, const float* gs, std::int64_t taps, int f0, std::int64_t t0,
                     Vec* acc) {
  const ConvGeometry& g = plan.g;
  const std::int64_t pixels = g.outPixels(), pw = plan.paddedW;
  std::int32_t offs[NT];
  for (int t = 0; t < NT; ++t) offs[t] = plan.tapOffsets[static_cast<std::size_t>(t0 + t)];
  Vec a[NF][NT];
#pragma GCC unroll 4
  for (int f = 0; f < NF; ++f)
#pragma GCC unroll 4
    for (int t = 0; t < NT; ++t) a[f][t] = acc[(f0 + f) * taps + t0 + t];
  const float* gf = gs + f0 * pixels;
  for (int oy = 0; oy < g.outH; ++oy)
    for (int ox = 0; ox < g.outW; ox += kLanes) {
      const __mmask16 m = maskOf(g.outW - ox);
      const float* grow = gf + oy * g.outW + ox;
      const float* xrow = xs + oy * pw + ox;
      Vec gv[NF], xv[NT];
#pragma GCC unroll 4
      for (int f = 0; f < NF; ++f) gv[f] = load(grow + f * pixels, m);
#pragma GCC unroll 4
      for (int t = 0; t < NT; ++t) xv[t] = load(xrow + offs[t], m);
#pragma GCC unroll 4
      for (int f = 0; f < NF; ++f)
#pragma GCC unroll 4
        for (int t = 0; t < NT; ++t) a[f][t] = fma(gv[f], xv[t], a[f][t]);
    }
#pragma GCC unroll 4
  for (int f = 0; f < NF; ++f)
#pragma GCC unroll 4
    for (int t = 0; t < NT; ++t) acc[(f0 + f) * taps + t0 + t] = a[f][t];
}

#if defined(__AVX512F__)
// The full 4 x 4 block with named accumulators: GCC keeps them in registers (the array form
// spills them on every row).
template <>
void weightGradBlock<4, 4>(const ConvPlan& plan, const float* xs, const float* gs, std::int64_t taps, int f0,
                           std::int64_t t0, Vec* acc) {
  const ConvGeometry& g = plan.g;
  const std::int64_t pixels = g.outPixels(), pw = plan.paddedW;
  const std::int32_t o0 = plan.tapOffsets[static_cast<std::size_t>(t0)], o1 = plan.tapOffsets[static_cast<std::size_t>(t0 + 1)],
                     o2 = plan.tapOffsets[static_cast<std::size_t>(t0 + 2)], o3 = plan.tapOffsets[static_cast<std::size_t>(t0 + 3)];
  Vec* r0 = acc + f0 * taps + t0;
  Vec* r1 = r0 + taps;
  Vec* r2 = r1 + taps;
  Vec* r3 = r2 + taps;
  __m512 a00 = r0[0], a01 = r0[1], a02 = r0[2], a03 = r0[3], a10 = r1[0], a11 = r1[1], a12 = r1[2], a13 = r1[3];
  __m512 a20 = r2[0], a21 = r2[1], a22 = r2[2], a23 = r2[3], a30 = r3[0], a31 = r3[1], a32 = r3[2], a33 = r3[3];
  const float* gf = gs + f0 * pixels;
  for (int oy = 0; oy < g.outH; ++oy) {
    const float* grow = gf + oy * g.outW;
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
  r0[0] = a00; r0[1] = a01; r0[2] = a02; r0[3] = a03; r1[0] = a10; r1[1] = a11; r1[2] = a12; r1[3] = a13;
  r2[0] = a20; r2[1] = a21; r2[2] = a22; r2[3] = a23; r3[0] = a30; r3[1] = a31; r3[2] = a32; r3[3] = a33;
}
#endif

using WeightGradFn = void (*)(const ConvPlan&, const float*, const float*, std::int64_t, int, std::int64_t, Vec*);
template <int NF>
constexpr WeightGradFn kWeightGradRow[kWgTaps + 1] = {nullptr, weightGradBlock<NF, 1>, weightGradBlock<NF, 2>,
                                                      weightGradBlock<NF, 3>, weightGradBlock<NF, 4>};
constexpr const WeightGradFn* kWeightGrad[kWgFilters + 1] = {nullptr, kWeightGradRow<1>, kWeightGradRow<2>, kWeightGradRow<3>,
                                                             kWeightGradRow<4>};

}  // namespace

void directConvWeightGradient(const ConvPlan& plan, const float* padded, int samples, const float* gy, int filters,
                              float* dw, bool accumulate) {
  const std::int64_t taps = plan.g.patchSize(), pixels = plan.g.outPixels();
  // Per filter and tap, one vector of partial sums (floats, aligned: a vector of __m512 would
  // drop its alignment attribute in the template argument).
  thread_local std::vector<float, Eigen::aligned_allocator<float>> buf;
  buf.assign(static_cast<std::size_t>(filters * taps * kLanes), 0.0f);
  Vec* acc = reinterpret_cast<Vec*>(buf.data());
  for (int s = 0; s < samples; ++s) {
    const float* xs = padded + s * plan.paddedSize();
    const float* gs = gy + static_cast<std::int64_t>(s) * filters * pixels;
    for (int f0 = 0; f0 < filters; f0 += kWgFilters) {
      const int nf = std::min(kWgFilters, filters - f0);
      for (std::int64_t t0 = 0; t0 < taps; t0 += kWgTaps) {
        const int nt = static_cast<int>(std::min<std::int64_t>(kWgTaps, taps - t0));
        kWeightGrad[nf][nt](plan, xs, gs, taps, f0, t0, acc);
      }
    }
  }
  for (int f = 0; f < filters; ++f)
    for (std::int64_t t = 0; t < taps; ++t) {
      float& out = dw[f + static_cast<std::int64_t>(filters) * t];
      out = (accumulate ? out : 0.0f) + sum(acc[static_cast<std::size_t>(f * taps + t)]);
    }
}

}  // namespace core::nn
