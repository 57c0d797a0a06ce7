#include "core/nn/init.h"

#include "core/nn/eigen.h"
#include <Eigen/QR>
#include <cmath>
#include <random>

namespace core::nn {

void fillUniform(float* w, std::int64_t n, float limit, util::Rng& rng) {
  std::uniform_real_distribution<float> d(-limit, limit);
  for (std::int64_t i = 0; i < n; ++i) w[i] = d(rng);
}

void fillNormal(float* w, std::int64_t n, float stddev, util::Rng& rng) {
  std::normal_distribution<float> d(0.0f, stddev);
  for (std::int64_t i = 0; i < n; ++i) w[i] = d(rng);
}

const char* initName(Init init) {
  switch (init) {
    case Init::GlorotUniform: return "glorot_uniform";
    case Init::HeNormal: return "he_normal";
    case Init::TorchDefault: return "torch_default";
    case Init::GptNormal: return "gpt_normal";
  }
  return "glorot_uniform";
}

void initWeights(Init init, float* w, std::int64_t n, double fanIn, double fanOut, util::Rng& rng) {
  switch (init) {
    case Init::GlorotUniform:
      fillUniform(w, n, static_cast<float>(std::sqrt(6.0 / (fanIn + fanOut))), rng);
      return;
    case Init::HeNormal:
      fillNormal(w, n, static_cast<float>(std::sqrt(2.0 / fanOut)), rng);
      return;
    case Init::TorchDefault:
      fillUniform(w, n, static_cast<float>(1.0 / std::sqrt(fanIn)), rng);
      return;
    case Init::GptNormal:
      fillNormal(w, n, kGptInitStddev, rng);
      return;
  }
}

void initBias(Init init, float* b, std::int64_t n, double fanIn, util::Rng& rng) {
  if (init == Init::TorchDefault) {
    fillUniform(b, n, static_cast<float>(1.0 / std::sqrt(fanIn)), rng);
  } else {
    std::fill_n(b, n, 0.0f);
  }
}

void fillOrthogonal(float* w, int rows, int cols, util::Rng& rng) {
  // QR of a Gaussian matrix, sign-corrected so the result is uniformly distributed.
  const int big = std::max(rows, cols), small = std::min(rows, cols);
  Eigen::MatrixXf a(big, small);
  fillNormal(a.data(), a.size(), 1.0f, rng);
  Eigen::HouseholderQR<Eigen::MatrixXf> qr(a);
  Eigen::MatrixXf q = qr.householderQ() * Eigen::MatrixXf::Identity(big, small);
  const Eigen::MatrixXf r = qr.matrixQR().topRows(small).triangularView<Eigen::Upper>();
  for (int j = 0; j < small; ++j)
    if (r(j, j) < 0) q.col(j) = -q.col(j);
  Eigen::Map<Eigen::MatrixXf> out(w, rows, cols);
  if (rows >= cols) out = q;
  else out = q.transpose();
}

}  // namespace core::nn
