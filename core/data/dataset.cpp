#include "core/data/dataset.h"

#include <numeric>

#include "core/util/error.h"
#include "core/util/rng.h"

namespace core::data {

using util::Error;

namespace {
constexpr std::uint64_t kLimitStream = 0x6c696d6974;  // "limit"
__extension__ using Uint128 = unsigned __int128;
}

Dataset::Dataset(std::string id, nn::Shape shape, int classes, Eigen::MatrixXf samples, std::vector<int> labels,
                 int vocabulary)
    : m_id(std::move(id)),
      m_shape(shape),
      m_classes(classes),
      m_vocabulary(vocabulary),
      m_samples(std::move(samples)),
      m_labels(std::move(labels)) {
  if (m_classes < 1) throw Error("dataset '" + m_id + "': class count must be at least 1");
  if (m_samples.rows() != shape.size())
    throw Error("dataset '" + m_id + "': samples have " + std::to_string(m_samples.rows()) +
                " values each but the shape needs " + std::to_string(shape.size()));
  if (m_samples.cols() != static_cast<Eigen::Index>(m_labels.size()))
    throw Error("dataset '" + m_id + "': " + std::to_string(m_samples.cols()) + " samples but " +
                std::to_string(m_labels.size()) + " labels");
  const int labelRange = m_classes == 1 ? 2 : m_classes;
  for (std::size_t i = 0; i < m_labels.size(); ++i)
    if (m_labels[i] < 0 || m_labels[i] >= labelRange)
      throw Error("dataset '" + m_id + "': sample " + std::to_string(i) + " has label " + std::to_string(m_labels[i]) +
                  " outside [0, " + std::to_string(labelRange - 1) + "]");
}

void Dataset::gather(std::span<const std::int64_t> indices, Eigen::MatrixXf& x, std::vector<int>& y) const {
  const auto n = static_cast<Eigen::Index>(indices.size());
  if (x.rows() != m_samples.rows() || x.cols() != n) x.resize(m_samples.rows(), n);
  y.resize(indices.size());
  for (Eigen::Index j = 0; j < n; ++j) {
    const std::int64_t i = indices[static_cast<std::size_t>(j)];
    if (i < 0 || i >= size()) throw Error("dataset '" + m_id + "': sample index " + std::to_string(i) + " out of range");
    x.col(j) = m_samples.col(static_cast<Eigen::Index>(i));
    y[static_cast<std::size_t>(j)] = m_labels[static_cast<std::size_t>(i)];
  }
}

void Dataset::slice(std::int64_t begin, std::int64_t end, Eigen::MatrixXf& x, std::vector<int>& y) const {
  if (begin < 0 || end > size() || begin > end)
    throw Error("dataset '" + m_id + "': slice [" + std::to_string(begin) + ", " + std::to_string(end) +
                ") out of range");
  const auto n = static_cast<Eigen::Index>(end - begin);
  x = m_samples.middleCols(static_cast<Eigen::Index>(begin), n);
  y.assign(m_labels.begin() + begin, m_labels.begin() + end);
}

Dataset Dataset::limited(std::int64_t n, std::uint64_t seed) const {
  if (n <= 0 || n >= size()) return *this;
  const std::vector<std::int64_t> order = seededPermutation(size(), seed, kLimitStream);
  Eigen::MatrixXf x;
  std::vector<int> y;
  gather(std::span<const std::int64_t>(order.data(), static_cast<std::size_t>(n)), x, y);
  return Dataset(m_id, m_shape, m_classes, std::move(x), std::move(y), m_vocabulary);
}

std::vector<std::int64_t> seededPermutation(std::int64_t n, std::uint64_t seed, std::uint64_t stream) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(std::max<std::int64_t>(0, n)));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  util::Rng rng = util::makeRng(seed, stream);
  for (std::int64_t i = n - 1; i > 0; --i) {
    // Lemire's multiply-shift maps a 64-bit draw onto [0, i] without libstdc++'s
    // distribution code, so the permutation is the same with every standard library.
    const auto j = static_cast<std::int64_t>(
        (static_cast<Uint128>(rng()) * static_cast<Uint128>(i + 1)) >> 64);
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

}  // namespace core::data
