#include "core/nn/winograd.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "core/util/error.h"
#include "core/util/parallel.h"

namespace core::nn {
namespace {

constexpr int kLanes = 16;       // tiles transformed together
constexpr int kTileBlock = 64;   // tiles per GEMM block (multiple of kLanes)
constexpr int kMaxAlpha = 6;

// Row-major small dense matrix.
struct Mat {
  int rows = 0, cols = 0;
  std::vector<double> v;
  Mat(int r, int c) : rows(r), cols(c), v(static_cast<std::size_t>(r * c), 0.0) {}
  double& operator()(int i, int j) { return v[static_cast<std::size_t>(i * cols + j)]; }
  double operator()(int i, int j) const { return v[static_cast<std::size_t>(i * cols + j)]; }
  Mat transposed() const {
    Mat t(cols, rows);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) t(j, i) = (*this)(i, j);
    return t;
  }
};

// Evaluation of polynomials with n coefficients at the points, plus the leading coefficient
// (the point at infinity) in the last row.
Mat vandermonde(const std::vector<double>& points, int n) {
  const int alpha = static_cast<int>(points.size()) + 1;
  Mat m(alpha, n);
  for (int j = 0; j + 1 < alpha; ++j)
    for (int k = 0; k < n; ++k) m(j, k) = std::pow(points[static_cast<std::size_t>(j)], k);
  m(alpha - 1, n - 1) = 1.0;
  return m;
}

Mat inverse(Mat a) {
  const int n = a.rows;
  Mat inv(n, n);
  for (int i = 0; i < n; ++i) inv(i, i) = 1.0;
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(a(r, c)) > std::abs(a(p, c))) p = r;
    for (int j = 0; j < n; ++j) {
      std::swap(a(c, j), a(p, j));
      std::swap(inv(c, j), inv(p, j));
    }
    const double d = a(c, c);
    for (int j = 0; j < n; ++j) {
      a(c, j) /= d;
      inv(c, j) /= d;
    }
    for (int r = 0; r < n; ++r) {
      if (r == c || a(r, c) == 0.0) continue;
      const double f = a(r, c);
      for (int j = 0; j < n; ++j) {
        a(r, j) -= f * a(c, j);
        inv(r, j) -= f * inv(c, j);
      }
    }
  }
  return inv;
}

std::vector<float> toFloat(const Mat& m) {
  std::vector<float> f(m.v.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(m.v[i]);
  return f;
}

// The same matrices as compile-time constants (checked against the computed ones in the
// constructor), so the per-tile transforms unroll into register arithmetic.
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

// Per-thread scratch, kept across calls.
struct Scratch {
  std::vector<float> padded, v, m, gyt, gyc, d;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}
template <class T>
T* sized(std::vector<T>& v, std::int64_t n) {
  if (v.size() < static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n));
  return v.data();
}

}  // namespace

struct WinogradConv::Transforms {
  int r = 0, alpha = 0;
  std::vector<float> bt;   // alpha x alpha: input tile transform
  std::vector<float> g;    // alpha x r: kernel transform
  std::vector<float> at;   // 2 x alpha: output transform
  std::vector<float> gw;   // alpha x 2: output-gradient tile transform (weight gradient)
  std::vector<float> atw;  // r x alpha: weight-gradient output transform
};

struct WinogradConv::Direction {
  ConvGeometry g;  // this direction's input geometry
  int outChannels = 0;
  int tilesH = 0, tilesW = 0, paddedH = 0, paddedW = 0;
  std::vector<float> u;  // alpha^2 transformed kernels, each inChannels x outChannels
  std::vector<PackedB> packed;
  std::int64_t tilesPerSample() const { return static_cast<std::int64_t>(tilesH) * tilesW; }
  std::int64_t paddedSize() const { return static_cast<std::int64_t>(g.channels) * paddedH * paddedW; }
};

namespace {

std::shared_ptr<const WinogradConv::Transforms> transformsFor(int r);

}  // namespace

bool WinogradConv::supports(const ConvGeometry& g) {
  return g.strideH == 1 && g.strideW == 1 && g.kernelH == g.kernelW && (g.kernelH == 3 || g.kernelH == 5) &&
         g.padTop <= g.kernelH - 1 && g.padLeft <= g.kernelW - 1;
}

namespace {

// The F(2, r) matrices from Cook-Toom with points 0, 1, -1 (, 2, -2) and infinity:
// correlation y = V_m^T [(V_r g) . (V^-T d)], so A^T = V_2^T, G = V_r, B^T = V^-T.
std::shared_ptr<const WinogradConv::Transforms> transformsFor(int r) {
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<const WinogradConv::Transforms>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(r); it != cache.end()) return it->second;
  const std::vector<double> points = r == 3 ? std::vector<double>{0, 1, -1} : std::vector<double>{0, 1, -1, 2, -2};
  auto t = std::make_shared<WinogradConv::Transforms>();
  t->r = r;
  t->alpha = r + 1;
  t->bt = toFloat(inverse(vandermonde(points, t->alpha)).transposed());
  t->g = toFloat(vandermonde(points, r));
  t->at = toFloat(vandermonde(points, 2).transposed());
  t->gw = toFloat(vandermonde(points, 2));
  t->atw = toFloat(vandermonde(points, r).transposed());
  cache.emplace(r, t);
  return t;
}

inline std::int64_t roundUp16(std::int64_t v) { return (v + kLanes - 1) / kLanes * kLanes; }

// Copies images (samples x channels x h x w) channel-last into the tile grid's zero-padded
// layout: out[((s * paddedH + y) * paddedW + x) * cp + c], cp = channels rounded up to 16.
void padToChannelLast(const ConvGeometry& g, int paddedH, int paddedW, const float* x, int samples, float* out) {
  const std::int64_t cp = roundUp16(g.channels), plane = static_cast<std::int64_t>(paddedH) * paddedW;
  std::fill_n(out, samples * plane * cp, 0.0f);
  for (int s = 0; s < samples; ++s)
    for (int c = 0; c < g.channels; ++c) {
      const float* src = x + s * g.inSize() + static_cast<std::int64_t>(c) * g.height * g.width;
      for (int y = 0; y < g.height; ++y) {
        float* dst = out + ((s * paddedH + y + g.padTop) * static_cast<std::int64_t>(paddedW) + g.padLeft) * cp + c;
        for (int xx = 0; xx < g.width; ++xx) dst[xx * cp] = src[y * g.width + xx];
      }
    }
}

// V: alpha^2 matrices (channels x tiles, leading dimension cp, tile stride `tileStride`)
// for tiles [t0, t0 + n): each tile's alpha x alpha window, 16 channels per vector.
void inputTransform(const WinogradConv::Transforms& tf, const WinogradConv::Direction& d, const float* padded,
                    std::int64_t t0, int n, float* v, std::int64_t matStride) {
  const std::int64_t cp = roundUp16(d.g.channels);
  for (int k = 0; k < n; ++k) {
    const std::int64_t t = t0 + k, s = t / d.tilesPerSample(), q = t % d.tilesPerSample();
    const float* origin =
        padded + ((s * d.paddedH + 2 * (q / d.tilesW)) * static_cast<std::int64_t>(d.paddedW) + 2 * (q % d.tilesW)) * cp;
    for (std::int64_t c0 = 0; c0 < cp; c0 += kLanes) {
      if (tf.r == 3) inputTile<3>(origin + c0, d.paddedW * cp, cp, v + k * cp + c0, matStride);
      else inputTile<5>(origin + c0, d.paddedW * cp, cp, v + k * cp + c0, matStride);
    }
  }
}

template <int R>
bool sameCoefficients(const WinogradConv::Transforms& t) {
  using C = Coefficients<R>;
  constexpr int A = C::kAlpha;
  bool same = true;
  for (int i = 0; i < A; ++i)
    for (int j = 0; j < A; ++j) same = same && std::abs(t.bt[static_cast<std::size_t>(i * A + j)] - C::bt[i][j]) < 1e-6f;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < A; ++j) same = same && t.at[static_cast<std::size_t>(i * A + j)] == C::at[i][j];
  for (int i = 0; i < A; ++i)
    for (int j = 0; j < 2; ++j) same = same && t.gw[static_cast<std::size_t>(i * 2 + j)] == C::gw[i][j];
  return same;
}

void checkCoefficients(const WinogradConv::Transforms& t) {
  if (!(t.r == 3 ? sameCoefficients<3>(t) : sameCoefficients<5>(t)))
    throw util::Error("Winograd convolution: transform constants disagree with the computed matrices");
}

}  // namespace

WinogradConv::WinogradConv(const ConvGeometry& g, int filters) : m_g(g), m_filters(filters) {
  if (!supports(g)) throw util::Error("Winograd convolution: unsupported geometry");
  m_t = transformsFor(g.kernelH);
  checkCoefficients(*m_t);
  auto make = [&](const ConvGeometry& in, int outChannels) {
    auto d = std::make_shared<Direction>();
    d->g = in;
    d->outChannels = outChannels;
    d->tilesH = (in.outH + 1) / 2;
    d->tilesW = (in.outW + 1) / 2;
    d->paddedH = 2 * d->tilesH + in.kernelH - 1;
    d->paddedW = 2 * d->tilesW + in.kernelW - 1;
    d->packed.resize(static_cast<std::size_t>(m_t->alpha * m_t->alpha));
    return d;
  };
  m_forward = make(g, filters);
  ConvGeometry t;
  t.channels = filters;
  t.height = g.outH;
  t.width = g.outW;
  t.kernelH = g.kernelH;
  t.kernelW = g.kernelW;
  t.padTop = g.kernelH - 1 - g.padTop;
  t.padLeft = g.kernelW - 1 - g.padLeft;
  t.outH = g.height;
  t.outW = g.width;
  m_backward = make(t, g.channels);
}

namespace {

// Transformed kernels U (alpha^2 x inC x outC) from kernel(o, i, ky, kx), packed for GEMMs.
// U = G k G^T for one r x r kernel (element (y, x) at k[y * ys + x * xs]), written to
// u[xi * mat] for the alpha^2 positions xi.
template <int R>
inline void kernelTile(const float* k, std::int64_t ys, std::int64_t xs, const float* g, float* u, std::int64_t mat) {
  constexpr int A = R + 1;
  float kk[R][R], t[A][R];
  for (int y = 0; y < R; ++y)
    for (int x = 0; x < R; ++x) kk[y][x] = k[y * ys + x * xs];
  for (int a = 0; a < A; ++a)
    for (int x = 0; x < R; ++x) {
      float acc = 0;
      for (int y = 0; y < R; ++y) acc += g[a * R + y] * kk[y][x];
      t[a][x] = acc;
    }
  for (int a = 0; a < A; ++a)
    for (int b = 0; b < A; ++b) {
      float acc = 0;
      for (int x = 0; x < R; ++x) acc += t[a][x] * g[b * R + x];
      u[(a * A + b) * mat] = acc;
    }
}

// Transformed kernels U (alpha^2 matrices inC x outC) from the layer's weights, packed for the
// GEMMs. `kernelAt(o, i)` returns (pointer, row stride, column stride) of kernel (o, i).
template <class KernelAt>
void prepareKernels(const WinogradConv::Transforms& tf, WinogradConv::Direction& d, KernelAt&& kernelAt,
                    util::Precision precision) {
  const int alpha = tf.alpha, inC = d.g.channels, outC = d.outChannels;
  const std::int64_t mat = static_cast<std::int64_t>(inC) * outC;
  d.u.resize(static_cast<std::size_t>(alpha * alpha * mat));
  util::parallelFor(outC, 8, [&](std::ptrdiff_t o0, std::ptrdiff_t o1) {
    for (std::ptrdiff_t o = o0; o < o1; ++o)
      for (int i = 0; i < inC; ++i) {
        std::int64_t ys, xs;
        const float* k = kernelAt(static_cast<int>(o), i, ys, xs);
        float* u = d.u.data() + i + static_cast<std::int64_t>(inC) * o;
        if (tf.r == 3) kernelTile<3>(k, ys, xs, tf.g.data(), u, mat);
        else kernelTile<5>(k, ys, xs, tf.g.data(), u, mat);
      }
  });
  util::parallelFor(alpha * alpha, 1, [&](std::ptrdiff_t x0, std::ptrdiff_t x1) {
    for (std::ptrdiff_t x = x0; x < x1; ++x) {
      const GemmOperand op{d.u.data() + x * mat, inC, Transpose::No};
      d.packed[static_cast<std::size_t>(x)].pack(gemmB(op), inC, outC, precision);
    }
  });
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

// The convolution of one direction: input transform, alpha^2 GEMMs, output transform.
void runConv(const WinogradConv::Transforms& tf, const WinogradConv::Direction& d, const float* x, int samples,
             const float* bias, Activation activation, float* y, util::Precision precision) {
  const int alpha = tf.alpha, inC = d.g.channels, outC = d.outChannels;
  const int outH = d.g.outH, outW = d.g.outW;
  const std::int64_t outPlane = static_cast<std::int64_t>(outH) * outW, cp = roundUp16(inC);
  Scratch& sc = scratch();
  float* padded = sized(sc.padded, samples * static_cast<std::int64_t>(d.paddedH) * d.paddedW * cp);
  padToChannelLast(d.g, d.paddedH, d.paddedW, x, samples, padded);
  const std::int64_t tiles = samples * d.tilesPerSample();
  const std::int64_t vStride = kTileBlock * cp, mStride = static_cast<std::int64_t>(kTileBlock) * outC;
  float* v = sized(sc.v, alpha * alpha * vStride);
  float* m = sized(sc.m, alpha * alpha * mStride);
  float res[4 * kLanes];
  for (std::int64_t t0 = 0; t0 < tiles; t0 += kTileBlock) {
    const int n = static_cast<int>(std::min<std::int64_t>(kTileBlock, tiles - t0));
    inputTransform(tf, d, padded, t0, n, v, vStride);
    for (int xi = 0; xi < alpha * alpha; ++xi) {  // M_x (tiles x outC) = V_x^T (tiles x inC) * U_x
      GemmC c;
      c.data = m + xi * mStride;
      c.ld = kTileBlock;
      const GemmOperand a{v + xi * vStride, cp, Transpose::Yes};
      gemm(n, outC, inC, gemmA(a), d.packed[static_cast<std::size_t>(xi)], c, precision);
    }
    // Output transform, 16 tiles per vector.
    for (int l0 = 0; l0 < n; l0 += kLanes) {
      const int lanes = std::min(kLanes, n - l0);
      std::int64_t first[kLanes];
      int oyOf[kLanes], oxOf[kLanes];
      for (int s = 0; s < lanes; ++s) {
        const std::int64_t t = t0 + l0 + s, smp = t / d.tilesPerSample(), q = t % d.tilesPerSample();
        oyOf[s] = static_cast<int>(2 * (q / d.tilesW));
        oxOf[s] = static_cast<int>(2 * (q % d.tilesW));
        first[s] = smp * outC * outPlane + static_cast<std::int64_t>(oyOf[s]) * outW + oxOf[s];
      }
      for (int o = 0; o < outC; ++o) {
        // Lanes past `lanes` read the block's spare rows: computed, never stored.
        const float* src = m + static_cast<std::int64_t>(o) * kTileBlock + l0;
        if (tf.r == 3) outputTile<3>(src, mStride, res);
        else outputTile<5>(src, mStride, res);
        const float b = bias ? bias[o] : 0.0f;
        for (int s = 0; s < lanes; ++s) {
          float* dst = y + first[s] + o * outPlane;
          const bool right = oxOf[s] + 1 < outW, down = oyOf[s] + 1 < outH;
          dst[0] = res[s] + b;
          if (right) dst[1] = res[kLanes + s] + b;
          if (down) dst[outW] = res[2 * kLanes + s] + b;
          if (right && down) dst[outW + 1] = res[3 * kLanes + s] + b;
        }
      }
    }
  }
  applyActivation(activation, y, samples * outC * outPlane);
}

}  // namespace

void WinogradConv::prepareForward(const float* w, util::Precision precision) {
  const std::int64_t f = m_filters, r = m_g.kernelH;
  // Kernel (o, i): w[o + f * ((i * r + y) * r + x)].
  prepareKernels(*m_t, *m_forward,
                 [&](int o, int i, std::int64_t& ys, std::int64_t& xs) {
                   ys = f * r;
                   xs = f;
                   return w + o + f * (i * r * r);
                 },
                 precision);
}

void WinogradConv::prepareInputGradient(const float* w, util::Precision precision) {
  const std::int64_t f = m_filters, r = m_g.kernelH;
  // Output channel o of the transposed convolution is input channel o of the layer; its
  // input channel i is filter i; the kernel is flipped: element (y, x) is w(i, o, r-1-y, r-1-x).
  prepareKernels(*m_t, *m_backward,
                 [&](int o, int i, std::int64_t& ys, std::int64_t& xs) {
                   ys = -f * r;
                   xs = -f;
                   return w + i + f * ((o * r + (r - 1)) * r + (r - 1));
                 },
                 precision);
}

void WinogradConv::forward(const float* x, int samples, const float* bias, Activation activation, float* y,
                           util::Precision precision) const {
  runConv(*m_t, *m_forward, x, samples, bias, activation, y, precision);
}

void WinogradConv::inputGradient(const float* gy, int samples, float* dx, util::Precision precision) const {
  runConv(*m_t, *m_backward, gy, samples, nullptr, Activation::Linear, dx, precision);
}

void WinogradConv::weightGradient(const float* x, const float* gy, int samples, float* dw, bool accumulate,
                                  util::Precision precision) const {
  const Transforms& tf = *m_t;
  const Direction& d = *m_forward;
  const int alpha = tf.alpha, r = tf.r, inC = m_g.channels, outC = m_filters;
  const int outH = m_g.outH, outW = m_g.outW;
  const std::int64_t outPlane = static_cast<std::int64_t>(outH) * outW, mat = static_cast<std::int64_t>(inC) * outC;
  const std::int64_t cp = roundUp16(inC), op = roundUp16(outC);
  Scratch& sc = scratch();
  float* padded = sized(sc.padded, samples * static_cast<std::int64_t>(d.paddedH) * d.paddedW * cp);
  padToChannelLast(d.g, d.paddedH, d.paddedW, x, samples, padded);
  // The output gradient channel-last, one zero row/column past the edge for partial tiles.
  const int gh = 2 * d.tilesH, gw = 2 * d.tilesW;
  float* gyc = sized(sc.gyc, samples * static_cast<std::int64_t>(gh) * gw * op);
  std::fill_n(gyc, samples * static_cast<std::int64_t>(gh) * gw * op, 0.0f);
  for (int s = 0; s < samples; ++s)
    for (int o = 0; o < outC; ++o) {
      const float* src = gy + (static_cast<std::int64_t>(s) * outC + o) * outPlane;
      for (int yy = 0; yy < outH; ++yy)
        for (int xx = 0; xx < outW; ++xx) gyc[((static_cast<std::int64_t>(s) * gh + yy) * gw + xx) * op + o] = src[yy * outW + xx];
    }
  const std::int64_t tiles = samples * d.tilesPerSample();
  const std::int64_t vStride = kTileBlock * cp, gStride = kTileBlock * op;
  float* v = sized(sc.v, alpha * alpha * vStride);
  float* gt = sized(sc.gyt, alpha * alpha * gStride);
  float* acc = sized(sc.d, alpha * alpha * mat);
  for (std::int64_t t0 = 0; t0 < tiles; t0 += kTileBlock) {
    const int n = static_cast<int>(std::min<std::int64_t>(kTileBlock, tiles - t0));
    inputTransform(tf, d, padded, t0, n, v, vStride);
    for (int k = 0; k < n; ++k) {  // output-gradient tiles: 2x2 -> alpha x alpha, 16 filters per vector
      const std::int64_t t = t0 + k, smp = t / d.tilesPerSample(), q = t % d.tilesPerSample();
      const float* origin = gyc + ((smp * gh + 2 * (q / d.tilesW)) * static_cast<std::int64_t>(gw) + 2 * (q % d.tilesW)) * op;
      for (std::int64_t o0 = 0; o0 < op; o0 += kLanes) {
        if (tf.r == 3) gradientTile<3>(origin + o0, gw * op, op, gt + k * op + o0, gStride);
        else gradientTile<5>(origin + o0, gw * op, op, gt + k * op + o0, gStride);
      }
    }
    // acc_x (inC x outC) (+)= V_x (inC x tiles) * GY_x^T (tiles x outC)
    for (int xi = 0; xi < alpha * alpha; ++xi) {
      GemmC c;
      c.data = acc + xi * mat;
      c.ld = inC;
      c.accumulate = t0 > 0;
      const GemmOperand a{v + xi * vStride, cp, Transpose::No}, b{gt + xi * gStride, op, Transpose::Yes};
      gemm(inC, outC, n, gemmA(a), gemmB(b), c, precision);
    }
  }
  // dW(o, i) = ATw * acc(i, o) * ATw^T  (r x r)
  for (int o = 0; o < outC; ++o)
    for (int i = 0; i < inC; ++i) {
      const float* a = acc + i + static_cast<std::int64_t>(inC) * o;
      float* out = dw + o + static_cast<std::int64_t>(outC) * (i * r * r);
      if (r == 3) weightTile<3>(a, mat, tf.atw.data(), out, outC, accumulate);
      else weightTile<5>(a, mat, tf.atw.data(), out, outC, accumulate);
    }
}

}  // namespace core::nn
