#pragma once
// Shared by the simulator tests: the shipped catalog, a simulator over it, a parallel plan, and
// hand-made layers for the cost-model unit tests.
#include <string>

#include "core/hw/device_catalog.h"
#include "core/nn/layer_stats.h"
#include "core/sim/execution_unit.h"
#include "core/sim/parallel_plan.h"
#include "core/sim/simulator.h"
#include "core/sim/workload.h"

namespace simtest {

inline const core::hw::DeviceCatalog& catalog() {
  static const core::hw::DeviceCatalog cat =
      core::hw::DeviceCatalog::loadDirs({std::string(ACCELLAB_SOURCE_RESOURCES) + "/devices"});
  return cat;
}

inline const core::hw::StackCatalog& stacks() {
  static const core::hw::StackCatalog cat =
      core::hw::StackCatalog::loadDirs({std::string(ACCELLAB_SOURCE_RESOURCES) + "/stacks"});
  return cat;
}

inline const core::hw::DeviceSpec& device(const std::string& id) { return catalog().at(id); }
inline const core::hw::StackSpec& stack(const std::string& id) { return stacks().at(id); }

// dp x tp x pp with ZeRO stage `zero`, recompute `rc` and micro-batches of `mb` sequences.
inline core::sim::ParallelPlan plan(int dp, int tp, int pp, int zero, core::sim::Recompute rc = core::sim::Recompute::None,
                                    int mb = 1) {
  core::sim::ParallelPlan p;
  p.dp = dp;
  p.tp = tp;
  p.pp = pp;
  p.zero = zero;
  p.recompute = rc;
  p.microBatch = mb;
  return p;
}

inline const core::sim::Simulator& simulator() {
  static const core::sim::Simulator sim(catalog(), stacks());
  return sim;
}

inline core::sim::SimConfig config(const std::string& model, const std::string& dataset, const std::string& device,
                                   int batch, core::util::Precision p = core::util::Precision::FP32, int count = 1,
                                   int vcpus = 0, const std::string& stack = "") {
  core::sim::SimConfig c;
  c.stackId = stack;
  c.modelId = model;
  c.datasetId = dataset;
  c.deviceId = device;
  c.batch = batch;
  c.precision = p;
  c.count = count;
  c.vcpus = vcpus;
  return c;
}

// A transformer at LLM scale as the planner and the CLI start one: bf16, the plan searched.
inline core::sim::SimConfig llmConfig() {
  core::sim::SimConfig c;
  c.precision = core::util::Precision::BF16;
  return c;
}

// The device under `stack` ("" = its kind's default), as the simulator resolves it.
inline core::sim::ExecutionUnit unit(const std::string& device, core::util::Precision p = core::util::Precision::FP32,
                                     int vcpus = 0, const std::string& stack = "") {
  core::sim::SimConfig c;
  c.deviceId = device;
  c.precision = p;
  c.vcpus = vcpus;
  c.stackId = stack;
  const core::hw::DeviceSpec& d = catalog().at(device);
  return core::sim::resolveUnit(d, core::hw::figuresFor(simulator().stackFor(c), d), c);
}

// A dense layer in, units out, as the engine would describe it.
inline core::nn::LayerStats dense(const std::string& name, int in, int out) {
  core::nn::LayerStats l;
  l.name = name;
  l.kind = core::nn::LayerKind::Dense;
  l.inShape = {in, 1, 1};
  l.outShape = {out, 1, 1};
  l.params = static_cast<std::int64_t>(in) * out + out;
  l.forwardFlops = 2.0 * in * out;
  l.backwardFlops = 4.0 * in * out;
  l.forwardBytes = 4.0 * (in + out);
  l.weightBytes = 4.0 * static_cast<double>(l.params);
  l.savedBytes = 4.0 * in;
  l.gemmM = out;
  l.gemmK = in;
  l.gemmN = 1;
  return l;
}

// A 3x3 same convolution on h x w images.
inline core::nn::LayerStats conv(const std::string& name, int cin, int cout, int h, int w) {
  core::nn::LayerStats l;
  l.name = name;
  l.kind = core::nn::LayerKind::Conv2D;
  l.inShape = {cin, h, w};
  l.outShape = {cout, h, w};
  l.params = static_cast<std::int64_t>(cin) * 9 * cout + cout;
  l.forwardFlops = 2.0 * cin * 9 * cout * h * w;
  l.backwardFlops = 2 * l.forwardFlops;
  l.forwardBytes = 4.0 * (cin + cout) * h * w;
  l.weightBytes = 4.0 * static_cast<double>(l.params);
  l.savedBytes = 4.0 * cout * h * w;
  l.gemmM = cout;
  l.gemmK = cin * 9;
  l.gemmN = static_cast<std::int64_t>(h) * w;
  return l;
}

inline core::sim::Workload workloadOf(const std::vector<core::nn::LayerStats>& layers,
                                      core::data::SampleFormat format = core::data::SampleFormat::Synthetic) {
  core::nn::NetworkStats s;
  s.input = layers.front().inShape;
  s.output = layers.back().outShape;
  s.layers = layers;
  core::sim::DataFeed f;
  f.format = format;
  f.trainSize = 10000;
  f.testSize = 1000;
  return core::sim::makeWorkload("hand", "hand", s, f);
}

}  // namespace simtest
