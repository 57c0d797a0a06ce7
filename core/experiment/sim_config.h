#pragma once
// CONTRACT: the one mapping from an experiment (what to train, on which device) to the
// simulator's configuration, and the one precision policy. The GUI (SimService), the CLI
// (simulate, sweep), the presets' comparisons and import-run all build their SimConfig here,
// so the same experiment gets the same step time and memory wherever it is simulated.
// (core/experiment may use core/sim; core/train includes only train_config.h and names.h,
// and so does not come to depend on the simulator through this file.)
#include <cstdint>

#include "core/experiment/experiment.h"
#include "core/hw/device_spec.h"
#include "core/sim/sim_report.h"

namespace core::experiment {

// The precision a device runs an experiment at: the user's choice for that device when there
// is one (a device row's precision in the GUI, --precision in the CLI, the precision a
// measured run ran at); else the run's precision where the device has a peak for it; else the
// first of bf16, fp16, fp32, tf32 the device has a peak for (a TPU runs an fp32 run in bf16,
// with 2-byte activations). An unknown device (nullptr) keeps the run's precision.
util::Precision resolvePrecision(const hw::DeviceSpec* device, const DeviceChoice& choice, util::Precision runPrecision);

// Training samples one epoch reads: the subset (limit) or the dataset's whole training split;
// the limit (0 = unknown) for a dataset whose size only the simulator can count (your image
// folder) or that is not known.
std::int64_t imagesPerEpoch(const TrainConfig& train);

// The simulator's configuration of `train` on `choice` (`device` is the catalog's entry for
// choice.deviceId, nullptr when unknown: the simulator then names the id). A scalable CPU is
// one VM of choice.vcpus; a subset (train.limit) makes an epoch of fewer steps than the
// whole dataset; the precision is resolvePrecision's. Every other SimConfig field keeps its
// default (the CLI's own options, such as --cpu-build, are set by the CLI after this).
sim::SimConfig simConfigFor(const TrainConfig& train, const DeviceChoice& choice, const hw::DeviceSpec* device,
                            const sim::EnergySettings& energy = {});

}  // namespace core::experiment
