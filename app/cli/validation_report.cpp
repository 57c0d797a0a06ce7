#include "app/cli/validation_report.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "app/cli/sim_options.h"

namespace app::cli {

using core::util::Json;

std::string fixedDigits(double v, int digits) {
  if (!(std::abs(v) < 1e15)) return fmt(v, 4);
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

std::string fourDigits(double v) {
  std::ostringstream os;
  os << std::setprecision(4) << v;
  return os.str();
}

void printErrorSummary(std::ostream& out, const core::sim::ErrorSummary& s, OomColumn oom) {
  const bool withOom = oom == OomColumn::Shown;
  out << "\n" << std::left << std::setw(24) << "family" << std::right << std::setw(6) << "rows" << std::setw(10)
      << "median" << std::setw(10) << "mean";
  if (withOom) out << std::setw(8) << "oom";
  out << "\n";
  auto line = [&](const core::sim::ErrorStats& e) {
    out << std::left << std::setw(24) << e.family << std::right << std::setw(6) << e.rows << std::setw(9)
        << fixedDigits(e.medianAbsPct, 1) << "%" << std::setw(9) << fixedDigits(e.meanAbsPct, 1) << "%";
    if (withOom)
      out << std::setw(8) << (e.oomRows ? std::to_string(e.oomMatched) + "/" + std::to_string(e.oomRows) : std::string("-"));
    out << "\n";
  };
  for (const auto& f : s.families) line(f);
  line(s.overall);
  out << "\nper stack\n";
  for (const auto& f : s.stacks) line(f);
  out << "\nper stack and family\n";
  for (const auto& f : s.stackFamilies) line(f);
}

void setErrorSummaryJson(Json& j, const core::sim::ErrorSummary& s, OomColumn oom) {
  auto stats = [&](const core::sim::ErrorStats& e) {
    Json o = Json::object();
    o.set("family", e.family);
    o.set("rows", e.rows);
    o.set("median_abs_pct_error", std::round(e.medianAbsPct * 100) / 100);
    o.set("mean_abs_pct_error", std::round(e.meanAbsPct * 100) / 100);
    if (oom == OomColumn::Shown) {
      o.set("oom_rows", e.oomRows);
      o.set("oom_matched", e.oomMatched);
    }
    return o;
  };
  auto list = [&](const std::vector<core::sim::ErrorStats>& v) {
    Json a = Json::array();
    for (const auto& e : v) a.push(stats(e));
    return a;
  };
  j.set("families", list(s.families));
  j.set("stacks", list(s.stacks));
  j.set("stack_families", list(s.stackFamilies));
  j.set("overall", stats(s.overall));
}

}  // namespace app::cli
