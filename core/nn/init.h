#pragma once
// Weight initialisers. Each draws from core::util::makeRng(seed, layer stream), so a layer's
// initial weights depend only on the network seed and the layer's position.
#include <cstdint>

#include "core/util/rng.h"

namespace core::nn {

enum class Init {
  GlorotUniform,  // Keras default: U(+-sqrt(6 / (fanIn + fanOut)))
  HeNormal,       // torchvision ResNets: N(0, sqrt(2 / fanOut)) (kaiming_normal_, fan_out)
  TorchDefault,   // PyTorch Linear/Conv default: U(+-1 / sqrt(fanIn)) for weights and bias
  GptNormal       // GPT-2 / the transformers: N(0, 0.02^2) weights (x the layer's scale), zero bias
};

// "glorot_uniform", "he_normal", "torch_default", "gpt_normal" (the model graph's words).
const char* initName(Init init);

void fillUniform(float* w, std::int64_t n, float limit, util::Rng& rng);
void fillNormal(float* w, std::int64_t n, float stddev, util::Rng& rng);
// Fills n weights of a layer with the given fans.
inline constexpr float kGptInitStddev = 0.02f;

void initWeights(Init init, float* w, std::int64_t n, double fanIn, double fanOut, util::Rng& rng);
// Bias: zero, except TorchDefault's U(+-1/sqrt(fanIn)).
void initBias(Init init, float* b, std::int64_t n, double fanIn, util::Rng& rng);
// Orthogonal rows x cols matrix (column-major), Keras' recurrent initialiser.
void fillOrthogonal(float* w, int rows, int cols, util::Rng& rng);

}  // namespace core::nn
