#pragma once
// CONTRACT: the error band beside every simulated figure, CNN and transformer alike, by one
// rule. Its rows are the simulator's out-of-sample errors on the calibration rows
// (resources/calibration/held-out-errors.csv: each calibration row predicted by a fit without it,
// and the held-out references of resources/reference as they are; written by
// packaging/calibration/held_out_errors.py). A prediction's band is the median of the rows of its
// workload (a CNN/RNN, or a transformer through the LLM step), software stack and hardware
// generation; where there are fewer than kMinBandRows of them the prediction is *uncalibrated*,
// and the band says so and quotes what the stack's rows of that workload on other devices of the
// kind (or, without those, every row of the workload and kind) reach instead of borrowing a
// tighter figure. An uncalibrated band is never narrower than its own few rows: where one of
// them misses by more than the borrowed median, the band is that miss. (So the band can narrow
// when a third row arrives: three rows make a median, which one bad row no longer sets.)
#include <optional>
#include <string>
#include <vector>

#include "core/hw/device_catalog.h"
#include "core/util/json.h"

namespace core::sim {

inline constexpr int kMinBandRows = 3;

struct ErrorBand {
  double pct = 0;           // the band: ± this many percent
  double rowsMedianPct = 0; // the median of the `rows` it quotes (the band unless widened)
  double ownWorstPct = 0;   // uncalibrated: the largest miss of its own rows (0: none)
  int rows = 0;
  std::string scope;        // "pytorch-eager on hopper", "other GPUs under tuned", ...
  bool calibrated = false;  // rows of the prediction's own stack and generation
  std::string stackId, generation, workload;
  int ownRows = 0;          // rows of its own stack and generation (under kMinBandRows: uncalibrated)
  bool known() const { return rows > 0; }
  std::string percent() const;  // "±12%" (empty when unknown)
  std::string label() const;    // for legends: "±12%", or "±25%, uncalibrated"
  // "±12% (median held-out error of tuned on hopper, n=10)", "±25% uncalibrated: no measured
  // rows for h100 under pytorch-eager; other GPUs under this stack: ±25% (n=7)" or, where its
  // own row misses by more, "±66% uncalibrated: only 1 measured row for cdna3 under mlperf,
  // off by 66%; ...: ±17% (n=9)".
  std::string text() const;
};

struct HeldOutRow {
  std::string id, reference, stack, device, metric;
  std::string model;
  std::string workload;           // workloadOfModel(model)
  std::string generation;         // the device's, or its id when it has none
  hw::DeviceKind kind = hw::DeviceKind::Gpu;
  std::optional<double> absPctError;  // nullopt: the simulator refused the row
  double publishedMfu = 0;  // transformer rows: the MFU the published figure implies (0: none)
  int chips = 0;            // transformer rows: the chips it ran on
  int line = 0;
};

struct HeldOutErrors {
  std::vector<HeldOutRow> rows;
  std::string path;
};

// Strict: throws core::util::Error naming the file, line and column (an unknown device, a
// negative error). Devices resolve against `devices` for their generation and kind.
HeldOutErrors parseHeldOutErrors(const std::string& text, const std::string& path, const hw::DeviceCatalog& devices);
HeldOutErrors readHeldOutErrors(const std::string& path, const hw::DeviceCatalog& devices);
std::string shippedHeldOutErrorsPath();  // resourceDir()/calibration/held-out-errors.csv

// "transformer" for a model the simulator runs through the LLM step, else "CNN/RNN".
std::string workloadOfModel(const std::string& modelId);

// The band of a prediction of `modelId` under `stackId` on `device` (unknown when no row of its
// workload and kind has an error); a measured device (the host) has none.
ErrorBand errorBandFor(const HeldOutErrors& errors, const std::string& modelId, const std::string& stackId,
                       const hw::DeviceSpec& device);

// The highest MFU a published transformer run of about this scale (chips within a factor of 8)
// on the same kind of device reached, among the rows (a TPU pod's MFU is no ceiling for GPUs);
// and the caution to show when a prediction exceeds it by more than 2 points ("" when it does
// not, or when no row is of that scale and kind).
struct MfuCeiling {
  double mfu = 0;
  int chips = 0;
  std::string id, model, stack, device;
};
std::optional<MfuCeiling> publishedMfuCeiling(const HeldOutErrors& errors, int chips, hw::DeviceKind kind);
std::string mfuCaution(const HeldOutErrors& errors, double predictedMfu, int chips, hw::DeviceKind kind);

// {"band_pct" (the band), "median_abs_pct_error" (of the rows it quotes), "rows", "scope",
// "calibrated", "text"}
util::Json errorBandToJson(const ErrorBand& band);

// The scoreboard of Help -> How accurate is this?: per workload (CNN/RNN or transformer rows),
// stack and generation, and overall.
struct BandGroup {
  std::string workload, stack, generation;
  int rows = 0;
  double medianAbsPct = 0, meanAbsPct = 0;
};
struct Scoreboard {
  std::vector<BandGroup> groups;   // sorted by workload, stack, generation
  std::vector<BandGroup> workloads;  // one per workload, then "all"
  std::vector<const HeldOutRow*> largestMisses;  // per workload (in its order), its worst `misses` first
  int refused = 0;
};
Scoreboard scoreboardOf(const HeldOutErrors& errors, int misses = 8);
// A CSV of published figures the simulator never saw (File > Import, a calibration.csv-format
// file) read as held-out rows of `reference`, for the same scoreboard.
struct ValidationResult;
HeldOutErrors heldOutFromValidation(const ValidationResult& v, const std::string& reference,
                                    const hw::DeviceCatalog& devices);

}  // namespace core::sim
