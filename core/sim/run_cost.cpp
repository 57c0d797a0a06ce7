#include "core/sim/run_cost.h"

#include <algorithm>

#include "core/sim/energy.h"
#include "core/sim/pricing.h"

namespace core::sim {

void applyRunCost(SimReport& r, const RunShape& shape, const hw::DeviceSpec& d, int devices) {
  const SimConfig& c = r.config;
  const std::int64_t batch = std::max(1, c.batch);
  const std::int64_t train = std::max<std::int64_t>(1, shape.trainSamples);
  r.stepsPerEpoch = c.stepsPerEpoch > 0 ? c.stepsPerEpoch : (train + batch - 1) / batch;
  const std::int64_t evalSteps = (std::max<std::int64_t>(0, shape.testSamples) + batch - 1) / batch;
  r.evalSecondsPerEpoch = static_cast<double>(evalSteps) * shape.evalStepSeconds;
  r.epochSeconds = static_cast<double>(r.stepsPerEpoch) * r.stepSeconds + (c.evalEachEpoch ? r.evalSecondsPerEpoch : 0.0);
  r.compileSeconds = shape.compileSeconds;
  r.firstEpochSeconds = r.epochSeconds + r.compileSeconds;
  r.runSeconds = r.firstEpochSeconds + (c.epochs - 1) * r.epochSeconds;
  r.usdPerMillionImages = usdPerMillionImages(r.usdPerHour, r.imagesPerSecond);
  r.usdPerRun = r.usdPerHour * r.runSeconds / 3600.0;
  r.energy = energyFor(d, devices, r.runSeconds, c.energy);
}

}  // namespace core::sim
