#include "core/data/batcher.h"

#include <span>

#include "core/util/error.h"

namespace core::data {

using util::Error;

namespace {
constexpr std::uint64_t kShuffleStream = 0x73687566ULL << 32;  // "shuf", plus the epoch
}

Batcher::Batcher(const Dataset& data, int batch, std::uint64_t seed)
    : m_data(data), m_batch(batch), m_seed(seed), m_batchCount(0) {
  if (batch < 1) throw Error("batch size must be at least 1, got " + std::to_string(batch));
  if (data.empty()) throw Error("dataset '" + data.id() + "' has no samples to batch");
  m_batchCount = (data.size() + batch - 1) / batch;
  startEpoch(0);
}

void Batcher::startEpoch(int epoch) {
  m_order = seededPermutation(m_data.size(), m_seed, kShuffleStream + static_cast<std::uint64_t>(epoch));
}

std::int64_t Batcher::batchSamples(std::int64_t b) const {
  if (b < 0 || b >= m_batchCount) throw Error("batch index " + std::to_string(b) + " out of range");
  return std::min<std::int64_t>(m_batch, m_data.size() - b * m_batch);
}

void Batcher::fetch(std::int64_t b, Eigen::MatrixXf& x, std::vector<int>& y) const {
  const std::int64_t n = batchSamples(b);
  m_data.gather(std::span<const std::int64_t>(m_order.data() + b * m_batch, static_cast<std::size_t>(n)), x, y);
}

}  // namespace core::data
