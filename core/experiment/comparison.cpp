#include "core/experiment/comparison.h"

#include <cmath>
#include <cstdio>

#include "core/experiment/sim_config.h"
#include "core/sim/simulator.h"

namespace core::experiment {
namespace {

struct Side {
  TrainConfig config;
  DeviceChoice choice;
};

Side resolve(const ComparisonSide& s, const Comparison& c, const TrainConfig& config, const std::vector<DeviceChoice>& devices) {
  Side out{config, {}};
  if (c.epochs > 0) out.config.epochs = c.epochs;
  out.choice.deviceId = s.deviceId;
  for (const auto& d : devices)
    if (d.deviceId == s.deviceId) out.choice = d;
  if (s.count) out.choice.count = *s.count;
  if (s.vcpus) out.choice.vcpus = *s.vcpus;
  if (s.batch) out.config.batch = *s.batch;
  if (s.datasetId) out.config.datasetId = *s.datasetId;
  // Published comparisons are about whole-dataset epochs.
  out.config.limit = 0;
  return out;
}

std::string ratio(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2f×" : "%.0f×", v);
  return buf;
}

}  // namespace

ComparisonOutcome evaluateComparison(const sim::Simulator& simulator, const Comparison& c, const TrainConfig& config,
                                     const std::vector<DeviceChoice>& devices, const sim::EnergySettings& energy) {
  ComparisonOutcome r;
  try {
    auto simulate = [&](const Side& side) {
      sim::SimConfig sc = simConfigFor(side.config, side.choice, simulator.catalog().find(side.choice.deviceId), energy);
      sc.stepsPerEpoch = c.stepsPerEpoch;
      return simulator.simulate(sc);
    };
    const Side a = resolve(c.device, c, config, devices);
    r.deviceChoice = a.choice;
    r.epochs = a.config.epochs;
    r.deviceReport = simulate(a);
    if (c.metric == Comparison::Metric::Fits) {
      r.status = ComparisonOutcome::Status::Computed;
      r.value = r.deviceReport.fitsInMemory ? 1 : 0;
      r.agrees = (r.value > 0.5) == (c.published > 0.5);
      return r;
    }
    const Side b = resolve(c.versus, c, config, devices);
    r.versusChoice = b.choice;
    r.versusReport = simulate(b);
    if (!r.deviceReport.fitsInMemory || !r.versusReport.fitsInMemory) {
      r.status = ComparisonOutcome::Status::OutOfMemory;
      r.failedDeviceId = !r.deviceReport.fitsInMemory ? c.device.deviceId : c.versus.deviceId;
      return r;
    }
    if (r.deviceReport.runSeconds <= 0) {
      r.status = ComparisonOutcome::Status::NoTime;
      r.failedDeviceId = c.device.deviceId;
      return r;
    }
    r.status = ComparisonOutcome::Status::Computed;
    r.value = r.versusReport.runSeconds / r.deviceReport.runSeconds;
    r.error = r.value / c.published - 1;
    r.agrees = std::abs(r.error) <= c.toleranceOrDefault() + 1e-12;
  } catch (const std::exception& e) {
    r.status = ComparisonOutcome::Status::NotSimulated;
    r.why = e.what();
  }
  return r;
}

// A row passes when it agrees, or when it was simulated and disagrees for a reason the preset
// explains; a row the simulator refused never passes, explained or not.
bool comparisonPasses(const Comparison& c, const ComparisonOutcome& o) {
  return o.agrees || (o.status != ComparisonOutcome::Status::NotSimulated && !c.explanation.empty());
}

std::vector<ComparisonOutcome> evaluatePreset(const sim::Simulator& sim, const Preset& preset) {
  const std::vector<DeviceChoice> devices = comparisonDevices(preset);
  std::vector<ComparisonOutcome> out;
  out.reserve(preset.comparisons.size());
  for (const Comparison& c : preset.comparisons) out.push_back(evaluateComparison(sim, c, preset.experiment.train, devices));
  return out;
}

std::string publishedFigureText(const Comparison& c) {
  if (c.metric == Comparison::Metric::Fits) return c.published > 0.5 ? "fits" : "out of memory";
  return (c.approximate ? "≈" : "") + ratio(c.published);
}

std::string outcomeText(const ComparisonOutcome& o, const Comparison& c) {
  switch (o.status) {
    case ComparisonOutcome::Status::Computed:
      if (c.metric == Comparison::Metric::Fits) return o.value > 0.5 ? "fits" : "out of memory";
      return ratio(o.value);
    case ComparisonOutcome::Status::OutOfMemory: return "out of memory (" + o.failedDeviceId + ")";
    case ComparisonOutcome::Status::NoTime: return "no time for " + o.failedDeviceId;
    case ComparisonOutcome::Status::NotSimulated: return "not simulated: " + o.why;
  }
  return {};
}

}  // namespace core::experiment
