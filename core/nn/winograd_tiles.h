#pragma once
// Internal to the Winograd convolution: the F(2, r) matrices and the per-tile transforms.
// A tile transform works on "lanes" of 16 floats (16 channels, or 16 tiles), one AVX-512
// register each, with the coefficients as compile-time constants so zero and +-1 terms fold.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/nn/eigen.h"  // <immintrin.h>, GCC 12 warnings silenced
#include "core/nn/winograd.h"

namespace core::nn {

struct WinogradConv::Transforms {
  int r = 0, alpha = 0;
  std::vector<float> bt;   // alpha x alpha: input tile transform
  std::vector<float> g;    // alpha x r: kernel transform
  std::vector<float> at;   // 2 x alpha: output transform
  std::vector<float> gw;   // alpha x 2: output-gradient tile transform (weight gradient)
  std::vector<float> atw;  // r x alpha: weight-gradient output transform
};

namespace winograd_detail {

constexpr int kLanes = 16;
constexpr int kMaxAlpha = 6;

// The matrices for r = 3 or 5 (Cook-Toom, computed once and cached); throws util::Error if
// they disagree with the compile-time constants below.
std::shared_ptr<const WinogradConv::Transforms> transformsFor(int r);

// The same matrices as compile-time constants, so the per-tile transforms unroll into
// register arithmetic.
template <int R>
struct Coefficients;
template <>
struct Coefficients<3> {
  static constexpr int kAlpha = 4;
  static constexpr float bt[4][4] = {{1, 0, -1, 0}, {0, 0.5f, 0.5f, 0}, {0, -0.5f, 0.5f, 0}, {0, -1, 0, 1}};
  static constexpr float at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, 1}};
  static constexpr float gw[4][2] = {{1, 0}, {1, 1}, {1, -1}, {0, 1}};
};
template <>
struct Coefficients<5> {
  static constexpr int kAlpha = 6;
  static constexpr float bt[6][6] = {{1, 0, -1.25f, 0, 0.25f, 0},
                                     {0, 2.0f / 3, 2.0f / 3, -1.0f / 6, -1.0f / 6, 0},
                                     {0, -2.0f / 3, 2.0f / 3, 1.0f / 6, -1.0f / 6, 0},
                                     {0, -1.0f / 12, -1.0f / 24, 1.0f / 12, 1.0f / 24, 0},
                                     {0, 1.0f / 12, -1.0f / 24, -1.0f / 12, 1.0f / 24, 0},
                                     {0, 4, 0, -5, 0, 1}};
  static constexpr float at[2][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 1}};
  static constexpr float gw[6][2] = {{1, 0}, {1, 1}, {1, -1}, {1, 2}, {1, -2}, {0, 1}};
};

#if defined(__AVX512F__)
using Lane = __m512;
inline Lane lload(const float* p) { return _mm512_loadu_ps(p); }
inline void lstore(float* p, Lane v) { _mm512_storeu_ps(p, v); }
inline Lane lzero() { return _mm512_setzero_ps(); }
inline Lane lmadd(float c, Lane x, Lane acc) {
  if (c == 1.0f) return _mm512_add_ps(acc, x);
  if (c == -1.0f) return _mm512_sub_ps(acc, x);
  return _mm512_fmadd_ps(_mm512_set1_ps(c), x, acc);
}
#else
struct Lane {
  float v[kLanes];
};
inline Lane lload(const float* p) {
  Lane r;
  std::copy_n(p, kLanes, r.v);
  return r;
}
inline void lstore(float* p, const Lane& v) { std::copy_n(v.v, kLanes, p); }
inline Lane lzero() { return Lane{}; }
inline Lane lmadd(float c, const Lane& x, Lane acc) {
  for (int i = 0; i < kLanes; ++i) acc.v[i] += c * x.v[i];
  return acc;
}
#endif

// out_x = (B^T d B)_x for one window: element (a, b) of d at src + a * rowStride + b * colStride.
template <int R>
inline void inputTile(const float* src, std::int64_t rowStride, std::int64_t colStride, float* out, std::int64_t outStride) {
  using C = Coefficients<R>;
  constexpr int A = C::kAlpha;
  Lane t[A][A];
#pragma GCC unroll 6
  for (int b = 0; b < A; ++b) {
    Lane d[A];
#pragma GCC unroll 6
    for (int a = 0; a < A; ++a) d[a] = lload(src + a * rowStride + b * colStride);
#pragma GCC unroll 6
    for (int i = 0; i < A; ++i) {
      Lane acc = lzero();
#pragma GCC unroll 6
      for (int a = 0; a < A; ++a)
        if (C::bt[i][a] != 0.0f) acc = lmadd(C::bt[i][a], d[a], acc);
      t[i][b] = acc;
    }
  }
#pragma GCC unroll 6
  for (int i = 0; i < A; ++i)
#pragma GCC unroll 6
    for (int j = 0; j < A; ++j) {
      Lane acc = lzero();
#pragma GCC unroll 6
      for (int b = 0; b < A; ++b)
        if (C::bt[j][b] != 0.0f) acc = lmadd(C::bt[j][b], t[i][b], acc);
      lstore(out + (i * A + j) * outStride, acc);
    }
}

// res (2 x 2 lanes) = A^T m A, m_x at src + x * stride.
template <int R>
inline void outputTile(const float* src, std::int64_t stride, float* res) {
  using C = Coefficients<R>;
  constexpr int A = C::kAlpha;
  Lane t[2][A];
#pragma GCC unroll 6
  for (int b = 0; b < A; ++b) {
    Lane m[A];
#pragma GCC unroll 6
    for (int a = 0; a < A; ++a) m[a] = lload(src + (a * A + b) * stride);
#pragma GCC unroll 2
    for (int i = 0; i < 2; ++i) {
      Lane acc = lzero();
#pragma GCC unroll 6
      for (int a = 0; a < A; ++a)
        if (C::at[i][a] != 0.0f) acc = lmadd(C::at[i][a], m[a], acc);
      t[i][b] = acc;
    }
  }
#pragma GCC unroll 2
  for (int i = 0; i < 2; ++i)
#pragma GCC unroll 2
    for (int j = 0; j < 2; ++j) {
      Lane acc = lzero();
#pragma GCC unroll 6
      for (int b = 0; b < A; ++b)
        if (C::at[j][b] != 0.0f) acc = lmadd(C::at[j][b], t[i][b], acc);
      lstore(res + (i * 2 + j) * kLanes, acc);
    }
}

// out_x = (Gw g Gw^T)_x for a 2x2 tile g (element (i, j) at src + i * rowStride + j * colStride).
template <int R>
inline void gradientTile(const float* src, std::int64_t rowStride, std::int64_t colStride, float* out, std::int64_t outStride) {
  using C = Coefficients<R>;
  constexpr int A = C::kAlpha;
  const Lane g00 = lload(src), g01 = lload(src + colStride), g10 = lload(src + rowStride), g11 = lload(src + rowStride + colStride);
  Lane t[A][2];
#pragma GCC unroll 6
  for (int a = 0; a < A; ++a) {
    t[a][0] = lmadd(C::gw[a][1], g10, C::gw[a][0] != 0.0f ? lmadd(C::gw[a][0], g00, lzero()) : lzero());
    t[a][1] = lmadd(C::gw[a][1], g11, C::gw[a][0] != 0.0f ? lmadd(C::gw[a][0], g01, lzero()) : lzero());
  }
#pragma GCC unroll 6
  for (int a = 0; a < A; ++a)
#pragma GCC unroll 6
    for (int b = 0; b < A; ++b) {
      Lane acc = C::gw[b][0] != 0.0f ? lmadd(C::gw[b][0], t[a][0], lzero()) : lzero();
      if (C::gw[b][1] != 0.0f) acc = lmadd(C::gw[b][1], t[a][1], acc);
      lstore(out + (a * A + b) * outStride, acc);
    }
}

// U = G k G^T for up to 16 kernels side by side ("lanes": element (y, x) of kernel l at
// k[y * ys + x * xs + l]), written to u[xi * mat + l] for the alpha^2 positions xi.
template <int R>
inline void kernelLanes(const float* k, std::int64_t ys, std::int64_t xs, int lanes, const float* g, float* u,
                        std::int64_t mat) {
  constexpr int A = R + 1;
  float kk[R][R][kLanes], t[A][R][kLanes];
  for (int y = 0; y < R; ++y)
    for (int x = 0; x < R; ++x)
      for (int l = 0; l < kLanes; ++l) kk[y][x][l] = l < lanes ? k[y * ys + x * xs + l] : 0.0f;
  for (int a = 0; a < A; ++a)
    for (int x = 0; x < R; ++x) {
      for (int l = 0; l < kLanes; ++l) t[a][x][l] = 0.0f;
      for (int y = 0; y < R; ++y) {
        const float c = g[a * R + y];
        for (int l = 0; l < kLanes; ++l) t[a][x][l] += c * kk[y][x][l];
      }
    }
  for (int a = 0; a < A; ++a)
    for (int b = 0; b < A; ++b) {
      float acc[kLanes] = {};
      for (int x = 0; x < R; ++x) {
        const float c = g[b * R + x];
        for (int l = 0; l < kLanes; ++l) acc[l] += c * t[a][x][l];
      }
      float* out = u + (a * A + b) * mat;
      for (int l = 0; l < lanes; ++l) out[l] = acc[l];
    }
}

// dW (r x r, element (y, x) at out[(y * r + x) * stride]) (+)= ATw m ATw^T, m_xi at a[xi * mat].
template <int R>
inline void weightTile(const float* a, std::int64_t mat, const float* atw, float* out, std::int64_t stride, bool accumulate) {
  constexpr int A = R + 1;
  float m[A][A], t[R][A];
  for (int i = 0; i < A; ++i)
    for (int j = 0; j < A; ++j) m[i][j] = a[(i * A + j) * mat];
  for (int y = 0; y < R; ++y)
    for (int j = 0; j < A; ++j) {
      float acc = 0;
      for (int i = 0; i < A; ++i) acc += atw[y * A + i] * m[i][j];
      t[y][j] = acc;
    }
  for (int y = 0; y < R; ++y)
    for (int x = 0; x < R; ++x) {
      float acc = 0;
      for (int j = 0; j < A; ++j) acc += t[y][j] * atw[x * A + j];
      float& o = out[(y * R + x) * stride];
      o = (accumulate ? o : 0.0f) + acc;
    }
}

}  // namespace winograd_detail
}  // namespace core::nn
