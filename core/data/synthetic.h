#pragma once
// A learnable, seeded synthetic dataset of any shape and class count.
//
// Images: each class has a prototype made of smooth blobs (a coarse random grid, upsampled),
// and a sample is its class prototype plus Gaussian noise, clipped to [0,1]. A model learns
// it quickly, but not in one step (the noise is strong per pixel).
// Text (vocabulary > 0): a sample is `shape.h` token ids; half the tokens are drawn from the
// class's own "topic" tokens (id % classes == class), half uniformly — a bag-of-words model
// separates the classes.
// The prototypes depend only on (seed, shape, classes, vocabulary), so train and test sets
// made with the same seed and different `sampleStream`s come from the same distribution.
#include <cstdint>
#include <string>

#include "core/data/dataset.h"

namespace core::data {

struct SyntheticSpec {
  std::string id = "synthetic";
  nn::Shape shape{1, 28, 28};
  int classes = 10;           // 1 = binary labels 0/1
  int vocabulary = 0;         // > 0: token ids in [0, vocabulary) instead of pixels
  std::int64_t count = 1000;
  std::uint64_t seed = 0;
  std::uint64_t sampleStream = 0;  // 0 for training, 1 for test, ...
  float noise = 0.45f;        // standard deviation of the per-pixel noise
};

// Throws core::util::Error naming the field when the spec is invalid.
Dataset makeSynthetic(const SyntheticSpec& spec);

}  // namespace core::data
