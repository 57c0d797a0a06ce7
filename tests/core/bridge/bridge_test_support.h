#pragma once
// What the bridge's tests share: the shipped catalogs, run logs written by hand (a good one, its
// lines, steady token steps), synthetic runs of a device whose figures are known, and an error's
// text.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>
#include <tuple>

#include "core/bridge/device_calibration.h"
#include "core/bridge/run_log.h"
#include "core/bridge/run_prediction.h"
#include "core/bridge/torch_export.h"
#include "core/hw/catalog_files.h"
#include "core/hw/host_probe.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/sim/sim_report_json.h"
#include "core/sim/simulator.h"
#include "core/util/csv.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace bridge_test {

using core::bridge::RunLog;

inline core::hw::DeviceCatalog devices() { return core::hw::DeviceCatalog::loadDirs({core::util::resourceDir() + "/devices"}); }
inline core::hw::StackCatalog stacks() { return core::hw::StackCatalog::loadDirs({core::util::resourceDir() + "/stacks"}); }

// Five steady steps of `seconds` each for a token log of log.batch sequences of log.seqLen.
inline void addSteadyTokenSteps(RunLog& log, double seconds) {
  for (int i = 1; i <= 5; ++i) {
    core::bridge::LoggedStep s;
    s.step = i;
    s.seconds = seconds;
    s.samples = log.batch;
    s.tokens = double(log.batch) * log.seqLen;
    s.perSecond = s.tokens / seconds;
    log.steps.push_back(s);
  }
}

inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::util::Error& e) {
    return e.what();
  }
  return "";
}

inline std::string startLine(const std::string& model = "mlp", long long params = 669706) {
  return R"({"record": "start", "format": "accellab-run-log", "version": 1, "model": ")" + model +
         R"(", "dataset": "fashion-mnist", "batch": 128, "precision": "fp32", "seed": 0, "params": )" +
         std::to_string(params) +
         R"(, "unit": "images", "device": "cpu", "device_name": "Test CPU", "device_count": 1, "strategy": "single", "torch": "2.5.0", "cuda": null})";
}

inline std::string stepLine(int step, double seconds, bool warmup) {
  std::ostringstream s;
  s << R"({"record": "step", "step": )" << step << R"(, "epoch": 0, "seconds": )" << seconds
    << R"(, "samples": 128, "per_second": )" << 128 / seconds << R"(, "loss": 2.0, "warmup": )"
    << (warmup ? "true" : "false") << "}";
  return s.str();
}

inline std::string goodLog() {
  std::string t = startLine() + "\n";
  for (int i = 1; i <= 8; ++i) t += stepLine(i, i <= 3 ? 0.05 : 0.010 + 0.001 * (i % 2), i <= 3) + "\n";
  return t + R"({"record": "end", "steps": 8, "seconds": 0.3, "peak_memory_bytes": 1000000, "memory": "host_rss"})" + "\n";
}

// Runs "measured" on a device whose true software figures are known.
inline std::vector<RunLog> syntheticRuns(const core::hw::DeviceSpec& truth, const std::vector<std::pair<std::string, int>>& configs) {
  const core::sim::Simulator sim(devices(), stacks());
  const auto st = stacks();
  std::vector<RunLog> runs;
  int k = 0;
  for (const auto& [model, batch] : configs) {
    core::sim::SimConfig c;
    c.modelId = model;
    c.datasetId = model == "resnet20" ? "cifar10" : "fashion-mnist";
    c.deviceId = truth.id;
    c.batch = batch;
    c.precision = core::util::Precision::FP16;
    c.perLayer = false;
    const double t = core::sim::simulateWorkload(*sim.workload(c.modelId, c.datasetId), truth, st.defaultFor(truth.kind), c).stepSeconds;
    RunLog log;
    log.path = "run" + std::to_string(++k) + ".jsonl";
    log.model = model;
    log.dataset = c.datasetId;
    log.batch = batch;
    log.precision = "fp16";
    log.unit = "images";
    log.deviceType = "cuda";
    log.deviceName = "Lab GPU";
    for (int i = 1; i <= 5; ++i) {
      core::bridge::LoggedStep s;
      s.step = i;
      s.seconds = t;
      s.samples = batch;
      log.steps.push_back(s);
    }
    runs.push_back(log);
  }
  return runs;
}

}  // namespace bridge_test
