#include "core/experiment/sim_config.h"

#include <algorithm>

#include "core/data/dataset_info.h"

namespace core::experiment {

using util::Precision;

Precision resolvePrecision(const hw::DeviceSpec* device, const DeviceChoice& choice, Precision runPrecision) {
  if (choice.precision) return *choice.precision;
  if (!device || hw::peakTflops(*device, runPrecision)) return runPrecision;
  for (Precision p : {Precision::BF16, Precision::FP16, Precision::FP32, Precision::TF32})
    if (hw::peakTflops(*device, p)) return p;
  return runPrecision;
}

namespace {

// The dataset's whole training split (0 when unknown or counted from your folder).
std::int64_t wholeTrainSize(const std::string& datasetId) {
  try {
    return std::max<std::int64_t>(0, data::datasetInfo(datasetId).trainSize);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

std::int64_t imagesPerEpoch(const TrainConfig& train) {
  const std::int64_t size = wholeTrainSize(train.datasetId);
  if (size <= 0) return train.limit;
  return train.limit > 0 ? std::min(train.limit, size) : size;
}

sim::SimConfig simConfigFor(const TrainConfig& train, const DeviceChoice& choice, const hw::DeviceSpec* device,
                            const sim::EnergySettings& energy) {
  sim::SimConfig s;
  s.modelId = train.modelId;
  s.datasetId = train.datasetId;
  s.dataDir = train.dataDir;  // your image folder's images make the epoch (other datasets ignore it)
  s.deviceId = choice.deviceId;
  s.stackId = choice.stackId;
  s.count = choice.vcpus > 0 ? 1 : std::max(1, choice.count);
  s.vcpus = choice.vcpus;
  s.memoryGib = choice.vcpus > 0 ? choice.memoryGib : 0;
  s.batch = train.batch;
  s.precision = resolvePrecision(device, choice, train.precision);
  s.epochs = train.epochs;
  s.preemptible = choice.preemptible;
  s.userUsdPerHour = choice.userUsdPerHour;
  s.energy = energy;
  // A subset does fewer steps than the whole-dataset epoch the simulator assumes.
  const std::int64_t images = imagesPerEpoch(train);
  if (images > 0 && images != wholeTrainSize(train.datasetId))
    s.stepsPerEpoch = (images + train.batch - 1) / std::max(1, train.batch);
  return s;
}

}  // namespace core::experiment
