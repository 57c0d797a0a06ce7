#include "core/nn/shape_layers.h"

#include <cmath>

#include "core/util/parallel.h"

namespace core::nn {

// --- Flatten ----------------------------------------------------------------------------------

Flatten::Flatten(std::string name) : Layer(LayerKind::Flatten, std::move(name)) {}

void Flatten::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  s.forwardBytes = 0;  // a view: the same memory, read as a vector
  s.savedBytes = 0;
  out.push_back(s);
}

const Matrix& Flatten::forward(const Matrix& x, const PassContext&) { return x; }
const Matrix& Flatten::backward(const Matrix&, const Matrix& dy, bool, const PassContext&) { return dy; }

// --- OneHot -----------------------------------------------------------------------------------

OneHot::OneHot(int vocabulary, std::string name) : Layer(LayerKind::Other, std::move(name)), m_vocabulary(vocabulary) {
  if (vocabulary <= 0) fail("vocabulary must be positive, got " + std::to_string(vocabulary));
}

Shape OneHot::inferShape(Shape in) {
  if (in.c != 1 || in.w != 1) fail("expects token ids shaped (1, steps, 1)");
  return {m_vocabulary, in.h, 1};
}

void OneHot::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  s.savedBytes = 0;  // nothing below it needs a gradient
  out.push_back(s);
}

const Matrix& OneHot::forward(const Matrix& x, const PassContext&) {
  const int steps = inShape().h;
  m_y.setZero(static_cast<Eigen::Index>(m_vocabulary) * steps, x.cols());
  for (Eigen::Index s = 0; s < x.cols(); ++s)
    for (int t = 0; t < steps; ++t) {
      const float v = x(t, s);
      if (!(v >= 0 && v < static_cast<float>(m_vocabulary)) || v != std::floor(v))
        fail("token id " + std::to_string(v) + " at step " + std::to_string(t) + " of sample " + std::to_string(s) +
             " is not in [0, " + std::to_string(m_vocabulary) + ")");
      m_y(static_cast<Eigen::Index>(t) * m_vocabulary + static_cast<Eigen::Index>(v), s) = 1.0f;
    }
  return m_y;
}

const Matrix& OneHot::backward(const Matrix&, const Matrix&, bool, const PassContext&) { return m_dx; }

// --- PadShortcut ------------------------------------------------------------------------------

PadShortcut::PadShortcut(int outChannels, std::string name) : Layer(LayerKind::Other, std::move(name)), m_outChannels(outChannels) {}

Shape PadShortcut::inferShape(Shape in) {
  if (m_outChannels < in.c || (m_outChannels - in.c) % 2 != 0)
    fail("cannot pad " + std::to_string(in.c) + " channels evenly to " + std::to_string(m_outChannels));
  return {m_outChannels, (in.h + 1) / 2, (in.w + 1) / 2};
}

void PadShortcut::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  s.forwardBytes = 4.0 * 2 * static_cast<double>(outShape().size());
  s.savedBytes = 0;
  out.push_back(s);
}

const Matrix& PadShortcut::forward(const Matrix& x, const PassContext& ctx) {
  const Shape in = inShape(), out = outShape();
  const int pad = (out.c - in.c) / 2;
  m_y.resize(out.size(), x.cols());
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    m_y.middleCols(b, e - b).setZero();
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (int c = 0; c < in.c; ++c)
        for (int oy = 0; oy < out.h; ++oy)
          for (int ox = 0; ox < out.w; ++ox)
            m_y(((c + pad) * out.h + oy) * out.w + ox, s) = x((c * in.h + 2 * oy) * in.w + 2 * ox, s);
  });
  return m_y;
}

const Matrix& PadShortcut::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (!needDx) return m_dx;
  const Shape in = inShape(), out = outShape();
  const int pad = (out.c - in.c) / 2;
  m_dx.resize(x.rows(), x.cols());
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    m_dx.middleCols(b, e - b).setZero();
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (int c = 0; c < in.c; ++c)
        for (int oy = 0; oy < out.h; ++oy)
          for (int ox = 0; ox < out.w; ++ox)
            m_dx((c * in.h + 2 * oy) * in.w + 2 * ox, s) = dy(((c + pad) * out.h + oy) * out.w + ox, s);
  });
  return m_dx;
}

}  // namespace core::nn
