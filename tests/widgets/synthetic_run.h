#pragma once
// A small synthetic run for the widget tests: 3 epochs × 20 steps trained "on this machine",
// with the host (measured) and two simulated devices, plus helpers for extra cases.
#include <cmath>
#include <vector>

#include <QSettings>

#include "widgets/chart_deck.h"
#include "widgets/run_store.h"
#include "widgets/sweep_chart.h"

namespace testdata {

inline core::sim::SimReport report(const char* deviceId, int count, double stepSeconds,
                                   double usdPerHour, bool fits = true) {
  core::sim::SimReport r;
  r.config.deviceId = deviceId;
  r.config.count = count;
  r.config.batch = 128;
  r.config.epochs = 3;
  r.stepSeconds = stepSeconds;
  r.breakdown.computeSeconds = stepSeconds * 0.5;
  r.breakdown.memorySeconds = stepSeconds * 0.3;
  r.breakdown.overheadSeconds = stepSeconds * 0.1;
  r.breakdown.inputSeconds = stepSeconds * 0.05;
  r.breakdown.communicationSeconds = stepSeconds * 0.05;
  r.bound = core::sim::Bound::Compute;
  r.explanation = std::string(deviceId) + " is compute-bound: the convolutions dominate.";
  r.stepsPerEpoch = 20;
  r.imagesPerSecond = 128.0 / stepSeconds;
  r.epochSeconds = 20 * stepSeconds;
  r.firstEpochSeconds = r.epochSeconds * 3;
  r.runSeconds = r.firstEpochSeconds + 2 * r.epochSeconds;
  r.priceKnown = usdPerHour > 0;
  r.usdPerHour = usdPerHour;
  if (r.priceKnown) {
    r.usdPerMillionImages = usdPerHour / 3600.0 / r.imagesPerSecond * 1e6;
    r.usdPerRun = usdPerHour * r.runSeconds / 3600.0;
    r.priceSeller = "hyperscaler";
    r.priceDate = "2018-04";
    // 300 W a device over the run, PUE 1, the world grid's 0.471 kg/kWh.
    r.energy.known = true;
    r.energy.watts = 300.0 * count;
    r.energy.kwh = 0.3 * count * r.runSeconds / 3600.0;
    r.config.energy.gridKgCo2ePerKwh = 0.471;
    r.energy.co2eKg = r.energy.kwh * 0.471;
  }
  r.fitsInMemory = fits;
  return r;
}

inline widgets::DeviceResult device(const char* id, int count, bool measured, double stepSeconds,
                                    double usdPerHour, bool fits = true) {
  widgets::DeviceResult d;
  d.deviceId = id;
  d.count = count;
  d.measured = measured;
  d.report = report(id, count, stepSeconds, usdPerHour, fits);
  if (fits) {
    for (int e = 0; e < 3; ++e)
      d.epochSeconds.push_back(e == 0 ? d.report.firstEpochSeconds : d.report.epochSeconds);
  }
  return d;
}

// host (measured, no price), 4× V100 and TPU v2-8 (simulated, priced).
inline widgets::Run syntheticRun() {
  widgets::Run run;
  run.name = "colab-cnn · fashion-mnist · b128";
  run.config.batch = 128;
  run.config.epochs = 3;
  run.status = core::experiment::RunStatus::Finished;
  run.targetAccuracy = 0.8;
  std::int64_t step = 0;
  double wall = 0;
  for (int e = 1; e <= 3; ++e) {
    for (int i = 0; i < 20; ++i) {
      core::experiment::BatchSample b;
      b.epoch = e;
      b.step = ++step;
      b.loss = 2.3 * std::exp(-0.05 * static_cast<double>(step)) + 0.2 + 0.05 * std::sin(step);
      b.accuracy = 1 - b.loss / 2.5;
      b.images = step * 128;
      b.stepSeconds = 0.05 + (step <= 3 ? 0.05 : 0.0);
      wall += b.stepSeconds;
      b.wallSeconds = wall;
      run.batches.push_back(b);
    }
    core::experiment::EpochSample s;
    s.epoch = e;
    s.trainLoss = 1.0 / e;
    s.testLoss = 1.1 / e;
    s.trainAccuracy = 0.6 + 0.1 * e;
    s.testAccuracy = 0.58 + 0.1 * e;
    s.images = 20 * 128;
    s.hostSeconds = 20 * 0.05 + (e == 1 ? 0.15 : 0);
    s.hostImagesPerSecond = static_cast<double>(s.images) / s.hostSeconds;
    run.epochs.push_back(s);
  }
  run.devices = {device("host", 1, true, 0.045, 0), device("v100", 4, false, 0.004, 12.24),
                 device("tpu-v2-8", 1, false, 0.003, 4.5)};
  run.references = {
      {"epoch_time", "tpu-v2-8", 1, 0.5, "published: TPU 1st epoch"},
      {"throughput", "v100", NAN, 30000, "published: ≈30k images/s"},
  };
  return run;
}

inline const QStringList& syntheticDevices() {
  static const QStringList ids = {"host", "v100", "tpu-v2-8"};
  return ids;
}

// A batch sweep (16 to 1,024) of `v100s` V100s ($3.06/h each) and a TPU v2-8.
inline std::vector<core::sim::SimReport> sweepReports(int v100s = 1) {
  std::vector<core::sim::SimReport> out;
  for (int b = 16; b <= 1024; b *= 2) {
    // The GPU is ahead at small batches, the TPU at large ones; the GPU runs out at 1024.
    auto gpu = testdata::report("v100", v100s, 0.002 + b * 0.00004, 3.06 * v100s, b < 1024);
    gpu.config.batch = b;
    gpu.imagesPerSecond = b / gpu.stepSeconds;
    auto tpu = testdata::report("tpu-v2-8", 1, 0.006 + b * 0.00002, 4.5);
    tpu.config.batch = b;
    tpu.imagesPerSecond = b / tpu.stepSeconds;
    out.push_back(gpu);
    out.push_back(tpu);
  }
  return out;
}

// The deck the chart tests start each test from: `store`'s runs, the sweep, 1200×900, drawn,
// and no remembered chart choices (a chart keeps the user's log choice in the settings).
inline widgets::ChartDeck* newTestDeck(widgets::RunStore* store) {
  QSettings().clear();
  auto* deck = new widgets::ChartDeck(store);
  deck->sweepChart()->setReports(sweepReports());
  deck->resize(1200, 900);
  deck->refreshAll();
  return deck;
}

}  // namespace testdata
