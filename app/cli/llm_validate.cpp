// accellab-cli validate for calibration-llm.csv: the transformer simulator against published
// MLPerf, NeMo/Megatron, MaxText and NeuSight measurements.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/sim_options.h"
#include "app/cli/validation_report.h"
#include "core/sim/llm_validation.h"
#include "core/util/json.h"

namespace app::cli {
using core::util::Json;

int validateLlm(const Args& a, const std::string& path, const std::string& text, std::ostream& out, std::ostream& err) {
  const std::string format = a.str("format", "text");
  const auto rows = core::sim::parseLlmReferenceCsv(text, path);
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  const std::string stackOverride = stackIdOption(a, stacks);
  const core::sim::LlmValidationResult v =
      core::sim::validateLlmRows(loadSimCatalog(false, err), stacks, rows, stackOverride);
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
        if (r.publishedMfu > 0) o.set("published_mfu", std::round(r.publishedMfu * 1e4) / 1e4);
        o.set("chips", r.chips);
      } else {
        o.set("error", r.error);
      }
      o.set("plan", r.plan);
      o.set("explanation", r.explanation);
      list.push(o);
    }
    j.set("rows", list);
    setErrorSummaryJson(j, v, OomColumn::Omitted);
    j.set("unsupported", v.unsupported);
    out << j.dump(2) << "\n";
    return 0;
  }
  // The id column as wide as the longest id (a row's id never runs into its metric).
  int idWidth = 26;
  for (const auto& r : v.rows) idWidth = std::max(idWidth, static_cast<int>(r.row.id.size()) + 2);
  out << std::left << std::setw(idWidth) << "row" << std::setw(19) << "metric" << std::right << std::setw(11) << "published"
      << std::setw(11) << "predicted" << std::setw(7) << "error" << "  plan\n";
  for (const auto& r : v.rows) {
    out << std::left << std::setw(idWidth) << r.row.id << std::setw(19) << r.row.metric << std::right << std::setw(11)
        << fourDigits(r.row.value);
    if (!r.ok) {
      out << "  refused: " << r.error << "\n";
      continue;
    }
    out << std::setw(11) << fourDigits(r.predicted) << std::setw(6) << fixedDigits(r.absPctError, 0) << "%  " << r.plan << "\n";
  }
  printErrorSummary(out, v, OomColumn::Omitted);
  out << "\nunsupported rows: " << v.unsupported << " of " << v.rows.size() << "\n";
  return 0;
}

}  // namespace app::cli
