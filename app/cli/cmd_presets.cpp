// accellab-cli presets: the presets' published comparisons, checked headlessly (the same
// evaluation as the app's Guide: core/experiment/comparison.h).
#include <cmath>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/sim_options.h"
#include "core/experiment/comparison.h"
#include "core/hw/device_spec.h"
#include "core/sim/simulator.h"
#include "core/util/error.h"
#include "core/util/json.h"

namespace app::cli {

using core::util::Error;
using core::util::Json;

const char* const kPresetsUsage =
    "Usage: accellab-cli presets check [--dir DIR] [--preset ID] [--format text|json]\n"
    "\n"
    "Re-computes every preset's published comparisons with the simulator, at the preset's own\n"
    "settings and devices (as the app's Guide does), and says for each row whether AccelLab\n"
    "agrees with the published figure within the row's tolerance. Exits 1 when a row neither\n"
    "agrees nor carries an explanation (its known cause), or when a preset file cannot be read;\n"
    "0 otherwise.\n"
    "  --dir DIR          check the presets of DIR only (default: the shipped presets and your own,\n"
    "                     <user data dir>/presets; yours replace a shipped one of the same id)\n"
    "  --preset ID        check one preset (its id, or a unique prefix)\n"
    "  --format F         text (default): one line per row; json: an array of presets, each with\n"
    "                     id, file and rows {label, published, accellab, error, tolerance, agrees,\n"
    "                     explanation, passes, text}\n";

int cmdPresets(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args);
  a.allowOnly({"dir", "preset", "format", "help"});
  if (a.positional().size() != 1 || a.positional()[0] != "check")
    throw Error("presets: expected the subcommand `check` (accellab-cli presets check --help)");
  const std::string format = a.str("format", "text");
  if (format != "json" && format != "text") throw Error("--format: '" + format + "' is not one of text, json");

  core::experiment::PresetLibrary library;
  if (a.has("dir")) library.load(a.str("dir", ""), "");
  else library.load();
  bool failed = false;
  for (const std::string& e : library.errors()) {
    err << "accellab-cli presets: " << e << "\n";
    failed = true;
  }
  std::vector<const core::experiment::Preset*> presets;
  if (a.has("preset")) {
    const std::string id = a.str("preset", "");
    const core::experiment::Preset* p = library.find(id);
    if (!p) throw Error("--preset: no preset '" + id + "' (or more than one starts so)");
    presets.push_back(p);
  } else {
    for (const auto& p : library.presets()) presets.push_back(&p);
  }
  if (presets.empty() && library.errors().empty())
    err << "accellab-cli presets: warning: no preset found" << (a.has("dir") ? " in " + a.str("dir", "") : "") << "\n";

  // This machine (measured once, then cached) only when a row names it.
  bool wantHost = false;
  for (const core::experiment::Preset* p : presets)
    for (const auto& d : core::experiment::comparisonDevices(*p)) wantHost = wantHost || d.deviceId == core::hw::kHostDeviceId;
  const core::hw::DeviceCatalog catalog = loadSimCatalog(wantHost, err);
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  const core::sim::Simulator sim(catalog, stacks);
  Json all = Json::array();
  int rows = 0, agree = 0, failing = 0;
  for (const core::experiment::Preset* p : presets) {
    const std::vector<core::experiment::ComparisonOutcome> outcomes = core::experiment::evaluatePreset(sim, *p);
    Json rowsJson = Json::array();
    for (std::size_t i = 0; i < p->comparisons.size(); ++i) {
      const core::experiment::Comparison& c = p->comparisons[i];
      const core::experiment::ComparisonOutcome& o = outcomes[i];
      const bool passes = core::experiment::comparisonPasses(c, o);
      ++rows;
      agree += o.agrees;
      if (!passes) {
        ++failing;
        failed = true;
      }
      const std::string text = core::experiment::outcomeText(o, c);
      if (format == "text") {
        out << p->id << " | " << c.label << " | published " << core::experiment::publishedFigureText(c) << " | AccelLab "
            << text;
        if (std::isfinite(o.error)) out << " | error " << fmt(100 * o.error, 2) << "%";
        out << " | tolerance ±" << fmt(100 * c.toleranceOrDefault(), 2) << "% | "
            << (o.agrees ? "agrees" : !c.explanation.empty() ? "disagrees, explained: " + c.explanation
                                                             : "FAILS: disagrees and gives no explanation")
            << "\n";
      } else {
        Json r = Json::object();
        r.set("label", c.label);
        r.set("metric", c.metric == core::experiment::Comparison::Metric::Fits ? "fits" : "speedup");
        r.set("published", c.published);
        r.set("accellab", o.ok() ? Json(o.value) : Json());
        r.set("text", text);
        r.set("error", std::isfinite(o.error) ? Json(o.error) : Json());
        r.set("tolerance", c.toleranceOrDefault());
        r.set("agrees", o.agrees);
        r.set("explanation", c.explanation);
        r.set("passes", passes);
        rowsJson.push(std::move(r));
      }
    }
    if (format == "json") {
      Json pj = Json::object();
      pj.set("id", p->id);
      pj.set("file", p->filePath);
      pj.set("rows", std::move(rowsJson));
      all.push(std::move(pj));
    }
  }
  if (format == "json") out << all.dump(2) << "\n";
  err << "accellab-cli presets check: " << agree << " of " << rows << " rows agree; " << failing
      << " neither agree nor carry an explanation; " << library.errors().size() << " preset file(s) not read\n";
  return failed ? 1 : 0;
}

}  // namespace app::cli
