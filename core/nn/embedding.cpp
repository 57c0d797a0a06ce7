#include "core/nn/embedding.h"

#include <cmath>

#include "core/nn/init.h"
#include "core/util/parallel.h"
#include "core/util/rng.h"

namespace core::nn {

Embedding::Embedding(int vocabulary, int dim, std::string name, bool gptInit)
    : Layer(LayerKind::Embedding, std::move(name)), m_vocabulary(vocabulary), m_dim(dim), m_gptInit(gptInit) {
  if (vocabulary <= 0 || dim <= 0) fail("vocabulary and dimension must be positive");
}

Shape Embedding::inferShape(Shape in) {
  if (in.c != 1 || in.w != 1) fail("expects token ids shaped (1, steps, 1)");
  return {m_dim, in.h, 1};
}

void Embedding::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(outShape().size());
  s.forwardBytes = 4.0 * (static_cast<double>(inShape().size()) + 2 * n);  // ids, table rows read, output
  s.backwardFlops = n;  // scatter-add into the table gradient
  s.savedBytes = 4.0 * static_cast<double>(inShape().size());  // the ids
  out.push_back(s);
}

void Embedding::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_table = s.params;
  m_grad = s.grads;
}

void Embedding::initParams(std::uint64_t seed) {
  util::Rng rng = util::makeRng(seed, static_cast<std::uint64_t>(layerIndex()));
  if (m_gptInit) fillNormal(m_table, paramCount(), kGptInitStddev, rng);
  else fillUniform(m_table, paramCount(), 0.05f, rng);
}

int Embedding::tokenAt(const Matrix& x, Eigen::Index row, Eigen::Index col) const {
  const float v = x(row, col);
  if (!(v >= 0 && v < static_cast<float>(m_vocabulary)) || v != std::floor(v))
    fail("token id " + std::to_string(v) + " at step " + std::to_string(row) + " of sample " + std::to_string(col) +
         " is not in [0, " + std::to_string(m_vocabulary) + ")");
  return static_cast<int>(v);
}

const Matrix& Embedding::forward(const Matrix& x, const PassContext& ctx) {
  const int steps = inShape().h;
  m_y.resize(static_cast<Eigen::Index>(m_dim) * steps, x.cols());
  const ConstMatrixMap table(m_table, m_dim, m_vocabulary);
  util::parallelChunks(x.cols(), chunksFor(ctx, m_y.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (int t = 0; t < steps; ++t) m_y.col(s).segment(static_cast<Eigen::Index>(t) * m_dim, m_dim) = table.col(tokenAt(x, t, s));
  });
  return m_y;
}

const Matrix& Embedding::backward(const Matrix& x, const Matrix& dy, bool, const PassContext& ctx) {
  const int steps = inShape().h;
  MatrixMap grad(m_grad, m_dim, m_vocabulary);
  // Split the embedding dimensions across chunks: each chunk adds every token's rows in
  // sample order, so the sums do not depend on the split.
  util::parallelChunks(m_dim, chunksFor(ctx, grad.size() + dy.size(), m_dim), [&](int, std::ptrdiff_t d0, std::ptrdiff_t d1) {
    grad.middleRows(d0, d1 - d0).setZero();
    for (Eigen::Index s = 0; s < x.cols(); ++s)
      for (int t = 0; t < steps; ++t)
        grad.col(static_cast<int>(x(t, s))).segment(d0, d1 - d0) += dy.col(s).segment(static_cast<Eigen::Index>(t) * m_dim + d0, d1 - d0);
  });
  return m_dx;  // token ids have no gradient
}

}  // namespace core::nn
