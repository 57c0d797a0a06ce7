#include "core/sim/error_band.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include "core/nn/transformer_spec.h"
#include "core/nn/zoo.h"
#include "core/sim/validation.h"
#include "core/util/csv.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/numbers.h"

namespace core::sim {
namespace {

using util::Error;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The errors of the rows `keep` accepts (a row the simulator refused, or an out-of-memory row,
// has none: those are counted apart).
template <class Keep>
std::vector<double> errorsWhere(const HeldOutErrors& e, Keep keep) {
  std::vector<double> out;
  for (const auto& r : e.rows)
    if (r.absPctError && r.metric != "oom" && keep(r)) out.push_back(*r.absPctError);
  return out;
}

// A cell's number, strictly (the whole cell, finite, within [lo, hi]); else an error naming the
// file, line, column and what it must be.
double numberIn(const std::string& cell, const std::string& at, const char* column, double lo, double hi,
                const char* what) {
  try {
    std::size_t used = 0;
    const double x = std::stod(cell, &used);
    if (used == cell.size() && std::isfinite(x) && x >= lo && x <= hi) return x;
  } catch (const std::exception&) {
  }
  throw Error(at + ": " + column + ": '" + cell.substr(0, 24) + "' is not " + what);
}

std::string wholePercent(double pct) { return std::to_string(static_cast<int>(std::lround(pct))) + "%"; }
std::string bandPercent(double pct) { return "±" + wholePercent(pct); }

}  // namespace

std::string ErrorBand::percent() const { return known() ? bandPercent(pct) : ""; }

std::string ErrorBand::label() const {
  if (!known()) return "";
  return calibrated ? percent() : percent() + ", uncalibrated";
}

std::string ErrorBand::text() const {
  if (!known()) return "";
  const std::string n = "n=" + std::to_string(rows);
  if (calibrated) return percent() + " (median held-out error of " + scope + ", " + n + ")";
  const std::string own = ownRows == 0 ? "no measured " : "only " + std::to_string(ownRows) + " measured ";
  const std::string miss =
      ownWorstPct > rowsMedianPct ? (ownRows == 1 ? ", off by " : ", off by up to ") + wholePercent(ownWorstPct) : "";
  return percent() + " uncalibrated: " + own + (workload == "transformer" ? "transformer" : "CNN/RNN") +
         (ownRows == 1 ? " row for " : " rows for ") + generation + " under " + stackId + miss + "; " + scope + ": " +
         bandPercent(rowsMedianPct) + " (" + n + ")";
}

HeldOutErrors parseHeldOutErrors(const std::string& text, const std::string& path, const hw::DeviceCatalog& devices) {
  std::vector<int> lines;
  const auto table = util::parseCsv(text, path, lines);
  if (table.empty()) throw Error(path + ": empty file (expected id,reference,model,stack,device,metric,abs_pct_error)");
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < table[0].size(); ++i) col[table[0][i]] = i;
  for (const char* name : {"id", "reference", "model", "stack", "device", "metric", "abs_pct_error"})
    if (!col.count(name)) throw Error(path + ":1: missing column '" + name + "'");
  HeldOutErrors out;
  out.path = path;
  for (std::size_t r = 1; r < table.size(); ++r) {
    const auto& f = table[r];
    const std::string at = path + ":" + std::to_string(lines[r]);
    if (f.size() != table[0].size())
      throw Error(at + ": " + std::to_string(f.size()) + " fields, the header has " + std::to_string(table[0].size()));
    auto field = [&](const char* name) { return f[col.at(name)]; };
    HeldOutRow row;
    row.line = lines[r];
    row.id = field("id");
    row.reference = field("reference");
    row.stack = field("stack");
    row.device = field("device");
    row.metric = field("metric");
    row.model = field("model");
    row.workload = workloadOfModel(row.model);
    const hw::DeviceSpec* d = devices.find(row.device);
    if (!d) throw Error(at + ": device: '" + row.device + "' is not in the device catalog");
    row.generation = hw::generationOf(*d);
    row.kind = d->kind;
    if (const std::string e = field("abs_pct_error"); !e.empty())
      row.absPctError = numberIn(e, at, "abs_pct_error", 0, 1e6, "a percentage from 0 to 1000000 (or empty)");
    // Optional columns of the transformer rows.
    if (col.count("published_mfu") && !field("published_mfu").empty()) {
      row.publishedMfu = numberIn(field("published_mfu"), at, "published_mfu", 0, 1, "a fraction in (0, 1]");
      if (row.publishedMfu <= 0)
        throw Error(at + ": published_mfu: '" + field("published_mfu").substr(0, 24) + "' is not a fraction in (0, 1]");
    }
    if (col.count("chips") && !field("chips").empty()) {
      try {
        std::size_t used = 0;
        const long long x = std::stoll(field("chips"), &used);
        if (used != field("chips").size() || x < 1 || x > (1 << 24)) throw std::exception();
        row.chips = static_cast<int>(x);
      } catch (const std::exception&) {
        throw Error(at + ": chips: '" + field("chips").substr(0, 24) + "' is not a whole number from 1 to 16777216");
      }
    }
    if (row.publishedMfu > 0 && row.chips == 0) throw Error(at + ": published_mfu: needs the row's chips");
    const auto& zoo = nn::modelCatalog();
    if (!nn::findTransformer(row.model) &&
        std::none_of(zoo.begin(), zoo.end(), [&](const nn::ModelInfo& m) { return m.id == row.model; }))
      throw Error(at + ": model: '" + row.model + "' is not a model AccelLab knows");
    for (const auto& other : out.rows)
      if (other.id == row.id && other.reference == row.reference)
        throw Error(at + ": id: '" + row.id + "' appears twice for " + row.reference + " (line " + std::to_string(other.line) + ")");
    out.rows.push_back(std::move(row));
  }
  return out;
}

HeldOutErrors readHeldOutErrors(const std::string& path, const hw::DeviceCatalog& devices) {
  return parseHeldOutErrors(util::readFile(path, util::kMaxReferenceCsvBytes), path, devices);
}

std::string shippedHeldOutErrorsPath() {
  return (std::filesystem::path(util::resourceDir()) / "calibration" / "held-out-errors.csv").string();
}

std::string workloadOfModel(const std::string& modelId) {
  return nn::findTransformer(modelId) ? "transformer" : "CNN/RNN";
}

ErrorBand errorBandFor(const HeldOutErrors& errors, const std::string& modelId, const std::string& stackId,
                       const hw::DeviceSpec& device) {
  ErrorBand b;
  if (device.measured) return b;
  b.stackId = stackId;
  b.generation = hw::generationOf(device);
  b.workload = workloadOfModel(modelId);
  const std::string what = b.workload == "transformer" ? "transformers" : "CNNs/RNNs";
  const auto own = errorsWhere(errors, [&](const HeldOutRow& r) {
    return r.workload == b.workload && r.stack == stackId && r.generation == b.generation;
  });
  b.ownRows = static_cast<int>(own.size());
  if (b.ownRows >= kMinBandRows) {
    b.calibrated = true;
    b.rows = static_cast<int>(own.size());
    b.pct = b.rowsMedianPct = median(own);
    b.scope = what + " under " + stackId + " on " + b.generation;
    return b;
  }
  // Too few to be a band, but never a band narrower than what they show.
  for (double e : own) b.ownWorstPct = std::max(b.ownWorstPct, e);
  const auto sameStack = errorsWhere(errors, [&](const HeldOutRow& r) {
    return r.workload == b.workload && r.stack == stackId && r.kind == device.kind;
  });
  if (static_cast<int>(sameStack.size()) >= kMinBandRows) {
    b.rows = static_cast<int>(sameStack.size());
    b.rowsMedianPct = median(sameStack);
    b.scope = what + " on all " + hw::deviceKindPlural(device.kind) + " under this stack";
    b.pct = std::max(b.rowsMedianPct, b.ownWorstPct);
    return b;
  }
  const auto sameKind =
      errorsWhere(errors, [&](const HeldOutRow& r) { return r.workload == b.workload && r.kind == device.kind; });
  if (!sameKind.empty()) {
    b.rows = static_cast<int>(sameKind.size());
    b.rowsMedianPct = median(sameKind);
    b.scope = what + " on all " + hw::deviceKindPlural(device.kind) + " under every stack";
    b.pct = std::max(b.rowsMedianPct, b.ownWorstPct);
  }
  return b;
}

std::optional<MfuCeiling> publishedMfuCeiling(const HeldOutErrors& errors, int chips, hw::DeviceKind kind) {
  std::optional<MfuCeiling> best;
  for (const auto& r : errors.rows) {
    if (r.publishedMfu <= 0 || r.chips <= 0 || r.kind != kind) continue;
    if (r.chips * 8 < chips || r.chips > chips * 8) continue;  // another scale
    if (!best || r.publishedMfu > best->mfu) best = MfuCeiling{r.publishedMfu, r.chips, r.id, r.model, r.stack, r.device};
  }
  return best;
}

std::string mfuCaution(const HeldOutErrors& errors, double predictedMfu, int chips, hw::DeviceKind kind) {
  const auto ceiling = publishedMfuCeiling(errors, chips, kind);
  if (!ceiling || predictedMfu <= ceiling->mfu + 0.02) return "";
  return "MFU " + util::percentText(predictedMfu) + " is above the highest published figure AccelLab knows at this scale: " +
         util::percentText(ceiling->mfu) + " (" + ceiling->id + ", " + ceiling->model + " on " +
         std::to_string(ceiling->chips) + " " +
         ceiling->device + " chips under " + ceiling->stack + "); treat it as an upper bound";
}

util::Json errorBandToJson(const ErrorBand& band) {
  util::Json b = util::Json::object();
  b.set("band_pct", std::round(band.pct * 10) / 10);
  b.set("median_abs_pct_error", std::round(band.rowsMedianPct * 10) / 10);  // of the rows it quotes
  b.set("rows", band.rows);
  b.set("scope", band.scope);
  b.set("calibrated", band.calibrated);
  b.set("text", band.text());
  return b;
}

HeldOutErrors heldOutFromValidation(const ValidationResult& v, const std::string& reference,
                                    const hw::DeviceCatalog& devices) {
  HeldOutErrors out;
  out.path = reference;
  for (const auto& r : v.rows) {
    HeldOutRow h;
    h.id = r.row.id;
    h.reference = reference;
    h.stack = r.stack.empty() ? r.row.a.stack : r.stack;
    h.model = r.row.model;
    h.workload = workloadOfModel(h.model);
    h.device = r.row.a.device;
    h.metric = r.row.metric;
    const hw::DeviceSpec* d = devices.find(h.device);
    h.generation = d ? hw::generationOf(*d) : h.device;
    h.kind = d ? d->kind : hw::DeviceKind::Gpu;
    if (r.ok) h.absPctError = r.absPctError;
    h.line = r.row.line;
    out.rows.push_back(std::move(h));
  }
  return out;
}

Scoreboard scoreboardOf(const HeldOutErrors& errors, int misses) {
  Scoreboard s;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> groups;
  std::map<std::string, std::vector<double>> workloads;
  std::vector<double> all;
  for (const auto& r : errors.rows) {
    if (r.metric == "oom") continue;
    if (!r.absPctError) {
      ++s.refused;
      continue;
    }
    groups[{r.workload, r.stack, r.generation}].push_back(*r.absPctError);
    workloads[r.workload].push_back(*r.absPctError);
    all.push_back(*r.absPctError);
    s.largestMisses.push_back(&r);
  }
  auto group = [](std::string w, std::string st, std::string g, const std::vector<double>& v) {
    BandGroup b{std::move(w), std::move(st), std::move(g), static_cast<int>(v.size()), median(v), 0};
    for (double x : v) b.meanAbsPct += x / static_cast<double>(v.size());
    return b;
  };
  for (const auto& [k, v] : groups) s.groups.push_back(group(std::get<0>(k), std::get<1>(k), std::get<2>(k), v));
  for (const auto& [k, v] : workloads) s.workloads.push_back(group(k, "", "", v));
  if (!all.empty()) s.workloads.push_back(group("all", "", "", all));
  // Each workload's own worst rows (the CNN rows outnumber the transformers' and would crowd
  // them out of one list), workload by workload.
  std::stable_sort(s.largestMisses.begin(), s.largestMisses.end(), [](const HeldOutRow* a, const HeldOutRow* b) {
    return a->workload != b->workload ? a->workload < b->workload : *a->absPctError > *b->absPctError;
  });
  std::map<std::string, int> kept;
  std::vector<const HeldOutRow*> worst;
  for (const HeldOutRow* r : s.largestMisses)
    if (++kept[r->workload] <= misses) worst.push_back(r);
  s.largestMisses = std::move(worst);
  return s;
}

}  // namespace core::sim
