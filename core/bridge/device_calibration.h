#pragma once
// Calibrating a device on the user's own runs: a base datasheet (a catalog device) plus the few
// software/efficiency figures that measured step times pin, fitted by least squares on
// log(step time). A lab's RTX card or a new cloud chip becomes a device the simulator knows,
// with every fitted figure sourced "fitted on your runs <date>".
//
// What the runs can pin is checked, not assumed: no more figures than distinct configurations
// (model, dataset, batch, precision, devices); each figure must move some run's predicted step
// time (elasticity >= 0.05); and no figure may move the runs the way the others already do
// (they could not be told apart). A request for more is refused with the reason.
#include <optional>
#include <string>
#include <vector>

#include "core/bridge/run_log.h"
#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/util/json.h"

namespace core::bridge {

// The figures a calibration may fit, in the order an automatic fit tries them.
const std::vector<std::string>& calibratableFigures();

struct CalibrationRequest {
  hw::DeviceSpec base;               // the datasheet: a catalog device with a file
  std::string stackId;               // the software the runs used; "" = the base kind's default
  std::vector<std::string> figures;  // to fit; empty = as many as the runs can pin
  std::string id, name;              // of the new device
  std::string date;                  // "YYYY-MM-DD"; empty = today (UTC)
  // The runs ran on another device than the base (a lab's card fitted from a similar datasheet):
  // without it, a run whose device is another catalog device than the base is refused.
  bool otherDevice = false;
};

struct CalibratedFigure {
  std::string key;
  double value = 0;
  double start = 0;        // the stack's figure for the base device (where the fit started)
  double elasticity = 0;   // the largest |d log step / d log figure| over the runs, at the start
};

struct CalibratedRun {
  std::string path, model;
  int batch = 0;
  double measuredSeconds = 0;   // steady-state step
  double startSeconds = 0;      // predicted by the base device under the stack
  double fittedSeconds = 0;     // predicted by the calibrated device
};

struct CalibrationResult {
  hw::DeviceSpec device;        // the base with the fitted figures (id and name of the request)
  std::string baseId, baseFile, stackId, date;
  std::string baseText;         // the datasheet's text: the base file's, or the measured host's
  std::vector<CalibratedFigure> figures;
  std::vector<CalibratedRun> runs;
  double fitMedianAbsPct = 0, fitMaxAbsPct = 0;
  std::optional<double> leaveOneOutMedianAbsPct;  // 4 runs or more
  std::vector<std::string> skipped;               // automatic fit: figures left out, and why
  std::vector<std::string> duplicates;            // "b.jsonl is a.jsonl again: counted once"
  std::vector<std::string> noisy;                 // "a.jsonl: two kinds of step: ..."
};

// A transformer job's run is simulated by the transformer step model with the plan it ran, under
// the stack it records (pytorch-eager or pytorch-compile) unless the request names one; an
// automatic fit tries the figures the runs' step models read (matmul_efficiency for a
// transformer, gemm_efficiency for the layer model).
// The host (measured, no file) is a base too: its measured rates as the datasheet, PyTorch's
// framework costs from the stack, as predictRun simulates it.
// Throws core::util::Error saying why when the runs cannot be used (none; different devices;
// eager and compiled runs together; a base without a file that is not the host) or cannot pin
// the figures asked for.
CalibrationResult calibrateDevice(const CalibrationRequest& request, const std::vector<RunLog>& runs,
                                  const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks);

// The device file: the base file's keys with the new id, name and notes, plus
// "calibrated_software" and its source. Check it with hw::parseDeviceJson before writing.
util::Json calibratedDeviceJson(const CalibrationResult& result);
// What was fitted and how well (for the CLI's JSON and the GUI dialog).
util::Json calibrationReportJson(const CalibrationResult& result);

}  // namespace core::bridge
