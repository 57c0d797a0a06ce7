#pragma once
// CONTRACT: a preset's published comparison re-computed by the simulator at the given
// settings ("TPU v3-8 vs P100, batch 16: published ≈3.5×, AccelLab 3.1×"), and whether it
// agrees. The Guide (app/gui/comparisons.h puts words to it) and `accellab-cli presets
// check` both evaluate through here; every side's SimConfig comes from simConfigFor.
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "core/experiment/preset.h"
#include "core/sim/sim_report.h"

namespace core::sim { class Simulator; }

namespace core::experiment {

struct ComparisonOutcome {
  enum class Status {
    Computed,      // value (and for a speed-up, error) are set
    OutOfMemory,   // a speed-up whose side `failedDeviceId` does not fit
    NoTime,        // side `failedDeviceId` has no run time
    NotSimulated,  // the simulator refused a side: `why`
  };
  Status status = Status::NotSimulated;
  bool ok() const { return status == Status::Computed; }
  double value = 0;  // the speed-up, or 1 = fits / 0 = out of memory
  // AccelLab / published - 1 (speed-ups; NaN otherwise or when not computed), and whether
  // that is within the row's tolerance (fits: the same answer).
  double error = std::numeric_limits<double>::quiet_NaN();
  bool agrees = false;
  std::string failedDeviceId;
  std::string why;
  // The sides as simulated (a fit has no versus side).
  DeviceChoice deviceChoice, versusChoice;
  sim::SimReport deviceReport, versusReport;
  int epochs = 0;
};

// `devices` are the current device choices (a side's count/vcpus/precision default to the
// chosen device's row, then to the comparison's overrides); published runs are whole-dataset
// epochs (no subset). Never throws: a refusal is NotSimulated with the simulator's words.
ComparisonOutcome evaluateComparison(const sim::Simulator& sim, const Comparison& comparison, const TrainConfig& config,
                                     const std::vector<DeviceChoice>& devices, const sim::EnergySettings& energy = {});

// A row passes the preset check when it agrees within its tolerance or carries its known
// cause (an explanation).
bool comparisonPasses(const Comparison& comparison, const ComparisonOutcome& outcome);

// Every row of a preset, evaluated as the Guide does at the preset's own set-up (its
// settings, comparisonDevices(preset)).
std::vector<ComparisonOutcome> evaluatePreset(const sim::Simulator& sim, const Preset& preset);

// "≈3.5×", "3.96×", "fits", "out of memory" (the published figure, plain C locale).
std::string publishedFigureText(const Comparison& comparison);
// "3.10×", "fits", "out of memory (k80)", "no time for k80", "not simulated: why".
std::string outcomeText(const ComparisonOutcome& outcome, const Comparison& comparison);

}  // namespace core::experiment
