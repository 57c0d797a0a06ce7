#include "core/nn/pooling.h"

#include <limits>

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

}  // namespace

// --- MaxPool2D --------------------------------------------------------------------------------

MaxPool2D::MaxPool2D(PoolOptions o, std::string name) : Layer(LayerKind::MaxPool2D, std::move(name)), m_o(withDefaultStride(o)) {
  if (m_o.poolH <= 0 || m_o.poolW <= 0 || m_o.strideH <= 0 || m_o.strideW <= 0) fail("pool size and stride must be positive");
}

Shape MaxPool2D::inferShape(Shape in) {
  const WindowAxis y = windowAxis(in.h, m_o.poolH, m_o.strideH, m_o.padding.mode, m_o.padding.h);
  const WindowAxis x = windowAxis(in.w, m_o.poolW, m_o.strideW, m_o.padding.mode, m_o.padding.w);
  m_padTop = y.padBefore;
  m_padLeft = x.padBefore;
  return {in.c, y.out, x.out};
}

void MaxPool2D::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(outShape().size());
  s.forwardFlops = n * m_o.poolH * m_o.poolW;
  s.backwardFlops = n;
  s.savedBytes = 8.0 * n;  // output + argmax index
  out.push_back(s);
}

const Matrix& MaxPool2D::forward(const Matrix& x, const PassContext& ctx) {
  const Shape in = inShape(), out = outShape();
  const Eigen::Index batch = x.cols(), outRows = out.size();
  m_y.resize(outRows, batch);
  m_argmax.resize(static_cast<std::size_t>(outRows * batch));
  util::parallelChunks(batch, chunksFor(ctx, x.size(), batch), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s) {
      const float* xs = x.data() + s * x.rows();
      float* ys = m_y.data() + s * outRows;
      std::int32_t* as = m_argmax.data() + s * outRows;
      const bool fast = m_o.poolH == 2 && m_o.poolW == 2 && m_o.strideH == 2 && m_o.strideW == 2 && m_padTop == 0 &&
                        m_padLeft == 0;
      for (int c = 0; c < in.c; ++c) {
        const float* xc = xs + static_cast<std::int64_t>(c) * in.h * in.w;
        const std::int32_t base = c * in.h * in.w;
        for (int oy = 0; oy < out.h; ++oy) {
          for (int ox = 0; ox < out.w; ++ox) {
            float best;
            std::int32_t arg;
            if (fast) {
              const int i0 = 2 * oy * in.w + 2 * ox, i1 = i0 + in.w;
              arg = i0;
              best = xc[i0];
              if (xc[i0 + 1] > best) best = xc[arg = i0 + 1];
              if (xc[i1] > best) best = xc[arg = i1];
              if (xc[i1 + 1] > best) best = xc[arg = i1 + 1];
            } else {
              const PoolWindow wnd = window(oy, ox, m_o, m_padTop, m_padLeft, in.h, in.w);
              best = -std::numeric_limits<float>::infinity();
              arg = wnd.y0 * in.w + wnd.x0;
              for (int iy = wnd.y0; iy < wnd.y1; ++iy)
                for (int ix = wnd.x0; ix < wnd.x1; ++ix)
                  if (xc[iy * in.w + ix] > best) best = xc[arg = iy * in.w + ix];
            }
            ys[(c * out.h + oy) * out.w + ox] = best;
            as[(c * out.h + oy) * out.w + ox] = base + arg;
          }
        }
      }
    }
  });
  return m_y;
}

const Matrix& MaxPool2D::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (!needDx) return m_dx;
  const Eigen::Index outRows = dy.rows(), inRows = x.rows();
  m_dx.resize(inRows, x.cols());
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    m_dx.middleCols(b, e - b).setZero();
    for (std::ptrdiff_t s = b; s < e; ++s) {
      float* dxs = m_dx.data() + s * inRows;
      const float* dys = dy.data() + s * outRows;
      const std::int32_t* as = m_argmax.data() + s * outRows;
      for (Eigen::Index i = 0; i < outRows; ++i) dxs[as[i]] += dys[i];
    }
  });
  return m_dx;
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
