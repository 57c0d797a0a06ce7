#pragma once
// The network's head: softmax + cross-entropy for several classes, sigmoid + binary
// cross-entropy for one output. Both are computed from the logits in a numerically stable
// way; the gradient with respect to the logits is (probability - target) / batch.
#include <vector>

#include "core/nn/layer.h"
#include "core/nn/network.h"

namespace core::nn {

class LossHead {
public:
  explicit LossHead(int classes);
  int classes() const { return m_classes; }
  bool binary() const { return m_classes == 1; }
  // Mean loss and correct count over the batch; fills `dLogits` when non-null. Throws
  // util::Error naming the sample when a label is outside [0, classes) (binary: 0 or 1).
  // A language model's logits come as (classes x tokens): one column per token, one label each.
  StepResult evaluate(const Eigen::Ref<const Matrix>& logits, const std::vector<int>& labels, std::size_t labelOffset,
                      Matrix* dLogits, int chunks) const;
  // Probabilities (softmax / sigmoid) of the logits, column by column.
  void probabilities(const Eigen::Ref<const Matrix>& logits, Matrix& out) const;
  LayerStats stats(Shape in) const;

private:
  int m_classes;
};

}  // namespace core::nn
