#include "core/nn/winograd.h"

#include <algorithm>

#include "core/nn/conv_gemm.h"
#include "core/nn/simd_regions.h"
#include "core/nn/transpose16.h"
#include "core/nn/winograd_tiles.h"
#include "core/util/error.h"
#include "core/util/parallel.h"

namespace core::nn {

using namespace winograd_detail;

namespace {

constexpr int kTileBlock = 32;  // tiles per GEMM block (multiple of kLanes); 32 measured best

// Per-thread scratch, kept across calls (u: the transformed kernels before they are packed, one
// buffer for every layer a thread prepares rather than one a layer and direction).
struct Scratch {
  std::vector<float> v, m, gyt, gyc, d, u;
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

struct WinogradConv::Direction {
  ConvGeometry g;  // this direction's input geometry
  int outChannels = 0;
  int tilesH = 0, tilesW = 0, paddedH = 0, paddedW = 0;
  std::vector<PackedB> packed;
  std::int64_t tilesPerSample() const { return static_cast<std::int64_t>(tilesH) * tilesW; }
  // Floats a sample takes on its tile grid: channel-last, channels rounded up to whole vectors.
  std::int64_t gridSize() const { return static_cast<std::int64_t>((g.channels + kLanes - 1) / kLanes * kLanes) * paddedH * paddedW; }
};

bool WinogradConv::supports(const ConvGeometry& g) {
  return g.strideH == 1 && g.strideW == 1 && g.kernelH == g.kernelW && (g.kernelH == 3 || g.kernelH == 5) &&
         g.padTop <= g.kernelH - 1 && g.padLeft <= g.kernelW - 1;
}

namespace {

inline std::int64_t roundUp16(std::int64_t v) { return (v + kLanes - 1) / kLanes * kLanes; }

// The distance between consecutive transformed matrices: `floats` and one cache line more.
// Every tile transform touches all alpha^2 matrices at once; at a power-of-two distance (32
// tiles x 64 channels = 8 KiB) those 36 lines fall in one L1 set and evict each other.
inline std::int64_t matrixStride(std::int64_t floats) { return floats + kLanes; }

}  // namespace

// The tile transforms, once per instruction set (winograd_lanes.inc, simd_regions.h).
#if ACCELLAB_SIMD_REGIONS
namespace wino_avx512 {
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
using Lane = __m512;
inline Lane lload(const float* p) { return _mm512_loadu_ps(p); }
inline void lstore(float* p, Lane v) { _mm512_storeu_ps(p, v); }
inline Lane lzero() { return _mm512_setzero_ps(); }
inline Lane lmadd(float c, Lane x, Lane acc) {
  if (c == 1.0f) return _mm512_add_ps(acc, x);
  if (c == -1.0f) return _mm512_sub_ps(acc, x);
  return _mm512_fmadd_ps(_mm512_set1_ps(c), x, acc);
}
inline void linterleave(Lane a, Lane b, float* out) {  // out[2i] = a[i], out[2i + 1] = b[i]
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  _mm512_storeu_ps(out, _mm512_permutex2var_ps(a, lo, b));
  _mm512_storeu_ps(out + 16, _mm512_permutex2var_ps(a, hi, b));
}
#include "core/nn/winograd_lanes.inc"
#pragma GCC pop_options
}  // namespace wino_avx512

namespace wino_avx2 {
#pragma GCC push_options
#pragma GCC target("avx2,fma")
struct Lane {  // 16 floats as two AVX registers
  __m256 lo, hi;
};
inline Lane lload(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
inline void lstore(float* p, Lane v) {
  _mm256_storeu_ps(p, v.lo);
  _mm256_storeu_ps(p + 8, v.hi);
}
inline Lane lzero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
inline Lane lmadd(float c, Lane x, Lane acc) {
  if (c == 1.0f) return {_mm256_add_ps(acc.lo, x.lo), _mm256_add_ps(acc.hi, x.hi)};
  if (c == -1.0f) return {_mm256_sub_ps(acc.lo, x.lo), _mm256_sub_ps(acc.hi, x.hi)};
  const __m256 cc = _mm256_set1_ps(c);
  return {_mm256_fmadd_ps(cc, x.lo, acc.lo), _mm256_fmadd_ps(cc, x.hi, acc.hi)};
}
inline void interleave8(__m256 a, __m256 b, float* out) {  // 8 + 8 floats to 16
  const __m256 l = _mm256_unpacklo_ps(a, b), h = _mm256_unpackhi_ps(a, b);
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(l, h, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(l, h, 0x31));
}
inline void linterleave(Lane a, Lane b, float* out) {  // out[2i] = a[i], out[2i + 1] = b[i]
  interleave8(a.lo, b.lo, out);
  interleave8(a.hi, b.hi, out + 16);
}
#include "core/nn/winograd_lanes.inc"
#pragma GCC pop_options
}  // namespace wino_avx2
#endif

namespace wino_portable {
struct Lane {
  float v[kLanes];
};
inline Lane lload(const float* p) {
  Lane r;
  for (int i = 0; i < kLanes; ++i) r.v[i] = p[i];
  return r;
}
inline void lstore(float* p, const Lane& v) {
  for (int i = 0; i < kLanes; ++i) p[i] = v.v[i];
}
inline Lane lzero() { return Lane{}; }
inline Lane lmadd(float c, const Lane& x, Lane acc) {
  for (int i = 0; i < kLanes; ++i) acc.v[i] += c * x.v[i];
  return acc;
}
inline void linterleave(const Lane& a, const Lane& b, float* out) {  // out[2i] = a[i], out[2i + 1] = b[i]
  for (int i = 0; i < kLanes; ++i) {
    out[2 * i] = a.v[i];
    out[2 * i + 1] = b.v[i];
  }
}
#include "core/nn/winograd_lanes.inc"
}  // namespace wino_portable

namespace {

// The tile transforms of the lanes that run now.
struct TileTransforms {
  decltype(&wino_portable::inputTransform) input;
  decltype(&wino_portable::outputTransform) output;
  decltype(&wino_portable::gradientTransform) gradient;
  decltype(&wino_portable::weightTransform) weight;
  decltype(&wino_portable::kernelTransform) kernel;
};

TileTransforms tileTransforms() {
  switch (simdLanes()) {
#if ACCELLAB_SIMD_REGIONS
    case SimdLanes::Avx512: return {wino_avx512::inputTransform, wino_avx512::outputTransform, wino_avx512::gradientTransform,
                                    wino_avx512::weightTransform, wino_avx512::kernelTransform};
    case SimdLanes::Avx2: return {wino_avx2::inputTransform, wino_avx2::outputTransform, wino_avx2::gradientTransform,
                                  wino_avx2::weightTransform, wino_avx2::kernelTransform};
#endif
    default:
      return {wino_portable::inputTransform, wino_portable::outputTransform, wino_portable::gradientTransform,
              wino_portable::weightTransform, wino_portable::kernelTransform};
  }
}

// Copies images (samples x channels x h x w) channel-last into the tile grid's zero-padded
// layout: out[((s * paddedH + y) * paddedW + x) * cp + c], cp = channels rounded up to 16.
// Only the border is zeroed when the channels fill whole vectors; the interior is written in
// 16-channel x 16-pixel blocks transposed in registers (element by element, the strided
// stores were 8% of a ResNet-20 step).
void padToChannelLast(const ConvGeometry& g, int paddedH, int paddedW, const float* x, int samples, float* out) {
  const std::int64_t cp = roundUp16(g.channels), plane = static_cast<std::int64_t>(paddedH) * paddedW;
  const std::int64_t pixels = static_cast<std::int64_t>(g.height) * g.width;
  auto at = [&](int s, std::int64_t y, std::int64_t xx) {  // the padded grid's pixel (y, xx) of sample s
    return out + ((s * static_cast<std::int64_t>(paddedH) + y + g.padTop) * paddedW + g.padLeft + xx) * cp;
  };
  if (cp != g.channels) {
    std::fill_n(out, samples * plane * cp, 0.0f);
  } else {
    for (int s = 0; s < samples; ++s) {
      float* base = out + s * plane * cp;
      const std::int64_t rowFloats = static_cast<std::int64_t>(paddedW) * cp;
      std::fill_n(base, g.padTop * rowFloats, 0.0f);  // rows above
      const std::int64_t below = paddedH - g.padTop - g.height;
      std::fill_n(base + (g.padTop + g.height) * rowFloats, below * rowFloats, 0.0f);
      const std::int64_t right = paddedW - g.padLeft - g.width;
      for (int y = 0; y < g.height; ++y) {
        float* row = base + (g.padTop + y) * rowFloats;
        std::fill_n(row, g.padLeft * cp, 0.0f);
        std::fill_n(row + (g.padLeft + g.width) * cp, right * cp, 0.0f);
      }
    }
  }
  for (int s = 0; s < samples; ++s) {
    const float* image = x + s * g.inSize();
    std::int64_t q0 = 0;
#if ACCELLAB_SIMD_REGIONS
    if (cp == g.channels && simdLanes() == SimdLanes::Avx512) {
      alignas(64) float block[16 * 16];
      for (; q0 + 16 <= pixels; q0 += 16)
        for (int c0 = 0; c0 < g.channels; c0 += 16) {
          transpose16x16(image + static_cast<std::int64_t>(c0) * pixels + q0, pixels, block, 16);
          for (int j = 0; j < 16; ++j) {
            const std::int64_t q = q0 + j;
            std::copy_n(block + j * 16, 16, at(s, q / g.width, q % g.width) + c0);
          }
        }
    }
#endif
    for (std::int64_t q = q0; q < pixels; ++q) {
      float* dst = at(s, q / g.width, q % g.width);
      for (int c = 0; c < g.channels; ++c) dst[c] = image[static_cast<std::int64_t>(c) * pixels + q];
    }
  }
}

}  // namespace

int WinogradConv::tileFor(const ConvGeometry& g) {
  if (g.kernelH != 3) return 2;
  // The element-wise products (alpha^2 a tile, the GEMMs' rows) over the tiles that cover the
  // output: F(4, 3) multiplies 36 / 16 times an output pixel where F(2, 3) does 16 / 4, unless
  // its larger tiles overhang a small output by more than they save.
  auto products = [&](int m) {
    const std::int64_t alpha = m + 2;
    return ((g.outH + m - 1) / m) * static_cast<std::int64_t>((g.outW + m - 1) / m) * alpha * alpha;
  };
  return products(4) <= products(2) ? 4 : 2;
}

WinogradConv::WinogradConv(const ConvGeometry& g, int filters, int tile) : m_g(g), m_filters(filters) {
  if (!supports(g)) throw util::Error("Winograd convolution: unsupported geometry");
  if (tile == 0) tile = tileFor(g);
  m_t = transformsFor(tile, g.kernelH);  // throws for a tile it has no transforms for
  auto make = [&](const ConvGeometry& in, int outChannels) {
    auto d = std::make_shared<Direction>();
    d->g = in;
    d->outChannels = outChannels;
    d->tilesH = (in.outH + tile - 1) / tile;
    d->tilesW = (in.outW + tile - 1) / tile;
    d->paddedH = tile * d->tilesH + in.kernelH - 1;
    d->paddedW = tile * d->tilesW + in.kernelW - 1;
    d->packed.resize(static_cast<std::size_t>(m_t->alpha * m_t->alpha));
    return d;
  };
  m_forward = make(g, filters);
  m_backward = make(transposedGeometry(g, filters), g.channels);
  // The weight gradient reads the forward tiles' m x m blocks of gy from the input gradient's
  // grid, from its padding on: the grid reaches past the last forward tile (its zeros beyond
  // gy). A padding of r - 1 leaves the transposed convolution no padding and a larger forward
  // output than its own, so its grid grows to cover them.
  Direction& back = *m_backward;
  back.paddedH = std::max(back.paddedH, back.g.padTop + tile * m_forward->tilesH);
  back.paddedW = std::max(back.paddedW, back.g.padLeft + tile * m_forward->tilesW);
}

int WinogradConv::tile() const { return m_t->m; }

namespace {

// Transformed kernels U: alpha^2 matrices of `outer` x `lanes` kernels (16 lanes transformed
// together, contiguous in the weights), stored u[xi * mat + lane + lanes * outer], then packed
// as the GEMMs' B (inC x outC; transposed when the lanes are the output channels).
// `kernelAt(outer, lane0, ys, xs)` points at kernel (outer, lane0).
template <class KernelAt>
void prepareKernels(const WinogradConv::Transforms& tf, WinogradConv::Direction& d, int outer, int lanes,
                    bool lanesAreOutputs, KernelAt&& kernelAt, util::Precision precision) {
  const int alpha = tf.alpha, inC = d.g.channels, outC = d.outChannels;
  const std::int64_t mat = static_cast<std::int64_t>(inC) * outC;
  float* const uAll = sized(scratch().u, alpha * alpha * mat);  // the caller's: its workers fill it
  const TileTransforms transforms = tileTransforms();
  util::parallelFor(outer, 4, [&](std::ptrdiff_t q0, std::ptrdiff_t q1) {
    for (std::ptrdiff_t q = q0; q < q1; ++q)
      for (int l0 = 0; l0 < lanes; l0 += kLanes) {
        std::int64_t ys, xs;
        const float* k = kernelAt(static_cast<int>(q), l0, ys, xs);
        float* u = uAll + l0 + static_cast<std::int64_t>(lanes) * q;
        const int n = std::min(kLanes, lanes - l0);
        transforms.kernel(tf, k, ys, xs, n, u, mat);
      }
  });
  util::parallelFor(alpha * alpha, 1, [&](std::ptrdiff_t x0, std::ptrdiff_t x1) {
    for (std::ptrdiff_t x = x0; x < x1; ++x) {
      const GemmOperand op = lanesAreOutputs ? GemmOperand{uAll + x * mat, outC, Transpose::Yes}
                                             : GemmOperand{uAll + x * mat, inC, Transpose::No};
      d.packed[static_cast<std::size_t>(x)].pack(gemmB(op), inC, outC, precision);
    }
  });
}

// The convolution of one direction on its input's tile grid (channel-last, zero-padded): input
// transform, alpha^2 GEMMs, output transform.
void convolvePadded(const WinogradConv::Transforms& tf, const WinogradConv::Direction& d, const float* padded, int samples,
                    const float* bias, Activation activation, float* y, util::Precision precision) {
  const int alpha = tf.alpha, inC = d.g.channels, outC = d.outChannels;
  const std::int64_t outPlane = static_cast<std::int64_t>(d.g.outH) * d.g.outW, cp = roundUp16(inC);
  Scratch& sc = scratch();
  const std::int64_t tiles = samples * d.tilesPerSample();
  const std::int64_t vStride = matrixStride(kTileBlock * cp), mStride = matrixStride(static_cast<std::int64_t>(kTileBlock) * outC);
  float* v = sized(sc.v, alpha * alpha * vStride);
  float* m = sized(sc.m, alpha * alpha * mStride);
  const TileTransforms transforms = tileTransforms();
  for (std::int64_t t0 = 0; t0 < tiles; t0 += kTileBlock) {
    const int n = static_cast<int>(std::min<std::int64_t>(kTileBlock, tiles - t0));
    transforms.input(tf, d, padded, t0, n, v, vStride);
    for (int xi = 0; xi < alpha * alpha; ++xi) {  // M_x (tiles x outC) = V_x^T (tiles x inC) * U_x
      GemmC c;
      c.data = m + xi * mStride;
      c.ld = kTileBlock;
      const GemmOperand a{v + xi * vStride, cp, Transpose::Yes};
      gemm(n, outC, inC, gemmA(a), d.packed[static_cast<std::size_t>(xi)], c, precision);
    }
    transforms.output(tf, d, m, mStride, t0, n, bias, y);
  }
  applyActivation(activation, y, samples * outC * outPlane);
}

}  // namespace

void WinogradConv::prepareForward(const float* w, util::Precision precision) {
  const std::int64_t f = m_filters, r = m_g.kernelH;
  // Kernel (o, i): w[o + f * ((i * r + y) * r + x)]; 16 filters o side by side.
  prepareKernels(*m_t, *m_forward, m_g.channels, m_filters, true,
                 [&](int i, int o0, std::int64_t& ys, std::int64_t& xs) {
                   ys = f * r;
                   xs = f;
                   return w + o0 + f * (i * r * r);
                 },
                 precision);
}

void WinogradConv::prepareInputGradient(const float* w, util::Precision precision) {
  const std::int64_t f = m_filters, r = m_g.kernelH;
  // Output channel o of the transposed convolution is input channel o of the layer; its
  // input channel i is filter i; the kernel is flipped: element (y, x) is w(i, o, r-1-y, r-1-x).
  // 16 filters i side by side.
  prepareKernels(*m_t, *m_backward, m_g.channels, m_filters, false,
                 [&](int o, int i0, std::int64_t& ys, std::int64_t& xs) {
                   ys = -f * r;
                   xs = -f;
                   return w + i0 + f * ((o * r + (r - 1)) * r + (r - 1));
                 },
                 precision);
}

std::int64_t WinogradConv::keptInputSize() const { return m_forward->gridSize(); }

void WinogradConv::forward(const float* x, int samples, const float* bias, Activation activation, float* y, float* kept,
                           util::Precision precision) const {
  const Direction& d = *m_forward;
  padToChannelLast(d.g, d.paddedH, d.paddedW, x, samples, kept);
  convolvePadded(*m_t, d, kept, samples, bias, activation, y, precision);
}

void WinogradConv::backward(const float* kept, const float* gy, int samples, float* dw, bool accumulate, float* dx,
                            util::Precision precision) const {
  const Transforms& tf = *m_t;
  const Direction& d = *m_forward;
  const Direction& back = *m_backward;
  // gy on the input gradient's tile grid: the weight gradient's tiles read it there too, from
  // the grid's padding on (each m x m tile past gy's edge reads the grid's zeros).
  Scratch& sc = scratch();
  float* grid = sized(sc.gyc, samples * back.gridSize());
  padToChannelLast(back.g, back.paddedH, back.paddedW, gy, samples, grid);
  if (dx) convolvePadded(tf, back, grid, samples, nullptr, Activation::Linear, dx, precision);
  const int alpha = tf.alpha, inC = m_g.channels, outC = m_filters;
  const std::int64_t mat = static_cast<std::int64_t>(inC) * outC;
  const std::int64_t cp = roundUp16(inC), op = roundUp16(outC);
  const float* gyc = grid + (static_cast<std::int64_t>(back.g.padTop) * back.paddedW + back.g.padLeft) * op;
  const std::int64_t tiles = samples * d.tilesPerSample();
  const std::int64_t vStride = matrixStride(kTileBlock * cp), gStride = matrixStride(kTileBlock * op);
  float* v = sized(sc.v, alpha * alpha * vStride);
  float* gt = sized(sc.gyt, alpha * alpha * gStride);
  // kLanes more: a partial filter block reads past the last matrix (weightTransform)
  float* acc = sized(sc.d, alpha * alpha * mat + kLanes);
  const TileTransforms transforms = tileTransforms();
  for (std::int64_t t0 = 0; t0 < tiles; t0 += kTileBlock) {
    const int n = static_cast<int>(std::min<std::int64_t>(kTileBlock, tiles - t0));
    transforms.input(tf, d, kept, t0, n, v, vStride);
    transforms.gradient(tf, d, gyc, back.paddedH, back.paddedW, op, t0, n, gt, gStride);
    // acc_x (outC x inC) (+)= GY_x (outC x tiles) * V_x^T (tiles x inC): filters contiguous, as
    // in dW, so the kernel transforms below run 16 filters at a time.
    for (int xi = 0; xi < alpha * alpha; ++xi) {
      GemmC c;
      c.data = acc + xi * mat;
      c.ld = outC;
      c.accumulate = t0 > 0;
      const GemmOperand a{gt + xi * gStride, op, Transpose::No}, b{v + xi * vStride, cp, Transpose::Yes};
      gemm(outC, inC, n, gemmA(a), gemmB(b), c, precision);
    }
  }
  // dW(o, i) = ATw * acc(o, i) * ATw^T  (r x r)
  transforms.weight(tf, acc, mat, inC, outC, dw, accumulate);
}

}  // namespace core::nn
