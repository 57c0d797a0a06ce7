#include "core/nn/loss.h"

#include <cmath>

#include "core/util/error.h"
#include "core/util/parallel.h"

namespace core::nn {

LossHead::LossHead(int classes) : m_classes(classes) {
  if (classes <= 0) throw util::Error("network: classes must be positive, got " + std::to_string(classes));
}

StepResult LossHead::evaluate(const Eigen::Ref<const Matrix>& logits, const std::vector<int>& labels,
                              std::size_t labelOffset, Matrix* dLogits, int chunks) const {
  const Eigen::Index batch = logits.cols();
  const Eigen::Index rows = logits.rows();
  const int maxLabel = binary() ? 2 : m_classes;
  for (Eigen::Index s = 0; s < batch; ++s) {
    const int y = labels[labelOffset + static_cast<std::size_t>(s)];
    if (y < 0 || y >= maxLabel)
      throw util::Error("label " + std::to_string(y) + " of sample " + std::to_string(labelOffset + static_cast<std::size_t>(s)) +
                        " is not in [0, " + std::to_string(maxLabel) + ")");
  }
  if (dLogits) dLogits->resize(rows, batch);
  chunks = static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(chunks, batch / 64)));
  std::vector<double> lossPerChunk(static_cast<std::size_t>(chunks), 0.0);
  std::vector<std::int64_t> correctPerChunk(static_cast<std::size_t>(chunks), 0);
  const float invBatch = 1.0f / static_cast<float>(batch);
  util::parallelChunks(batch, chunks, [&](int c, std::ptrdiff_t b, std::ptrdiff_t e) {
    double loss = 0;
    std::int64_t correct = 0;
    for (std::ptrdiff_t s = b; s < e; ++s) {
      const int y = labels[labelOffset + static_cast<std::size_t>(s)];
      const auto z = logits.col(s);
      if (binary()) {
        const float v = z[0];
        // -[y log p + (1-y) log(1-p)] with p = sigmoid(v), stable for large |v|.
        loss += static_cast<double>(std::max(v, 0.0f) - v * static_cast<float>(y) + std::log1p(std::exp(-std::abs(v))));
        if ((v > 0) == (y == 1)) ++correct;
        if (dLogits) (*dLogits)(0, s) = (1.0f / (1.0f + std::exp(-v)) - static_cast<float>(y)) * invBatch;
      } else {
        Eigen::Index arg = 0;
        const float maxV = z.maxCoeff(&arg);
        const double sumExp = (z.array() - maxV).exp().cast<double>().sum();
        loss += std::log(sumExp) - static_cast<double>(z[y] - maxV);
        if (arg == y) ++correct;
        if (dLogits) {
          dLogits->col(s) = ((z.array() - maxV).exp() * static_cast<float>(1.0 / sumExp) * invBatch).matrix();
          (*dLogits)(y, s) -= invBatch;
        }
      }
    }
    lossPerChunk[static_cast<std::size_t>(c)] = loss;
    correctPerChunk[static_cast<std::size_t>(c)] = correct;
  });
  StepResult r;
  double total = 0;
  for (int c = 0; c < chunks; ++c) {
    total += lossPerChunk[static_cast<std::size_t>(c)];
    r.correct += correctPerChunk[static_cast<std::size_t>(c)];
  }
  r.samples = batch;
  r.loss = batch > 0 ? total / static_cast<double>(batch) : 0.0;
  return r;
}

void LossHead::probabilities(const Eigen::Ref<const Matrix>& logits, Matrix& out) const {
  out.resize(logits.rows(), logits.cols());
  if (binary()) {
    out = (1.0f / (1.0f + (-logits.array()).exp())).matrix();
    return;
  }
  for (Eigen::Index s = 0; s < logits.cols(); ++s) {
    const auto e = (logits.col(s).array() - logits.col(s).maxCoeff()).exp();
    out.col(s) = (e / e.sum()).matrix();
  }
}

LayerStats LossHead::stats(Shape in) const {
  LayerStats s;
  s.name = binary() ? "sigmoid_bce" : "softmax_ce";
  s.kind = LayerKind::Softmax;
  s.inShape = in;
  s.outShape = in;
  const double n = static_cast<double>(in.size());
  s.forwardFlops = 5 * n;
  s.backwardFlops = 2 * n;
  s.forwardBytes = 4.0 * 2 * n;
  return s;
}

}  // namespace core::nn
