#include "core/nn/pooling.h"

#include <algorithm>
#include <limits>

#include "core/nn/bounded_vectors.h"
#include "core/nn/eigen.h"  // <immintrin.h>, GCC 12 warnings silenced
#include "core/nn/simd_regions.h"
#include "core/util/parallel.h"

namespace core::nn {
namespace {

PoolOptions withDefaultStride(PoolOptions o) {
  if (o.strideH == 0) o.strideH = o.poolH;
  if (o.strideW == 0) o.strideW = o.poolW;
  return o;
}

struct PoolWindow {
  int y0, y1, x0, x1;  // clipped to the image
};

inline PoolWindow window(int oy, int ox, const PoolOptions& o, int padTop, int padLeft, int h, int w) {
  const int y = oy * o.strideH - padTop, x = ox * o.strideW - padLeft;
  return {std::max(y, 0), std::min(y + o.poolH, h), std::max(x, 0), std::min(x + o.poolW, w)};
}

#if ACCELLAB_X86_KERNELS
// One output row of a 2 x 2 / 2 max pool from input rows r0 and r1 (index of r0[0]: i0), 16
// outputs at a time: de-interleaves even/odd columns of both rows. Loads are whole where they end
// before `end` (the input's last float + 1) and stores where they end before `storable` floats
// from yrow (the sample's end): what they write past the row the caller writes again later, as it
// writes the sample in order (bounded_vectors.h; the one masked load of a 28-float row's second
// half had taken half of this function's time).
ACCELLAB_TARGET("avx512f")
void maxPool2x2RowAvx512(const float* r0, const float* r1, int inW, std::int32_t i0, int outW, float* yrow,
                        std::int32_t* arow, const float* end, std::int64_t storable) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __m512i lane2 = _mm512_slli_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), 1);
  for (int ox = 0; ox < outW; ox += 16) {
    const int n = std::min(16, outW - ox);
    const float* p0 = r0 + 2 * ox;
    const float* p1 = r1 + 2 * ox;
    const __m512 a0 = loadBounded(p0, end, 2 * n), a1 = loadBounded(p0 + 16, end, 2 * n - 16);
    const __m512 b0 = loadBounded(p1, end, 2 * n), b1 = loadBounded(p1 + 16, end, 2 * n - 16);
    const __m512 a = _mm512_permutex2var_ps(a0, even, a1), b = _mm512_permutex2var_ps(a0, odd, a1);
    const __m512 c = _mm512_permutex2var_ps(b0, even, b1), d = _mm512_permutex2var_ps(b0, odd, b1);
    const __mmask16 ab = _mm512_cmp_ps_mask(b, a, _CMP_GT_OQ), cd = _mm512_cmp_ps_mask(d, c, _CMP_GT_OQ);
    const __m512 m1 = _mm512_mask_blend_ps(ab, a, b), m2 = _mm512_mask_blend_ps(cd, c, d);
    const __mmask16 second = _mm512_cmp_ps_mask(m2, m1, _CMP_GT_OQ);
    const __m512i col = _mm512_add_epi32(_mm512_set1_epi32(i0 + 2 * ox), lane2);
    const __m512i j1 = _mm512_mask_add_epi32(col, ab, col, _mm512_set1_epi32(1));
    const __m512i col2 = _mm512_add_epi32(col, _mm512_set1_epi32(inW));
    const __m512i j2 = _mm512_mask_add_epi32(col2, cd, col2, _mm512_set1_epi32(1));
    const __m512 best = _mm512_mask_blend_ps(second, m1, m2);
    const __m512i at = _mm512_mask_blend_epi32(second, j1, j2);
    storeBounded(yrow + ox, yrow + storable, n, best);
    storeBounded(arow + ox, arow + storable, n, at);
  }
}

// The activation gradient dy f'(y) of 16 values: activationGradientAt's formulas.
ACCELLAB_TARGET("avx512f")
inline __m512 activationGradient16(Activation a, __m512 y, __m512 dy) {
  const __m512 one = _mm512_set1_ps(1.0f);
  switch (a) {
    case Activation::ReLU: return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(y, _mm512_setzero_ps(), _CMP_GT_OQ), dy);
    case Activation::ELU: return _mm512_mul_ps(dy, _mm512_min_ps(one, _mm512_add_ps(y, one)));  // std::min(y + 1, 1)
    // One fma, as GCC contracts activationGradientAt's 1 - y * y where the build has FMA.
    case Activation::Tanh: return _mm512_mul_ps(dy, _mm512_fnmadd_ps(y, y, one));
    case Activation::Sigmoid: return _mm512_mul_ps(_mm512_mul_ps(dy, y), _mm512_sub_ps(one, y));
    case Activation::Linear: break;
  }
  return dy;
}

// The gradient of one window row of a 2 x 2 / 2 max pool: writes the input rows d0 and d0 + inW
// over the windows' 2 * outW columns, each window's gradient dy f'(y) where its argmax (a sample
// index, arg[ox]; d0's first float at i0) points and 0 elsewhere, 16 windows a vector. y, dy
// and arg are read in whole vectors where `readable` values allow (bounded_vectors.h).
//
// A masked store that crosses a cache line stalls as a masked load does (half of this
// function's time at first), so a store runs whole where it ends before `limit` (the sample's
// end): what it writes past the row is written again later by this same call or the caller.
// Every float of the sample is written, and a store only spills forward, onto floats whose own
// write comes later: each block of 16 windows writes its part of row 0, then of row 1; the
// caller's exact fills (an odd width's last column, the rows below the last window row) come
// after, then the next window row and channel. A store that would pass `limit` is masked: the
// next sample may be another thread's.
ACCELLAB_TARGET("avx512f")
void maxPool2x2GradRowAvx512(Activation act, const float* y, const float* dy, const std::int32_t* arg, std::int64_t readable,
                             std::int32_t i0, int inW, int outW, float* d0, const float* limit) {
  const __m512i lane2 = _mm512_slli_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), 1);
  const __m512i lowHalf = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i highHalf = _mm512_add_epi32(lowHalf, _mm512_set1_epi32(8));
  const __m512i one = _mm512_set1_epi32(1), down = _mm512_set1_epi32(inW),
                downOne = _mm512_set1_epi32(inW + 1);
  float* d1 = d0 + inW;
  for (int ox = 0; ox < outW; ox += 16) {
    const int n = std::min(16, outW - ox);
    const __m512 yv = loadBounded(y + ox, y + readable, n), dyv = loadBounded(dy + ox, dy + readable, n);
    const __m512i av = loadBounded(arg + ox, arg + readable, n);
    const __m512 v = activationGradient16(act, yv, dyv);
    const __m512i rel = _mm512_sub_epi32(av, _mm512_add_epi32(_mm512_set1_epi32(i0 + 2 * ox), lane2));
    const __m512 e0 = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(rel, _mm512_setzero_si512()), v);
    const __m512 o0 = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(rel, one), v);
    const __m512 e1 = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(rel, down), v);
    const __m512 o1 = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(rel, downOne), v);
    // Row 0 may spill into row 1 only where row 1 is still to be written: in the first block
    // (row 1's own stores come next), not onto row 1's earlier blocks.
    const float* end0 = ox == 0 ? limit : d1;
    storeBounded(d0 + 2 * ox, end0, 2 * n, _mm512_permutex2var_ps(e0, lowHalf, o0));
    if (n > 8) storeBounded(d0 + 2 * ox + 16, end0, 2 * n - 16, _mm512_permutex2var_ps(e0, highHalf, o0));
    storeBounded(d1 + 2 * ox, limit, 2 * n, _mm512_permutex2var_ps(e1, lowHalf, o1));
    if (n > 8) storeBounded(d1 + 2 * ox + 16, limit, 2 * n - 16, _mm512_permutex2var_ps(e1, highHalf, o1));
  }
}
#endif

// Whether the AVX-512 row kernels above may run.
bool simdAvx512() { return ACCELLAB_X86_KERNELS && avx512Runs(); }

}  // namespace

// --- MaxPool2D --------------------------------------------------------------------------------

MaxPool2D::MaxPool2D(PoolOptions o, std::string name) : Layer(LayerKind::MaxPool2D, std::move(name)), m_o(withDefaultStride(o)) {
  if (m_o.poolH <= 0 || m_o.poolW <= 0 || m_o.strideH <= 0 || m_o.strideW <= 0) fail("pool size and stride must be positive");
}

void MaxPool2D::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(outShape().size());
  s.forwardFlops = n * m_o.poolH * m_o.poolW;
  s.backwardFlops = n;
  s.savedBytes = 8.0 * n;  // output + argmax index
  out.push_back(s);
}

Shape MaxPool2D::inferShape(Shape in) {
  const WindowAxis y = windowAxis(in.h, m_o.poolH, m_o.strideH, m_o.padding.mode, m_o.padding.h);
  const WindowAxis x = windowAxis(in.w, m_o.poolW, m_o.strideW, m_o.padding.mode, m_o.padding.w);
  m_padTop = y.padBefore;
  m_padLeft = x.padBefore;
  m_fed = false;  // until the layer before says it feeds this one (after building both)
  return {in.c, y.out, x.out};
}

void MaxPool2D::poolSample(const float* xs, const float* end, std::ptrdiff_t s, bool avx512) {
  const Shape in = inShape(), out = outShape();
  const Eigen::Index outRows = out.size();
  float* ys = m_y.data() + s * outRows;
  std::int32_t* as = m_argmax.data() + s * outRows;
  const bool twoByTwo = isTwoByTwo();
  (void)avx512, (void)end;
  for (int c = 0; c < in.c; ++c) {
    const float* xc = xs + static_cast<std::int64_t>(c) * in.h * in.w;
    const std::int32_t base = c * in.h * in.w;
    for (int oy = 0; oy < out.h; ++oy) {
      float* yrow = ys + (c * out.h + oy) * out.w;
      std::int32_t* arow = as + (c * out.h + oy) * out.w;
      int ox = 0;
      if (twoByTwo &&
          2 * oy + 1 < in.h) {  // branch-free over the whole windows (random data defeats branch prediction)
        const float* r0 = xc + 2 * oy * in.w;
        const float* r1 = r0 + in.w;
        const std::int32_t i0 = base + 2 * oy * in.w;
        const int whole = std::min(out.w, in.w / 2);  // 'same' on an odd width: the last window is cut
#if ACCELLAB_X86_KERNELS
        if (avx512) {
          maxPool2x2RowAvx512(r0, r1, in.w, i0, whole, yrow, arow, end, ys + outRows - yrow);
          ox = whole;
        }
#endif
        for (; ox < whole; ++ox) {
          const float a = r0[2 * ox], b = r0[2 * ox + 1], cc = r1[2 * ox], d = r1[2 * ox + 1];
          const bool ab = b > a, cd = d > cc;
          const float m1 = ab ? b : a, m2 = cd ? d : cc;
          const std::int32_t j1 = i0 + 2 * ox + (ab ? 1 : 0), j2 = i0 + in.w + 2 * ox + (cd ? 1 : 0);
          const bool second = m2 > m1;
          yrow[ox] = second ? m2 : m1;
          arow[ox] = second ? j2 : j1;
        }
      }
      for (; ox < out.w; ++ox) {
        const PoolWindow wnd = window(oy, ox, m_o, m_padTop, m_padLeft, in.h, in.w);
        float best = -std::numeric_limits<float>::infinity();
        std::int32_t arg = wnd.y0 * in.w + wnd.x0;
        for (int iy = wnd.y0; iy < wnd.y1; ++iy)
          for (int ix = wnd.x0; ix < wnd.x1; ++ix) {
            const float v = xc[iy * in.w + ix];
            const bool better = v > best;
            best = better ? v : best;
            arg = better ? iy * in.w + ix : arg;
          }
        yrow[ox] = best;
        arow[ox] = base + arg;
      }
    }
  }
}

void MaxPool2D::routeSample(const float* dy, Eigen::Index batch, std::ptrdiff_t s, float* dxs,
                            bool avx512) const {
  const Shape in = inShape(), out = outShape();
  const Eigen::Index outRows = out.size(), inRows = in.size();
  const float* ys = m_y.data() + s * outRows;  // each window's maximum: the input at its argmax
  const float* dys = dy + s * outRows;
  const std::int32_t* as = m_argmax.data() + s * outRows;
  (void)avx512, (void)batch;
  // Windows that do not overlap (2 x 2 / 2, every window whole) clear each window row's two input
  // rows and write its maxima's gradients there while the rows are in cache. Otherwise the whole
  // gradient is cleared, then each output's gradient added to its maximum: two passes over memory
  // (the clearing alone was 4% of a colab-cnn step).
  if (!(isTwoByTwo() && 2 * out.h <= in.h && 2 * out.w <= in.w)) {
    std::fill_n(dxs, inRows, 0.0f);
    withActivationGradient(m_inputActivation, [&](auto grad) {  // grad(y, dy) = dy f'(y)
      for (Eigen::Index i = 0; i < outRows; ++i) dxs[as[i]] += grad(ys[i], dys[i]);
    });
    return;
  }
  for (int c = 0; c < in.c; ++c) {
    float* dxc = dxs + static_cast<std::int64_t>(c) * in.h * in.w;
    for (int oy = 0; oy < out.h; ++oy) {  // the window row's two input rows, written whole
      float* d0 = dxc + 2 * oy * in.w;
      const std::int64_t o = (static_cast<std::int64_t>(c) * out.h + oy) * out.w;
#if ACCELLAB_X86_KERNELS
      if (avx512) {
        maxPool2x2GradRowAvx512(m_inputActivation, ys + o, dys + o, as + o, (batch - s) * outRows - o,
                                static_cast<std::int32_t>(d0 - dxs), in.w, out.w, d0, dxs + inRows);
        std::fill(d0 + 2 * out.w, d0 + in.w, 0.0f);  // an odd width's last column
        std::fill(d0 + in.w + 2 * out.w, d0 + 2 * in.w, 0.0f);
        continue;
      }
#endif
      std::fill_n(d0, 2 * in.w, 0.0f);
      withActivationGradient(m_inputActivation, [&](auto grad) {
        for (int ox = 0; ox < out.w; ++ox) dxs[as[o + ox]] = grad(ys[o + ox], dys[o + ox]);
      });
    }
    std::fill(dxc + 2 * out.h * in.w, dxc + in.h * in.w, 0.0f);
  }
}

void MaxPool2D::sizeOutput(Eigen::Index batch) {
  const Eigen::Index outRows = outShape().size();
  m_y.resize(outRows, batch);
  m_argmax.resize(static_cast<std::size_t>(outRows * batch));
}

void MaxPool2D::poolSamples(const float* x, int n, std::ptrdiff_t s0) {
  const Eigen::Index inRows = inShape().size();
  const bool avx512 = simdAvx512();
  for (int i = 0; i < n; ++i) poolSample(x + i * inRows, x + n * inRows, s0 + i, avx512);
}

void MaxPool2D::routeSamples(const Matrix& dy, std::ptrdiff_t s0, int n, float* dx) const {
  const Eigen::Index inRows = inShape().size();
  const bool avx512 = simdAvx512();
  for (int i = 0; i < n; ++i) routeSample(dy.data(), dy.cols(), s0 + i, dx + i * inRows, avx512);
}

const Matrix& MaxPool2D::forward(const Matrix& x, const PassContext& ctx) {
  if (m_fed) return m_y;  // pooled by the convolution before, as it computed its output
  sizeOutput(x.cols());
  const bool avx512 = simdAvx512();
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()),
                       [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
                         for (std::ptrdiff_t s = b; s < e; ++s)
                           poolSample(x.data() + s * x.rows(), x.data() + x.size(), s, avx512);
                       });
  return m_y;
}

const Matrix& MaxPool2D::backward(const Matrix&, const Matrix& dy, bool needDx, const PassContext& ctx) {
  // Fed: the convolution before routes dy itself, a few samples at a time (routeSamples).
  if (!needDx || m_fed) return m_fed ? dy : m_dx;
  const Eigen::Index inRows = inShape().size(), batch = dy.cols();
  m_dx.resize(inRows, batch);
  const bool avx512 = simdAvx512();
  util::parallelChunks(batch, chunksFor(ctx, inRows * batch, batch),
                       [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
                         for (std::ptrdiff_t s = b; s < e; ++s)
                           routeSample(dy.data(), batch, s, m_dx.data() + s * inRows, avx512);
                       });
  return m_dx;
}

bool MaxPool2D::takePrecedingActivationGradient(Activation a) {
  m_inputActivation = a;
  return true;
}

bool MaxPool2D::isTwoByTwo() const {
  return m_o.poolH == 2 && m_o.poolW == 2 && m_o.strideH == 2 && m_o.strideW == 2 && m_padTop == 0 && m_padLeft == 0;
}

// --- AvgPool2D --------------------------------------------------------------------------------

AvgPool2D::AvgPool2D(PoolOptions o, std::string name) : Layer(LayerKind::AvgPool2D, std::move(name)), m_o(withDefaultStride(o)) {
  if (m_o.poolH <= 0 || m_o.poolW <= 0 || m_o.strideH <= 0 || m_o.strideW <= 0) fail("pool size and stride must be positive");
}

Shape AvgPool2D::inferShape(Shape in) {
  const WindowAxis y = windowAxis(in.h, m_o.poolH, m_o.strideH, m_o.padding.mode, m_o.padding.h);
  const WindowAxis x = windowAxis(in.w, m_o.poolW, m_o.strideW, m_o.padding.mode, m_o.padding.w);
  m_padTop = y.padBefore;
  m_padLeft = x.padBefore;
  return {in.c, y.out, x.out};
}

void AvgPool2D::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(outShape().size());
  s.forwardFlops = n * m_o.poolH * m_o.poolW;
  s.backwardFlops = n * m_o.poolH * m_o.poolW;
  s.savedBytes = 0;  // backward needs no activations
  out.push_back(s);
}

const Matrix& AvgPool2D::forward(const Matrix& x, const PassContext& ctx) {
  const Shape in = inShape(), out = outShape();
  const Eigen::Index outRows = out.size();
  m_y.resize(outRows, x.cols());
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s) {
      for (int c = 0; c < in.c; ++c) {
        const float* xc = x.data() + s * x.rows() + static_cast<std::int64_t>(c) * in.h * in.w;
        float* yc = m_y.data() + s * outRows + static_cast<std::int64_t>(c) * out.h * out.w;
        for (int oy = 0; oy < out.h; ++oy)
          for (int ox = 0; ox < out.w; ++ox) {
            const PoolWindow wnd = window(oy, ox, m_o, m_padTop, m_padLeft, in.h, in.w);
            float sum = 0;
            for (int iy = wnd.y0; iy < wnd.y1; ++iy)
              for (int ix = wnd.x0; ix < wnd.x1; ++ix) sum += xc[iy * in.w + ix];
            yc[oy * out.w + ox] = sum / static_cast<float>((wnd.y1 - wnd.y0) * (wnd.x1 - wnd.x0));
          }
      }
    }
  });
  return m_y;
}

const Matrix& AvgPool2D::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (!needDx) return m_dx;
  const Shape in = inShape(), out = outShape();
  m_dx.resize(x.rows(), x.cols());
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    m_dx.middleCols(b, e - b).setZero();
    for (std::ptrdiff_t s = b; s < e; ++s) {
      for (int c = 0; c < in.c; ++c) {
        float* dxc = m_dx.data() + s * x.rows() + static_cast<std::int64_t>(c) * in.h * in.w;
        const float* dyc = dy.data() + s * dy.rows() + static_cast<std::int64_t>(c) * out.h * out.w;
        for (int oy = 0; oy < out.h; ++oy)
          for (int ox = 0; ox < out.w; ++ox) {
            const PoolWindow wnd = window(oy, ox, m_o, m_padTop, m_padLeft, in.h, in.w);
            const float g = dyc[oy * out.w + ox] / static_cast<float>((wnd.y1 - wnd.y0) * (wnd.x1 - wnd.x0));
            for (int iy = wnd.y0; iy < wnd.y1; ++iy)
              for (int ix = wnd.x0; ix < wnd.x1; ++ix) dxc[iy * in.w + ix] += g;
          }
      }
    }
  });
  return m_dx;
}

// --- GlobalAvgPool ----------------------------------------------------------------------------

GlobalAvgPool::GlobalAvgPool(Over over, std::string name) : Layer(LayerKind::GlobalAvgPool, std::move(name)), m_over(over) {}

Shape GlobalAvgPool::inferShape(Shape in) {
  if (m_over == Over::Steps && in.w != 1) fail("a sequence input must have width 1");
  return {in.c, 1, 1};
}

void GlobalAvgPool::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  s.forwardFlops = static_cast<double>(inShape().size());
  s.backwardFlops = static_cast<double>(inShape().size());
  out.push_back(s);
}

const Matrix& GlobalAvgPool::forward(const Matrix& x, const PassContext& ctx) {
  const Shape in = inShape();
  const Eigen::Index c = in.c, n = in.h * in.w;
  m_y.resize(c, x.cols());
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s) {
      if (m_over == Over::Pixels) {  // rows c*n + p: mean of each n-block
        m_y.col(s) = ConstMatrixMap(x.data() + s * x.rows(), n, c).colwise().mean().transpose();
      } else {  // rows t*c + f: mean over the n steps
        m_y.col(s) = ConstMatrixMap(x.data() + s * x.rows(), c, n).rowwise().mean();
      }
    }
  });
  return m_y;
}

const Matrix& GlobalAvgPool::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (!needDx) return m_dx;
  const Shape in = inShape();
  const Eigen::Index c = in.c, n = in.h * in.w;
  const float inv = 1.0f / static_cast<float>(n);
  m_dx.resize(x.rows(), x.cols());
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s) {
      if (m_over == Over::Pixels) {
        MatrixMap(m_dx.data() + s * x.rows(), n, c).rowwise() = dy.col(s).transpose() * inv;
      } else {
        MatrixMap(m_dx.data() + s * x.rows(), c, n).colwise() = dy.col(s) * inv;
      }
    }
  });
  return m_dx;
}

}  // namespace core::nn
