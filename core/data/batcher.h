#pragma once
// Seeded shuffling and batching over a Dataset: each epoch is a fresh permutation that
// depends only on (seed, epoch); batches are consecutive runs of it, the last one partial
// (kept, as PyTorch's DataLoader does by default).
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "core/data/dataset.h"

namespace core::data {

class Batcher {
public:
  // Throws core::util::Error when batch < 1 or the dataset is empty.
  Batcher(const Dataset& data, int batch, std::uint64_t seed);

  // Shuffles for epoch `epoch` (0-based); the same (seed, epoch) gives the same order.
  void startEpoch(int epoch);
  std::int64_t batchCount() const { return m_batchCount; }
  int batchSize() const { return m_batch; }
  // Samples in batch `b` of the current epoch (batch size, or fewer for the last one).
  std::int64_t batchSamples(std::int64_t b) const;
  // Copies batch `b` of the current epoch into x (sampleSize x n) and y.
  void fetch(std::int64_t b, Eigen::MatrixXf& x, std::vector<int>& y) const;
  const std::vector<std::int64_t>& order() const { return m_order; }

private:
  const Dataset& m_data;
  int m_batch;
  std::uint64_t m_seed;
  std::int64_t m_batchCount;
  std::vector<std::int64_t> m_order;
};

}  // namespace core::data
