#include "core/sim/stack_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/sim/simulator.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace core::sim {
namespace {

using util::Error;
using util::Json;

using util::failKey;

FigureRef figureRef(const std::string& path, const std::string& where, const Json& o) {
  if (!o.isObject()) failKey(path, where, "must be an object {stack, key, selector, ...}");
  FigureRef f;
  for (const char* k : {"stack", "key", "selector"}) {
    const Json* v = o.find(k);
    if (!v || !v->isString() || v->asString().empty()) failKey(path, where + "." + k, "missing or not a string");
  }
  f.stack = o.at("stack").asString();
  f.key = o.at("key").asString();
  f.selector = o.at("selector").asString();
  const auto& keys = hw::stackFigureKeys();
  if (std::find(keys.begin(), keys.end(), f.key) == keys.end())
    failKey(path, where + ".key", "'" + f.key + "' is not a stack figure");
  return f;
}

double number(const std::string& path, const std::string& where, const Json& o, const char* key) {
  const Json* v = o.find(key);
  if (!v || !v->isNumber() || !std::isfinite(v->asNumber())) failKey(path, where + "." + key, "missing or not a number");
  return v->asNumber();
}

std::vector<std::string> strings(const std::string& path, const Json& root, const char* key) {
  std::vector<std::string> out;
  const Json* v = root.find(key);
  if (!v) return out;
  if (!v->isArray()) failKey(path, key, "must be an array of strings");
  for (const auto& s : v->asArray()) {
    if (!s.isString()) failKey(path, key, "must be an array of strings");
    out.push_back(s.asString());
  }
  return out;
}

double figureOf(const hw::StackCatalog& stacks, const FigureRef& f) {
  const hw::StackSpec& s = stacks.at(f.stack);
  auto it = s.bySelector.find(f.selector);
  const auto v = it == s.bySelector.end() ? std::nullopt : hw::figureValue(it->second, f.key);
  if (!v) throw Error("fit: " + f.name() + " is not set in " + s.filePath + " (ties need a set figure)");
  return *v;
}

void setFigureIn(Simulator& sim, const FigureRef& f, double value) {
  hw::StackSpec s = sim.stacks().at(f.stack);
  hw::setFigure(s.bySelector[f.selector], f.key, value);
  sim.replaceStack(std::move(s));
}

// The objective of one stack: mean |log(predicted / published)| over its rows; a refused row
// costs as much as a factor of e^3.
double objective(const Simulator& sim, const std::vector<ReferenceRow>& rows) {
  if (rows.empty()) return 0;
  const ValidationResult v = validateRows(sim, rows);
  double sum = 0;
  int n = 0;
  for (const auto& r : v.rows) {
    if (r.row.metric == "oom") continue;
    sum += r.ok && r.predicted > 0 ? std::abs(std::log(r.predicted / r.row.value)) : 3.0;
    ++n;
  }
  return n ? sum / n : 0.0;
}

}  // namespace

FitSpec parseFitSpec(const std::string& text, const std::string& path) {
  const Json root = Json::parse(text, path, util::kDataFileJsonLimits);
  if (!root.isObject()) throw Error(path + ": a fit spec must hold one JSON object");
  static const std::set<std::string> known = {"about", "objective", "exclude_models", "exclude_notes_containing",
                                              "significant_digits", "parameters", "ties"};
  for (const auto& [key, value] : root.asObject())
    if (!known.count(key)) failKey(path, key, "unknown key");
  FitSpec spec;
  spec.excludeModels = strings(path, root, "exclude_models");
  spec.excludeNotesContaining = strings(path, root, "exclude_notes_containing");
  if (const Json* d = root.find("significant_digits")) {
    if (!d->isNumber() || d->asNumber() < 2 || d->asNumber() > 6) failKey(path, "significant_digits", "must be 2 to 6");
    spec.significantDigits = static_cast<int>(d->asNumber());
  }
  const Json* params = root.find("parameters");
  if (!params || !params->isArray()) failKey(path, "parameters", "missing or not an array");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < params->size(); ++i) {
    const std::string where = "parameters[" + std::to_string(i) + "]";
    const Json& o = params->asArray()[i];
    FitParameter p;
    p.figure = figureRef(path, where, o);
    p.start = number(path, where, o, "start");
    p.min = number(path, where, o, "min");
    p.max = number(path, where, o, "max");
    if (!(p.min > 0 && p.min <= p.start && p.start <= p.max))
      failKey(path, where, "needs 0 < min <= start <= max (a multiplicative search)");
    if (!seen.insert(p.figure.name()).second) failKey(path, where, p.figure.name() + " is listed twice");
    spec.parameters.push_back(p);
  }
  if (const Json* ties = root.find("ties")) {
    if (!ties->isArray()) failKey(path, "ties", "must be an array");
    for (std::size_t i = 0; i < ties->size(); ++i) {
      const std::string where = "ties[" + std::to_string(i) + "]";
      const Json& o = ties->asArray()[i];
      FitTie t;
      t.figure = figureRef(path, where, o);
      const Json* from = o.find("from");
      if (!from) failKey(path, where + ".from", "missing");
      t.from = figureRef(path, where + ".from", *from);
      if (!seen.insert(t.figure.name()).second) failKey(path, where, t.figure.name() + " is fitted or tied twice");
      spec.ties.push_back(t);
    }
  }
  return spec;
}

FitSpec readFitSpec(const std::string& path) { return parseFitSpec(util::readFile(path, util::kMaxDataFileBytes), path); }

std::vector<ReferenceRow> rowsForFit(const std::vector<ReferenceRow>& rows, const FitSpec& spec) {
  std::vector<ReferenceRow> out;
  for (const auto& r : rows) {
    if (std::find(spec.excludeModels.begin(), spec.excludeModels.end(), r.model) != spec.excludeModels.end()) continue;
    // A row whose open hardware has a reading (core/sim/row_readings.h) is no longer open.
    bool excluded = false;
    if (r.reading.empty())
      for (const auto& s : spec.excludeNotesContaining) excluded = excluded || r.note.find(s) != std::string::npos;
    if (!excluded) out.push_back(r);
  }
  return out;
}

FitOutcome fitStacks(const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks,
                     const std::vector<ReferenceRow>& rows, const FitSpec& spec) {
  Simulator sim(devices, stacks);
  for (const auto& p : spec.parameters) {
    sim.stacks().at(p.figure.stack);  // throws naming an unknown stack
    setFigureIn(sim, p.figure, p.start);
  }
  const std::vector<ReferenceRow> kept = rowsForFit(rows, spec);
  FitOutcome out;
  // Stacks in the order the spec first names them.
  std::vector<std::string> order;
  for (const auto& p : spec.parameters)
    if (std::find(order.begin(), order.end(), p.figure.stack) == order.end()) order.push_back(p.figure.stack);

  const auto applyTies = [&](std::vector<FittedFigure>* record) {
    for (const auto& t : spec.ties) {
      const double v = figureOf(sim.stacks(), t.from);
      setFigureIn(sim, t.figure, v);
      if (record) record->push_back({t.figure, v, true});
    }
  };
  for (const auto& stack : order) {
    applyTies(nullptr);  // a stack's objective sees the figures it is tied to as fitted so far
    std::vector<ReferenceRow> mine;
    for (const auto& r : kept)
      if (r.a.stack == stack) mine.push_back(r);
    std::vector<const FitParameter*> params;
    for (const auto& p : spec.parameters)
      if (p.figure.stack == stack) params.push_back(&p);
    StackFitResult res;
    res.stack = stack;
    res.rows = static_cast<int>(mine.size());
    double best = objective(sim, mine);
    res.objectiveStart = best;
    ++res.evaluations;
    std::vector<double> value;
    for (const auto* p : params) value.push_back(p->start);
    // Pattern search: try each figure x step and / step; halve the step (in log) when a whole
    // sweep finds nothing better. Deterministic: fixed order, strict improvement only.
    for (double step = 1.6; step > 1.01 && !mine.empty(); step = std::sqrt(step)) {
      for (int sweep = 0; sweep < 20; ++sweep) {
        bool improved = false;
        for (std::size_t i = 0; i < params.size(); ++i) {
          for (const double factor : {step, 1.0 / step}) {
            const double trial = std::clamp(value[i] * factor, params[i]->min, params[i]->max);
            if (trial == value[i]) continue;
            setFigureIn(sim, params[i]->figure, trial);
            const double o = objective(sim, mine);
            ++res.evaluations;
            if (o < best - 1e-9) {
              best = o;
              value[i] = trial;
              improved = true;
            } else {
              setFigureIn(sim, params[i]->figure, value[i]);
            }
          }
        }
        if (!improved) break;
      }
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      const double rounded = util::roundSignificant(value[i], spec.significantDigits);
      setFigureIn(sim, params[i]->figure, rounded);
      out.figures.push_back({params[i]->figure, rounded, false});
    }
    res.objectiveFitted = objective(sim, mine);
    out.perStack.push_back(res);
  }
  applyTies(&out.figures);
  out.stacks = sim.stacks();
  return out;
}

}  // namespace core::sim
