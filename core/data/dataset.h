#pragma once
// A dataset in memory: one COLUMN per sample (rows = per-sample size, channel-major C,H,W,
// pixels scaled to [0,1]; token ids stored as floats for text), plus one label per sample.
#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/nn/layer_stats.h"

namespace core::data {

class Dataset {
public:
  Dataset() = default;
  // Throws core::util::Error when the sizes disagree or a label is out of range.
  Dataset(std::string id, nn::Shape shape, int classes, Eigen::MatrixXf samples, std::vector<int> labels,
          int vocabulary = 0);

  const std::string& id() const { return m_id; }
  nn::Shape shape() const { return m_shape; }
  int classes() const { return m_classes; }      // 1 = binary (labels 0/1)
  int vocabulary() const { return m_vocabulary; } // text: token id range; 0 for images
  std::int64_t size() const { return static_cast<std::int64_t>(m_labels.size()); }
  bool empty() const { return m_labels.empty(); }
  const Eigen::MatrixXf& samples() const { return m_samples; }
  const std::vector<int>& labels() const { return m_labels; }

  // Copies the samples at `indices` into x (sampleSize x indices.size()) and y, reusing
  // their storage when the size already matches.
  void gather(std::span<const std::int64_t> indices, Eigen::MatrixXf& x, std::vector<int>& y) const;
  // Copies samples [begin, end) in order.
  void slice(std::int64_t begin, std::int64_t end, Eigen::MatrixXf& x, std::vector<int>& y) const;

  // The first `n` samples after a seeded shuffle (a class-balanced subset in expectation);
  // n <= 0 or n >= size() returns the whole dataset unchanged.
  Dataset limited(std::int64_t n, std::uint64_t seed) const;

private:
  std::string m_id;
  nn::Shape m_shape;
  int m_classes = 0;
  int m_vocabulary = 0;
  Eigen::MatrixXf m_samples;
  std::vector<int> m_labels;
};

struct DatasetSplit {
  Dataset train;
  Dataset test;
};

// A seeded permutation of [0, n): Fisher-Yates on core::util::Rng, identical on every
// platform for the same (n, seed, stream).
std::vector<std::int64_t> seededPermutation(std::int64_t n, std::uint64_t seed, std::uint64_t stream);

}  // namespace core::data
