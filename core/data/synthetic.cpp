#include "core/data/synthetic.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/util/error.h"
#include "core/util/rng.h"

namespace core::data {

using util::Error;

namespace {

constexpr std::uint64_t kPrototypeStream = 0x70726f746fULL;  // "proto"
constexpr std::uint64_t kSampleStreamBase = 0x73616d706c65ULL << 16;  // "sample"

// Uniform in [0, 1) from the top 24 bits of a draw (exactly representable as float).
float uniform01(util::Rng& rng) { return static_cast<float>(rng() >> 40) * (1.0f / 16777216.0f); }

// Standard normal by Box-Muller, written out so a seed gives the same data with every
// standard library (std::normal_distribution's algorithm is implementation-defined).
float standardNormal(util::Rng& rng) {
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
}

std::uint64_t below(util::Rng& rng, std::uint64_t n) { return rng() % n; }

Eigen::MatrixXf imagePrototypes(const SyntheticSpec& s) {
  const nn::Shape sh = s.shape;
  // A coarse grid of about 7x7 cells per channel, each cell a constant level: blobs that
  // survive pooling, unlike independent per-pixel patterns.
  const int cellH = std::max(1, sh.h / 7), cellW = std::max(1, sh.w / 7);
  const int gridH = (sh.h + cellH - 1) / cellH, gridW = (sh.w + cellW - 1) / cellW;
  Eigen::MatrixXf protos(sh.size(), s.classes);
  util::Rng rng = util::makeRng(s.seed, kPrototypeStream);
  std::vector<float> grid(static_cast<std::size_t>(sh.c) * gridH * gridW);
  for (int k = 0; k < s.classes; ++k) {
    for (auto& g : grid) g = uniform01(rng);
    for (int c = 0; c < sh.c; ++c)
      for (int y = 0; y < sh.h; ++y)
        for (int x = 0; x < sh.w; ++x)
          protos((static_cast<Eigen::Index>(c) * sh.h + y) * sh.w + x, k) =
              grid[(static_cast<std::size_t>(c) * gridH + y / cellH) * gridW + x / cellW];
  }
  return protos;
}

}  // namespace

Dataset makeSynthetic(const SyntheticSpec& s) {
  if (s.shape.c < 1 || s.shape.h < 1 || s.shape.w < 1)
    throw Error("synthetic data: shape " + std::to_string(s.shape.c) + "x" + std::to_string(s.shape.h) + "x" +
                std::to_string(s.shape.w) + " must be positive");
  if (s.classes < 1) throw Error("synthetic data: classes must be at least 1, got " + std::to_string(s.classes));
  if (s.vocabulary < 0) throw Error("synthetic data: vocabulary must not be negative");
  if (s.vocabulary > 0 && s.vocabulary < std::max(2, s.classes))
    throw Error("synthetic data: vocabulary " + std::to_string(s.vocabulary) + " is smaller than the class count");
  if (s.count < 0) throw Error("synthetic data: count must not be negative");
  if (!(s.noise >= 0) || !std::isfinite(s.noise)) throw Error("synthetic data: noise must be a finite value >= 0");

  const int labelRange = s.classes == 1 ? 2 : s.classes;
  const Eigen::Index rows = s.shape.size();
  Eigen::MatrixXf x(rows, static_cast<Eigen::Index>(s.count));
  std::vector<int> y(static_cast<std::size_t>(s.count));
  const Eigen::MatrixXf protos = s.vocabulary > 0 ? Eigen::MatrixXf() : imagePrototypes(s);

  for (std::int64_t i = 0; i < s.count; ++i) {
    // One stream per sample: sample i is the same whatever the count.
    util::Rng rng = util::makeRng(s.seed, kSampleStreamBase + (s.sampleStream << 40) + static_cast<std::uint64_t>(i));
    const int label = static_cast<int>(below(rng, static_cast<std::uint64_t>(labelRange)));
    y[static_cast<std::size_t>(i)] = label;
    auto col = x.col(static_cast<Eigen::Index>(i));
    if (s.vocabulary > 0) {
      const auto vocab = static_cast<std::uint64_t>(s.vocabulary);
      const auto groups = static_cast<std::uint64_t>(labelRange);
      const std::uint64_t topicTokens = std::max<std::uint64_t>(1, (vocab - static_cast<std::uint64_t>(label) + groups - 1) / groups);
      for (Eigen::Index r = 0; r < rows; ++r) {
        std::uint64_t token;
        if (rng() & 1) token = static_cast<std::uint64_t>(label) + groups * below(rng, topicTokens);
        else token = below(rng, vocab);
        col(r) = static_cast<float>(std::min(token, vocab - 1));
      }
    } else {
      const auto proto = protos.col(label);
      for (Eigen::Index r = 0; r < rows; ++r)
        col(r) = std::clamp(proto(r) + s.noise * standardNormal(rng), 0.0f, 1.0f);
    }
  }
  return Dataset(s.id, s.shape, s.classes, std::move(x), std::move(y), s.vocabulary);
}

}  // namespace core::data
