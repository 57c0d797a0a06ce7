#pragma once
// The run around a step, for every model the simulator times (the CNN/RNN path in
// simulate_workload.cpp, the transformer path in transformer_run.cpp): steps per epoch, the
// evaluation pass over the test split, the first epoch's compilation, the run's seconds, its
// price and its energy. One function, so the two paths cannot drift apart.
#include <cstdint>

#include "core/hw/device_spec.h"
#include "core/sim/sim_report.h"

namespace core::sim {

struct RunShape {
  std::int64_t trainSamples = 0;  // the epoch, unless the configuration sets stepsPerEpoch
  std::int64_t testSamples = 0;   // what the evaluation pass reads
  double evalStepSeconds = 0;     // one batch forward, no gradients
  double compileSeconds = 0;      // the first epoch's extra (graph build, XLA compile, warm-up)
};

// Fills r's stepsPerEpoch, evalSecondsPerEpoch, epochSeconds (with the evaluation when
// r.config.evalEachEpoch), compileSeconds, firstEpochSeconds, runSeconds, usdPerMillionImages,
// usdPerRun and energy, from r.config, r.stepSeconds, r.imagesPerSecond and r.usdPerHour.
// `devices`: how many of `d` the run rents (energy).
void applyRunCost(SimReport& r, const RunShape& shape, const hw::DeviceSpec& d, int devices);

}  // namespace core::sim
