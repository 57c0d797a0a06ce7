#pragma once
// CONTRACT: the bounds of an experiment's settings, stated once. The codec, the trainer's
// validation, the CLI's options and the panels' input widgets all read them from here.
#include <cstdint>
#include <limits>

namespace core::experiment {

inline constexpr int kMaxBatch = 1 << 20;           // global batch (images or sequences per step)
inline constexpr int kMaxEpochs = 100000;
inline constexpr int kMaxLmSteps = 10'000'000;     // a language model's training steps (and eval interval)
inline constexpr int kMaxThreads = 1024;            // 0 = all cores
inline constexpr int kMaxDeviceCount = 65536;       // devices in data parallel
inline constexpr int kMaxVcpus = 4096;              // a scalable CPU's vCPUs
inline constexpr std::int64_t kMaxSamples = std::numeric_limits<std::int32_t>::max();  // subset sizes
// Seeds are written to JSON (history, presets, exports), whose numbers are doubles: every
// integer up to 2^53 survives exactly, so that is the largest seed a run may have.
inline constexpr std::uint64_t kMaxSeed = std::uint64_t{1} << 53;
inline constexpr double kMaxLearningRate = 1e15;  // far past divergence: the tests of divergence use 1e12
inline constexpr double kMaxWeightDecay = 1;

}  // namespace core::experiment
