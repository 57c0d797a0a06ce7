// accellab-cli validate: the simulator against published measurements.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <string>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/sim_options.h"
#include "app/cli/validation_report.h"
#include "core/sim/llm_validation.h"
#include "core/sim/row_readings.h"
#include "core/sim/simulator.h"
#include "core/sim/stack_fit.h"
#include "core/util/files.h"
#include "core/sim/validation.h"
#include "core/util/error.h"
#include "core/util/json.h"

namespace app::cli {

using core::util::Error;
using core::util::Json;

namespace {
std::string usage() {
  return std::string(
             "Usage: accellab-cli validate --reference FILE [--stack ID] [--format text|json]\n"
             "                             [--cpu-build compiled|pip]\n"
             "\n"
             "Runs the simulator on every row of a CSV in the format of calibration.csv and prints, per\n"
             "row, the published and predicted values and the absolute percentage error; then the\n"
             "median and mean absolute percentage error per device family, per software stack, per\n"
             "stack and family, and overall, and the rows that miss most. JSON: {rows: [...],\n"
             "families: [...], stacks: [...], stack_families: [...], overall: {...}}.\n"
             "A CSV with calibration-llm.csv's header (seq_len, finetune columns) runs the transformer\n"
             "simulator instead (families: device generations; rules below).\n\n") +
         core::sim::kValidationRules + "\n" + core::sim::kLlmValidationRules;
}

}  // namespace

const std::string kValidateUsageText = usage();
const char* const kValidateUsage = kValidateUsageText.c_str();

int cmdValidate(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args);
  a.allowOnly({"reference", "format", "cpu-build", "stack", "help"});
  const std::string format = a.str("format", "text");
  if (format != "json" && format != "text") throw Error("--format: '" + format + "' is not one of text, json");
  const std::string path = a.required("reference");
  const std::string text = readOptionFile("--reference", path, core::util::kMaxReferenceCsvBytes);
  if (core::sim::isLlmReferenceCsv(text)) return validateLlm(a, path, text, out, err);
  auto rows = core::sim::parseReferenceCsv(text, path);
  core::sim::applyReadings(rows, core::sim::readRowReadings(core::sim::shippedRowReadingsPath()));
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  const std::string stackOverride = stackIdOption(a, stacks);
  const core::sim::Simulator sim(loadSimCatalog(false, err), stacks);
  const core::sim::ValidationResult v = core::sim::validateRows(sim, rows, cpuBuildOption(a), stackOverride);

  if (format == "json") {
    Json j = Json::object();
    Json list = Json::array();
    for (const auto& r : v.rows) {
      Json o = Json::object();
      o.set("id", r.row.id);
      o.set("family", r.family);
      o.set("stack", r.stack);
      o.set("metric", r.row.metric);
      o.set("published", r.row.value);
      if (r.ok) {
        o.set("predicted", r.predicted);
        o.set("abs_pct_error", std::round(r.absPctError * 100) / 100);
      } else {
        o.set("error", r.error);
      }
      o.set("explanation", r.explanation);
      if (!r.row.reading.empty()) o.set("reading", r.row.reading);
      list.push(o);
    }
    j.set("rows", list);
    setErrorSummaryJson(j, v, OomColumn::Shown);
    out << j.dump(2) << "\n";
    return 0;
  }

  out << std::left << std::setw(42) << "row" << std::setw(22) << "metric" << std::right << std::setw(11) << "published"
      << std::setw(11) << "predicted" << std::setw(9) << "error" << "\n";
  for (const auto& r : v.rows) {
    out << std::left << std::setw(42) << r.row.id << std::setw(22) << r.row.metric << std::right << std::setw(11)
        << fourDigits(r.row.value);
    if (!r.ok) {
      out << "  refused: " << r.error << "\n";
      continue;
    }
    out << std::setw(11) << fourDigits(r.predicted) << std::setw(8)
        << (r.row.metric == "oom" ? (r.absPctError == 0 ? "match" : "MISS") : fixedDigits(r.absPctError, 0) + "%") << "\n";
  }
  printErrorSummary(out, v, OomColumn::Shown);
  // The rows that miss most, with the simulator's own sentence about them.
  std::vector<const core::sim::RowResult*> worst;
  for (const auto& r : v.rows)
    if (r.ok && r.row.metric != "oom") worst.push_back(&r);
  std::sort(worst.begin(), worst.end(), [](auto* x, auto* y) { return x->absPctError > y->absPctError; });
  out << "\nLargest misses:\n";
  for (std::size_t i = 0; i < worst.size() && i < 8; ++i)
    out << "  " << worst[i]->row.id << " (" << fixedDigits(worst[i]->absPctError, 0) << "%): " << worst[i]->explanation
        << "\n";
  // Where a row's source left the hardware open, the reading taken (resources/calibration/readings.json).
  bool first = true;
  for (const auto& r : v.rows) {
    if (r.row.reading.empty()) continue;
    if (first) out << "\nReadings (hardware the source leaves open):\n";
    first = false;
    out << "  " << r.row.id << ": " << r.row.reading << "\n";
  }
  return 0;
}

}  // namespace app::cli

// accellab-cli fit-stacks: refit the software stacks' figures (resources/calibration/stack-fit.json).
namespace app::cli {

const char* const kFitStacksUsage =
    "Usage: accellab-cli fit-stacks --reference FILE [--spec FILE] [--check] [--write DIR [--force]]\n"
    "\n"
    "Fits the software stacks' free figures on a reference CSV (../shared/reference/calibration.csv)\n"
    "as the fit spec says (default: the shipped resources/calibration/stack-fit.json): per stack,\n"
    "a deterministic pattern search on the mean |log(predicted/published)| of the stack's rows,\n"
    "rows left out by the spec's rules (a model, a phrase in the note, unless a reading in\n"
    "resources/calibration/readings.json resolves it). Prints each fitted figure\n"
    "beside the shipped one, and each stack's objective before and after.\n"
    "  --check      exit 1 when a fitted figure differs from the shipped one by more than 0.5%\n"
    "  --write DIR  write the refitted stack files (same names) into DIR; existing files there are\n"
    "               refused unless --force, and the stack files read (resources/stacks, your own)\n"
    "               are never overwritten: write elsewhere and copy\n";

int cmdFitStacks(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  const Args a(args, {"help", "check", "force"});
  a.allowOnly({"reference", "spec", "check", "write", "force", "help"});
  const std::string ref = a.required("reference");
  const std::string refText = readOptionFile("--reference", ref, core::util::kMaxReferenceCsvBytes);
  const std::string specPath =
      a.str("spec", (fs::path(core::util::resourceDir()) / "calibration" / "stack-fit.json").string());
  const core::sim::FitSpec spec =
      core::sim::parseFitSpec(readOptionFile("--spec", specPath, core::util::kMaxDataFileBytes), specPath);
  const core::hw::StackCatalog shipped = loadSimStacks(err);
  // Where --write puts each stack, checked before the fit runs: never over an input.
  if (a.has("write")) {
    const std::string dir = a.required("write");
    std::vector<std::string> inputs = {ref, specPath};
    for (const auto& s : shipped.stacks())
      if (!s.filePath.empty()) inputs.push_back(s.filePath);
    for (const auto& s : shipped.stacks()) {
      const std::string path = (fs::path(dir) / (s.id + ".json")).string();
      core::util::checkOutputPath(path, inputs, a.flag("force"), kForceFlag);
    }
  }
  auto rows = core::sim::parseReferenceCsv(refText, ref);
  core::sim::applyReadings(rows, core::sim::readRowReadings(core::sim::shippedRowReadingsPath()));
  const core::sim::FitOutcome fit = core::sim::fitStacks(loadSimCatalog(false, err), shipped, rows, spec);
  out << std::left << std::setw(44) << "figure" << std::right << std::setw(12) << "shipped" << std::setw(12) << "fitted"
      << "\n";
  bool differs = false;
  for (const auto& f : fit.figures) {
    const auto& s = shipped.at(f.figure.stack);
    auto it = s.bySelector.find(f.figure.selector);
    const auto old = it == s.bySelector.end() ? std::nullopt : core::hw::figureValue(it->second, f.figure.key);
    const bool off = !old || std::abs(*old - f.value) > 0.005 * std::abs(f.value);
    differs = differs || off;
    out << std::left << std::setw(44) << f.figure.name() + (f.tied ? " (tie)" : "") << std::right << std::setw(12)
        << (old ? fourDigits(*old) : std::string("-")) << std::setw(12) << fourDigits(f.value) << (off ? "  *" : "") << "\n";
  }
  out << "\n" << std::left << std::setw(16) << "stack" << std::right << std::setw(6) << "rows" << std::setw(12) << "start"
      << std::setw(12) << "fitted" << std::setw(8) << "evals" << "   (mean |log(predicted/published)|)\n";
  for (const auto& s : fit.perStack)
    out << std::left << std::setw(16) << s.stack << std::right << std::setw(6) << s.rows << std::setw(12)
        << fixedDigits(s.objectiveStart, 4) << std::setw(12) << fixedDigits(s.objectiveFitted, 4) << std::setw(8) << s.evaluations
        << "\n";
  if (a.has("write")) {
    const std::string dir = a.str("write", "");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error("--write: " + dir + ": cannot create the folder: " + ec.message());
    for (const auto& s : fit.stacks.stacks()) {
      const std::string path = (fs::path(dir) / (s.id + ".json")).string();
      core::util::writeFileAtomic(path, core::hw::stackToJson(s).dump(2) + "\n");
    }
    out << "\nwrote " << fit.stacks.stacks().size() << " stack files to " << dir << "\n";
  }
  if (a.flag("check") && differs) {
    err << "accellab-cli fit-stacks: the fit does not reproduce the shipped figures (marked *)\n";
    return 1;
  }
  return 0;
}

}  // namespace app::cli
