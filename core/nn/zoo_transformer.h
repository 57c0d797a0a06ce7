#pragma once
// Internal to the zoo: the two transformers the engine trains, built layer for layer from their
// transformer model files (resources/models/char-gpt.json, vit-tiny.json).
#include <memory>

#include "core/nn/network.h"
#include "core/nn/zoo.h"

namespace core::nn::zoo_detail {

std::unique_ptr<Network> buildCharGpt(const ModelInput& in);
std::unique_ptr<Network> buildVitTiny(const ModelInput& in);

}  // namespace core::nn::zoo_detail
