#include "core/sim/validation.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/sim/simulator.h"
#include "core/util/csv.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace core::sim {

const char* const kValidationRules =
    "How a row becomes a simulation (the rules read the row's tolerance_note):\n"
    "  build=pip | build=compiled  CPU rows: TensorFlow without AVX2/FMA kernels (pip, 2017) or\n"
    "                              compiled for the machine; no token: --cpu-build (default compiled).\n"
    "  'validation'                each epoch also runs a forward pass over the test split\n"
    "                              (e.g. \"epoch = 60k train + 10k validation pass\").\n"
    "  'N epochs'                  a run of N epochs, the first one with compilation/warm-up\n"
    "                              (\"wall time of 12 epochs incl. compile\"); else\n"
    "                              'epochs to target=N' (MLPerf) or 'at epoch N'.\n"
    "  'excludes init'             the run's time leaves out compilation/warm-up (MLPerf).\n"
    "  'steps_per_epoch=N'         each epoch is N steps instead of a pass over the train split\n"
    "                              (\"5 epochs x steps_per_epoch=100\" = 500 steps).\n"
    "  'N-step run'                one run of N steps including the first-step compilation.\n"
    "  'N images' + 'run average'  images_per_second = N / run time, the run being N / batch steps\n"
    "                              (with compilation, and validation if named).\n"
    "Metrics: step_seconds, images_per_second (steady state unless 'run average'), epoch_seconds\n"
    "(steady), first_epoch_seconds (steady + compilation), time_to_train_seconds (the run),\n"
    "ratio = time of the vs_* configuration / time of the row's configuration, both as the run\n"
    "the note describes (N epochs, N-step run) or, when it names none, per image in steady\n"
    "state; oom: 1 = does not fit, 0 = fits (counted apart, not in the percentages).\n"
    "Stacks: each configuration runs the software stack of its row's stack / vs_stack column\n"
    "(empty: the device kind's default); --stack ID runs every row under one stack.\n"
    "Readings: where a row's note says the source leaves its hardware open, the reading in\n"
    "resources/calibration/readings.json applies (e.g. Kaggle's CPU session as 4 vCPUs); the\n"
    "text output lists them.\n"
    "Error = |predicted - published| / published. Families: cpu (cpu-skylake), each GPU by id,\n"
    "tpu (all TPU boards); the same per stack.\n";

namespace {

using util::Error;

int intField(const std::string& v, const std::string& where, int fallback) {
  if (v.empty()) return fallback;
  try {
    std::size_t used = 0;
    const long long x = std::stoll(v, &used);
    if (used != v.size() || x < 0) throw std::invalid_argument(v);
    if (x > 100000000) throw Error(where + ": " + v + " is larger than 100,000,000");
    return static_cast<int>(x);
  } catch (const Error&) {
    throw;
  } catch (const std::out_of_range&) {
    throw Error(where + ": " + (v.size() <= 24 ? v : v.substr(0, 12) + "...") + " is larger than 100,000,000");
  } catch (const std::exception&) {
    throw Error(where + ": '" + v + "' is not a whole number");
  }
}

double realField(const std::string& v, const std::string& where) {
  try {
    std::size_t used = 0;
    const double x = std::stod(v, &used);
    if (used != v.size() || !std::isfinite(x)) throw std::invalid_argument(v);
    return x;
  } catch (const std::exception&) {
    throw Error(where + ": '" + v + "' is not a number");
  }
}

util::Precision precisionField(const std::string& v, const std::string& where) {
  if (v.empty()) return util::Precision::FP32;
  const auto p = util::parsePrecision(v);
  if (!p) throw Error(where + ": unknown precision '" + v + "' (fp32, tf32, fp16, bf16, fp8)");
  return *p;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

ErrorStats summarise(const std::string& family, const std::vector<const SummaryRow*>& rows) {
  ErrorStats s;
  s.family = family;
  std::vector<double> errs;
  for (const SummaryRow* r : rows) {
    if (r->oom) {
      ++s.oomRows;
      if (r->ok && r->absPctError == 0) ++s.oomMatched;
      continue;
    }
    if (!r->ok) continue;
    errs.push_back(r->absPctError);
  }
  s.rows = static_cast<int>(errs.size());
  s.medianAbsPct = median(errs);
  double sum = 0;
  for (double e : errs) sum += e;
  s.meanAbsPct = errs.empty() ? 0 : sum / static_cast<double>(errs.size());
  return s;
}

struct RunFigures {
  SimReport report;
  double runSeconds = 0;       // the run the note describes
  double secondsPerImage = 0;  // steady
};

SimConfig configFor(const ReferenceRow& row, const RowConfig& rc, const NoteRules& rules, CpuBuild build,
                    const std::string& stackOverride) {
  SimConfig c;
  c.modelId = row.model;
  c.datasetId = row.dataset;
  c.deviceId = rc.device;
  c.vcpus = rc.vcpus;
  c.count = std::max(1, rc.count);
  c.batch = rc.batch;
  c.precision = rc.precision;
  c.perLayer = false;  // validation needs the step, not the per-layer table
  c.stackId = stackOverride.empty() ? rc.stack : stackOverride;
  c.cpuBuild = rules.build.value_or(build);
  c.evalEachEpoch = rules.validation;
  c.epochs = std::max(1, rules.epochs);
  if (rules.stepsPerEpoch > 0) c.stepsPerEpoch = rules.stepsPerEpoch;
  if (rules.totalSteps > 0) {
    c.epochs = 1;
    c.stepsPerEpoch = rules.totalSteps;
  } else if (rules.images > 0 && rules.epochs == 0 && rules.stepsPerEpoch == 0 && rc.batch > 0) {
    c.epochs = 1;
    c.stepsPerEpoch = (rules.images + rc.batch - 1) / rc.batch;
  }
  return c;
}

RunFigures run(const Simulator& sim, const SimConfig& c, bool excludesInit) {
  RunFigures f;
  f.report = sim.simulate(c);
  f.runSeconds = f.report.runSeconds - (excludesInit ? f.report.compileSeconds : 0.0);
  f.secondsPerImage = f.report.stepSeconds / c.batch;
  return f;
}

}  // namespace

namespace {

// Notes are free text: they are scanned by hand (no backtracking regex). A count is the whole
// number written right before a suffix ("12 epochs") or right after a prefix ("at epoch 64"),
// read as the number it is: "-1 epochs", "1.5 epochs" and "1e308 epochs" are refused, not read
// as 1, 5 and 308; a number longer than 15 digits is refused rather than trusted.
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNumberChar(char c, bool commas) {
  return isDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' || (commas && c == ',');
}

// What a count is, for messages, and the largest a note may state.
struct CountKind {
  const char* name;  // "epochs"
  std::int64_t max;
};
constexpr CountKind kEpochs{"epochs", 1000000};
constexpr CountKind kSteps{"steps", 999999999999999};
constexpr CountKind kImages{"images", 999999999999999};

// The count in `token` (the characters around a suffix or prefix that can belong to a number),
// or 0 when it holds no digit. `written` is the note's text for messages ("-1 epochs").
std::int64_t countIn(std::string token, const std::string& written, const CountKind& kind, bool commas) {
  // Letters and separators at the edges are not the number's: "the 12" scans back as "e12",
  // "at epoch 64." forward as "64.".
  token.erase(0, std::min(token.size(), token.find_first_not_of("eE,")));
  while (!token.empty() && !isDigit(token.back())) token.pop_back();
  if (token.empty()) return 0;
  std::string plain;
  for (const char c : token)
    if (c != ',' || !commas) plain += c;
  const std::string shown = "'" + (written.size() <= 40 ? written : written.substr(0, 24) + "...") + "'";
  const std::string rule = " is not a count of " + std::string(kind.name) + " from 1 to " + std::to_string(kind.max);
  std::int64_t v = 0;
  if (plain.find_first_not_of("0123456789") == std::string::npos) {
    if (plain.size() > 15)
      throw Error("tolerance_note: the number in " + shown + " has " + std::to_string(plain.size()) +
                  " digits (at most 15)");
    v = std::stoll(plain);
  } else {
    // A sign, a decimal point or an exponent: read the whole number, then judge it.
    double x = 0;
    const char* first = plain.data() + (plain.front() == '+' ? 1 : 0);
    const auto res = std::from_chars(first, plain.data() + plain.size(), x);
    if (res.ec != std::errc() || res.ptr != plain.data() + plain.size() || !std::isfinite(x) || x < 1 ||
        x > static_cast<double>(kind.max) || x != std::floor(x))
      throw Error("tolerance_note: " + shown + rule);
    v = static_cast<std::int64_t>(x);
  }
  if (v < 1 || v > kind.max) throw Error("tolerance_note: " + shown + rule);
  return v;
}

// The first count written right before `suffix` (commas allowed inside when `commas`).
std::int64_t numberBefore(const std::string& note, const std::string& suffix, const CountKind& kind,
                          bool commas = false) {
  for (std::size_t at = note.find(suffix); at != std::string::npos; at = note.find(suffix, at + 1)) {
    std::size_t b = at;
    while (b > 0 && isNumberChar(note[b - 1], commas)) --b;
    const std::string token = note.substr(b, at - b);
    if (const std::int64_t v = countIn(token, token + suffix, kind, commas)) return v;
  }
  return 0;
}

// The first count written right after `prefix`.
std::int64_t numberAfter(const std::string& note, const std::string& prefix, const CountKind& kind) {
  for (std::size_t at = note.find(prefix); at != std::string::npos; at = note.find(prefix, at + 1)) {
    std::size_t e = at + prefix.size();
    while (e < note.size() && isNumberChar(note[e], false)) ++e;
    const std::string token = note.substr(at + prefix.size(), e - at - prefix.size());
    if (const std::int64_t v = countIn(token, prefix + token, kind, false)) return v;
  }
  return 0;
}

}  // namespace

NoteRules parseNote(const std::string& note) {
  NoteRules r;
  std::int64_t epochs = numberBefore(note, " epochs", kEpochs);
  if (epochs == 0) epochs = numberAfter(note, "epochs to target=", kEpochs);
  if (epochs == 0) epochs = numberAfter(note, "at epoch ", kEpochs);
  r.epochs = static_cast<int>(epochs);  // at most kEpochs.max
  r.stepsPerEpoch = numberAfter(note, "steps_per_epoch=", kSteps);
  r.totalSteps = numberBefore(note, "-step run", kSteps);
  r.images = numberBefore(note, " images", kImages, true);
  if (note.find("build=pip") != std::string::npos) r.build = CpuBuild::Pip;
  else if (note.find("build=compiled") != std::string::npos) r.build = CpuBuild::Compiled;
  r.validation = note.find("validation") != std::string::npos;
  r.runAverage = note.find("run average") != std::string::npos;
  r.excludesInit = note.find("excludes init") != std::string::npos;
  return r;
}

std::vector<ReferenceRow> parseReferenceCsv(const std::string& text, const std::string& path) {
  std::vector<int> lines;
  const auto table = util::parseCsv(text, path, lines);
  if (table.empty()) throw Error(path + ": empty file");
  const std::vector<std::string> want = {"id", "model", "dataset", "device", "vcpus", "count", "batch", "precision",
                                         "metric", "value", "vs_device", "vs_vcpus", "vs_count", "vs_batch",
                                         "vs_precision", "tolerance_note", "source"};
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < table[0].size(); ++i) col[table[0][i]] = i;
  for (const auto& w : want)
    if (!col.count(w)) throw Error(path + ":1: missing column '" + w + "'");
  const bool hasStack = col.count("stack") > 0, hasVsStack = col.count("vs_stack") > 0;
  static const std::vector<std::string> metrics = {"images_per_second", "epoch_seconds", "first_epoch_seconds",
                                                   "step_seconds", "ratio", "oom", "time_to_train_seconds"};
  std::vector<ReferenceRow> rows;
  for (std::size_t i = 1; i < table.size(); ++i) {
    const auto& t = table[i];
    const std::string where = path + ":" + std::to_string(lines[i]);
    if (t.size() != table[0].size())
      throw Error(where + ": " + std::to_string(t.size()) + " fields, the header has " + std::to_string(table[0].size()));
    auto get = [&](const std::string& k) -> const std::string& { return t[col[k]]; };
    ReferenceRow r;
    r.line = lines[i];
    r.id = get("id");
    r.model = get("model");
    r.dataset = get("dataset");
    r.metric = get("metric");
    r.note = get("tolerance_note");
    r.source = get("source");
    if (std::find(metrics.begin(), metrics.end(), r.metric) == metrics.end())
      throw Error(where + ": column 'metric': unknown metric '" + r.metric + "'");
    r.a.device = get("device");
    r.a.vcpus = intField(get("vcpus"), where + ": column 'vcpus'", 0);
    r.a.count = intField(get("count"), where + ": column 'count'", 1);
    r.a.batch = intField(get("batch"), where + ": column 'batch'", 0);
    r.a.precision = precisionField(get("precision"), where + ": column 'precision'");
    if (hasStack) r.a.stack = get("stack");
    r.value = realField(get("value"), where + ": column 'value'");
    if (r.metric == "ratio") {
      if (get("vs_device").empty()) throw Error(where + ": column 'vs_device': a ratio row needs the compared configuration");
      RowConfig b;
      b.device = get("vs_device");
      b.vcpus = intField(get("vs_vcpus"), where + ": column 'vs_vcpus'", 0);
      b.count = intField(get("vs_count"), where + ": column 'vs_count'", 1);
      b.batch = intField(get("vs_batch"), where + ": column 'vs_batch'", r.a.batch);
      b.precision = precisionField(get("vs_precision"), where + ": column 'vs_precision'");
      b.stack = hasVsStack && !get("vs_stack").empty() ? get("vs_stack") : r.a.stack;
      r.b = b;
    }
    if (r.metric != "oom" && !(r.value > 0)) throw Error(where + ": column 'value': must be positive");
    try {
      parseNote(r.note);  // a note that states an impossible run is refused here, naming the row
    } catch (const Error& e) {
      throw Error(where + ": row '" + r.id + "': column " + e.what());
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string shippedCalibrationCsv() {
  return (std::filesystem::path(util::resourceDir()) / "calibration" / "calibration.csv").string();
}

std::vector<ReferenceRow> readReferenceCsv(const std::string& path) {
  return parseReferenceCsv(util::readFile(path, util::kMaxReferenceCsvBytes), path);
}

std::string deviceFamily(const std::string& id) {
  if (id.rfind("cpu", 0) == 0) return "cpu";
  if (id.rfind("tpu", 0) == 0) return "tpu";
  return id;
}

ValidationResult validateRows(const Simulator& sim, const std::vector<ReferenceRow>& rows, CpuBuild defaultBuild,
                              const std::string& stackOverride) {
  ValidationResult out;
  for (const auto& row : rows) {
    RowResult r;
    r.row = row;
    r.family = deviceFamily(row.a.device);
    try {
      const NoteRules rules = parseNote(row.note);
      const RunFigures a = run(sim, configFor(row, row.a, rules, defaultBuild, stackOverride), rules.excludesInit);
      r.stack = a.report.config.stackId;
      r.explanation = a.report.explanation;
      const SimReport& rep = a.report;
      if (row.metric == "oom") {
        r.predicted = rep.fitsInMemory ? 0 : 1;
        r.absPctError = r.predicted == row.value ? 0 : 100;
      } else {
        if (row.metric == "images_per_second") {
          r.predicted = rules.runAverage
                            ? static_cast<double>(rep.stepsPerEpoch) * rep.config.epochs * rep.config.batch / rep.runSeconds
                            : rep.imagesPerSecond;
        } else if (row.metric == "epoch_seconds") {
          r.predicted = rep.epochSeconds;
        } else if (row.metric == "first_epoch_seconds") {
          r.predicted = rep.firstEpochSeconds;
        } else if (row.metric == "step_seconds") {
          r.predicted = rep.stepSeconds;
        } else if (row.metric == "time_to_train_seconds") {
          r.predicted = a.runSeconds;
        } else {  // ratio
          const RunFigures b = run(sim, configFor(row, *row.b, rules, defaultBuild, stackOverride), rules.excludesInit);
          const bool wholeRun = rules.epochs > 0 || rules.totalSteps > 0;
          r.predicted = wholeRun ? b.runSeconds / a.runSeconds : b.secondsPerImage / a.secondsPerImage;
        }
        r.absPctError = std::abs(r.predicted - row.value) / row.value * 100.0;
      }
    } catch (const std::exception& e) {
      r.ok = false;
      r.error = e.what();
    }
    out.rows.push_back(std::move(r));
  }
  std::vector<SummaryRow> summary;
  for (const auto& r : out.rows)
    summary.push_back({r.family, r.stack.empty() ? r.row.a.stack : r.stack, r.ok, r.row.metric == "oom", r.absPctError});
  static_cast<ErrorSummary&>(out) = summariseErrors(summary, "overall");
  return out;
}

ErrorSummary summariseErrors(const std::vector<SummaryRow>& rows, const std::string& overallName) {
  std::map<std::string, std::vector<const SummaryRow*>> byFamily, byStack, byStackFamily;
  std::vector<const SummaryRow*> all;
  for (const auto& r : rows) {
    byFamily[r.family].push_back(&r);
    byStack[r.stack].push_back(&r);
    byStackFamily[r.stack + " / " + r.family].push_back(&r);
    all.push_back(&r);
  }
  ErrorSummary out;
  for (const auto& [family, list] : byFamily) out.families.push_back(summarise(family, list));
  for (const auto& [stack, list] : byStack) out.stacks.push_back(summarise(stack, list));
  for (const auto& [key, list] : byStackFamily) out.stackFamilies.push_back(summarise(key, list));
  out.overall = summarise(overallName, all);
  return out;
}

}  // namespace core::sim
