#pragma once
// The simulator against published measurements: rows in the format of
// ../shared/reference/calibration.csv, each turned into one or two simulator configurations
// by documented rules (kValidationRules), and the absolute percentage errors summarised per
// device family and overall.
#include <optional>
#include <string>
#include <vector>

#include "core/sim/error_band.h"
#include "core/sim/sim_report.h"

namespace core::sim {

class Simulator;

struct RowConfig {
  std::string device;
  int vcpus = 0;
  int count = 1;
  int batch = 0;
  util::Precision precision = util::Precision::FP32;
  std::string stack;  // software stack id ("" = the device kind's default)
};

struct ReferenceRow {
  std::string id, model, dataset;
  RowConfig a;                   // the measured configuration
  std::optional<RowConfig> b;    // metric == ratio: the configuration compared with
  std::string metric;            // images_per_second, epoch_seconds, first_epoch_seconds,
                                 // step_seconds, ratio, oom, time_to_train_seconds
  double value = 0;
  std::string note, source;
  std::string reading;           // where the source leaves the hardware open: the reading taken
                                 // (core/sim/row_readings.h), with its source; empty otherwise
  int line = 0;                  // in the CSV file
};

// How a row's tolerance_note shapes the run it describes (see kValidationRules).
struct NoteRules {
  int epochs = 0;                // 0 = not stated
  std::int64_t stepsPerEpoch = 0;
  std::int64_t totalSteps = 0;   // "N-step run"
  std::int64_t images = 0;       // "N images"
  bool validation = false;
  bool runAverage = false;
  bool excludesInit = false;     // "excludes init": the run's time leaves out compilation
  std::optional<CpuBuild> build;
};

extern const char* const kValidationRules;

NoteRules parseNote(const std::string& note);

// The calibration rows AccelLab ships (resourceDir()/calibration/calibration.csv, a copy of
// ../shared/reference/calibration.csv): where the error bands come from.
std::string shippedCalibrationCsv();

// Strict CSV reading (quoted fields, the header of calibration.csv). Throws core::util::Error
// naming the file, line and column for malformed rows or unknown metrics/precisions.
std::vector<ReferenceRow> readReferenceCsv(const std::string& path);
std::vector<ReferenceRow> parseReferenceCsv(const std::string& text, const std::string& path);

struct RowResult {
  ReferenceRow row;
  std::string family;       // "cpu", "k80", "p100", "v100", "tpu", ...
  std::string stack;        // the stack configuration a ran under
  double predicted = 0;
  double absPctError = 0;   // |predicted - published| / published x 100 (oom: 0 or 100)
  bool ok = true;           // false: the simulator refused the configuration
  std::string error;        // why not ok
  std::string explanation;  // the simulator's sentence for configuration a
};

struct ErrorStats {
  std::string family;
  int rows = 0;              // rows with a percentage error (not oom)
  double medianAbsPct = 0;
  double meanAbsPct = 0;
  int oomRows = 0, oomMatched = 0;
};

// A validation's errors summed up: per device family, per stack, per stack and family, and
// over all rows. Both validations (training rows and transformer rows) give one.
struct ErrorSummary {
  std::vector<ErrorStats> families;       // sorted by name
  std::vector<ErrorStats> stacks;         // per stack id, sorted
  std::vector<ErrorStats> stackFamilies;  // "tuned / v100", ...
  ErrorStats overall;
};

// A row as the summary counts it: its percentage error where it has one (ok and not an OOM
// row); an OOM row counts as matched or not.
struct SummaryRow {
  std::string family, stack;
  bool ok = true;
  bool oom = false;
  double absPctError = 0;
};

ErrorSummary summariseErrors(const std::vector<SummaryRow>& rows, const std::string& overallName);

struct ValidationResult : ErrorSummary {
  std::vector<RowResult> rows;
};

std::string deviceFamily(const std::string& deviceId);


// `defaultBuild` applies to CPU rows whose note has no build= token; a non-empty
// `stackOverride` runs every row under that stack instead of its own.
ValidationResult validateRows(const Simulator& sim, const std::vector<ReferenceRow>& rows,
                              CpuBuild defaultBuild = CpuBuild::Compiled, const std::string& stackOverride = "");

}  // namespace core::sim
