#include "core/nn/dropout.h"

#include <bit>
#include <cstdint>

#include "core/util/parallel.h"
#include "core/util/numbers.h"

namespace core::nn {
namespace {

inline std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline std::uint32_t hash32(std::uint32_t x) {  // "lowbias32"
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// out = in * mask * scale for one sample; the mask bit of element i is a hash of (key, i).
void applyMask(const float* in, float* out, std::int64_t n, std::uint32_t key, std::uint32_t threshold, float scale) {
  for (std::int64_t i = 0; i < n; ++i) {
    // The index's low 32 bits times the constant (the same word as the 64-bit product's), and
    // the element kept or zeroed by a bit mask: both vectorise on AVX2 (the portable build ran
    // this loop scalar; a select was "control flow" to GCC 12). The same values as before.
    const std::uint32_t u = hash32(key ^ (static_cast<std::uint32_t>(i) * 0x9e3779b9u)) >> 8;
    const std::uint32_t keep = 0u - static_cast<std::uint32_t>(u >= threshold);
    out[i] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(in[i] * scale) & keep);
  }
}

}  // namespace

Dropout::Dropout(float rate, std::string name) : Layer(LayerKind::Dropout, std::move(name)), m_rate(rate) {
  if (!(rate >= 0 && rate < 1)) fail("rate must be in [0, 1), got " + util::shortNumber(rate));
}

void Dropout::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(outShape().size());
  s.forwardFlops = 2 * n;  // mask + scale
  s.backwardFlops = 2 * n;
  out.push_back(s);
}

const Matrix& Dropout::forward(const Matrix& x, const PassContext& ctx) {
  m_lastTraining = ctx.training && m_rate > 0;
  if (!m_lastTraining) return x;
  m_y.resize(x.rows(), x.cols());
  const std::int64_t rows = x.rows();
  const auto threshold = static_cast<std::uint32_t>(static_cast<double>(m_rate) * (1u << 24));
  const float scale = 1.0f / (1.0f - m_rate);
  const std::uint64_t layerKey = splitmix64(ctx.stepSeed ^ splitmix64(static_cast<std::uint64_t>(layerIndex()) + 1));
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s) {
      const auto key = static_cast<std::uint32_t>(splitmix64(layerKey + static_cast<std::uint64_t>(s)));
      applyMask(x.data() + s * rows, m_y.data() + s * rows, rows, key, threshold, scale);
    }
  });
  return m_y;
}

const Matrix& Dropout::backward(const Matrix&, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (!m_lastTraining) return dy;
  if (!needDx) return m_dx;
  m_dx.resize(dy.rows(), dy.cols());
  const std::int64_t rows = dy.rows();
  const auto threshold = static_cast<std::uint32_t>(static_cast<double>(m_rate) * (1u << 24));
  const float scale = 1.0f / (1.0f - m_rate);
  const std::uint64_t layerKey = splitmix64(ctx.stepSeed ^ splitmix64(static_cast<std::uint64_t>(layerIndex()) + 1));
  util::parallelChunks(dy.cols(), chunksFor(ctx, dy.size(), dy.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s) {
      const auto key = static_cast<std::uint32_t>(splitmix64(layerKey + static_cast<std::uint64_t>(s)));
      applyMask(dy.data() + s * rows, m_dx.data() + s * rows, rows, key, threshold, scale);
    }
  });
  return m_dx;
}

}  // namespace core::nn
