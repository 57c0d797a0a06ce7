#include "core/bridge/device_calibration.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>
#include <tuple>

#include "core/bridge/run_prediction.h"
#include "core/hw/catalog_files.h"
#include "core/nn/eigen.h"
#include <Eigen/Cholesky>
#include <Eigen/QR>
#include "core/nn/transformer_spec.h"
#include "core/sim/simulator.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/precision.h"

namespace core::bridge {
namespace {

using util::Error;
using util::Json;

// Which step model reads a figure: the layer-by-layer one (CNN/MLP/RNN zoo), the transformer
// one (core/sim/llm_*), or both.
enum class ReadBy { Layers, Transformer, Both };

struct FigureRange {
  std::string key;
  ReadBy readBy;
  double fallback;  // where to start when the stack leaves the figure unset
  double floor;     // the fit works on log(figure): the least it may reach when a file's least is 0
  double min = 0, max = 0;  // a device file's own range for the figure (hw::figureRange)
};

const std::vector<FigureRange>& figureRanges() {
  static const std::vector<FigureRange> kRanges = [] {
    std::vector<FigureRange> r = {
        {"gemm_efficiency", ReadBy::Layers, 0.5, 0},
        {"gemm_efficiency_fp32", ReadBy::Layers, 0.5, 0},
        {"matmul_efficiency", ReadBy::Transformer, 0.5, 0},
        {"matmul_efficiency_fp32", ReadBy::Transformer, 0.5, 0},
        {"step_overhead_seconds", ReadBy::Both, 1e-3, 1e-7},
        {"mem_efficiency", ReadBy::Both, 0.6, 0},
        {"kernel_launch_seconds", ReadBy::Both, 5e-6, 1e-8},
    };
    for (auto& f : r) {  // a fitted figure is one its device file may hold
      std::tie(f.min, f.max) = hw::figureRange(f.key);
      f.min = std::max(f.min, f.floor);
    }
    return r;
  }();
  return kRanges;
}

const FigureRange& rangeOf(const std::string& key) {
  for (const auto& r : figureRanges())
    if (r.key == key) return r;
  std::string known;
  for (const auto& r : figureRanges()) known += (known.empty() ? "" : ", ") + r.key;
  throw util::FieldError("fit", "'" + key + "' cannot be calibrated (calibratable: " + known + ")");
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The runs as the simulator sees them, and the step time a device gives each.
class Problem {
public:
  Problem(const std::vector<RunLog>& runs, const hw::DeviceSpec& base, const hw::StackSpec& stack,
          const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks)
      : m_base(base), m_stack(stack), m_sim(devices, stacks) {
    for (const auto& log : runs) {
      m_configs.push_back(simConfigOf(log, base.id, stack.id));
      m_measured.push_back(steadyState(log).stepSeconds);
    }
  }

  std::size_t size() const { return m_configs.size(); }
  double measured(std::size_t i) const { return m_measured[i]; }
  const sim::SimConfig& config(std::size_t i) const { return m_configs[i]; }

  // The base device with `keys` set to `values` (its own software figures, over the stack's).
  hw::DeviceSpec device(const std::vector<std::string>& keys, const std::vector<double>& values) const {
    hw::DeviceSpec d = m_base;
    for (std::size_t k = 0; k < keys.size(); ++k) hw::setFigure(d.measuredSoftware, keys[k], values[k]);
    return d;
  }
  double stepSeconds(std::size_t i, const hw::DeviceSpec& d) const {
    return simulateLoggedRun(m_sim, m_configs[i], d, m_stack).stepSeconds;
  }

private:
  hw::DeviceSpec m_base;
  hw::StackSpec m_stack;
  sim::Simulator m_sim;
  std::vector<sim::SimConfig> m_configs;
  std::vector<double> m_measured;
};

// Elasticities d log(step_i) / d log(figure_j) at `values`: runs x figures.
Eigen::MatrixXd elasticities(const Problem& p, const std::vector<std::string>& keys, const std::vector<double>& values,
                             const std::vector<std::size_t>& runs) {
  constexpr double kStep = 0.1;  // +-10% in log space
  Eigen::MatrixXd s(static_cast<Eigen::Index>(runs.size()), static_cast<Eigen::Index>(keys.size()));
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const FigureRange& r = rangeOf(keys[j]);
    std::vector<double> up = values, down = values;
    up[j] = std::min(r.max, values[j] * std::exp(kStep));
    down[j] = std::max(r.min, values[j] * std::exp(-kStep));
    const double span = std::log(up[j] / down[j]);
    const hw::DeviceSpec du = p.device(keys, up), dd = p.device(keys, down);
    for (std::size_t i = 0; i < runs.size(); ++i)
      s(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          span > 0 ? std::log(p.stepSeconds(runs[i], du) / p.stepSeconds(runs[i], dd)) / span : 0;
  }
  return s;
}

// Why figure `j` cannot be pinned next to figures 0..j-1 on these runs ("" = it can).
std::string whyNotPinned(const Eigen::MatrixXd& s, Eigen::Index j, const std::vector<std::string>& keys) {
  const Eigen::VectorXd col = s.col(j);
  if (col.cwiseAbs().maxCoeff() < 0.05)
    return keys[static_cast<std::size_t>(j)] + " moves no run's step time (elasticity below 0.05): the runs do not depend on it";
  if (j == 0) return {};
  const Eigen::MatrixXd prev = s.leftCols(j);
  const Eigen::VectorXd coef = prev.colPivHouseholderQr().solve(col);
  const double residual = (col - prev * coef).norm();
  if (residual < 0.1 * col.norm())
    return keys[static_cast<std::size_t>(j)] + " moves the runs the way the figures before it do: these runs cannot tell them apart "
           "(add runs of other batch sizes or models)";
  return {};
}

std::size_t distinctConfigurations(const Problem& p, const std::vector<std::size_t>& runs) {
  std::set<std::tuple<std::string, std::string, int, int, int, int, std::string>> seen;
  for (std::size_t i : runs) {
    const auto& c = p.config(i);
    seen.insert({c.modelId, c.datasetId, c.batch, static_cast<int>(c.precision), c.count, c.llm.seqLen,
                 c.llm.plan ? c.llm.plan->text() : std::string()});
  }
  return seen.size();
}

// Least squares on log(step) over log(figures), bounded: Levenberg-Marquardt with a
// finite-difference Jacobian. Deterministic.
std::vector<double> fit(const Problem& p, const std::vector<std::string>& keys, std::vector<double> values,
                        const std::vector<std::size_t>& runs) {
  const auto m = static_cast<Eigen::Index>(runs.size());
  const auto n = static_cast<Eigen::Index>(keys.size());
  auto residuals = [&](const std::vector<double>& v) {
    const hw::DeviceSpec d = p.device(keys, v);
    Eigen::VectorXd r(m);
    for (Eigen::Index i = 0; i < m; ++i) {
      const std::size_t run = runs[static_cast<std::size_t>(i)];
      r(i) = std::log(p.stepSeconds(run, d) / p.measured(run));
    }
    return r;
  };
  auto clamp = [&](std::vector<double>& v) {
    for (Eigen::Index j = 0; j < n; ++j) {
      const FigureRange& r = rangeOf(keys[static_cast<std::size_t>(j)]);
      v[static_cast<std::size_t>(j)] = std::clamp(v[static_cast<std::size_t>(j)], r.min, r.max);
    }
  };
  clamp(values);
  Eigen::VectorXd r = residuals(values);
  double cost = r.squaredNorm(), lambda = 1e-3;
  for (int iter = 0; iter < 100 && cost > 1e-14; ++iter) {
    Eigen::MatrixXd J(m, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      std::vector<double> v = values;
      const double h = 1e-4;
      v[static_cast<std::size_t>(j)] *= std::exp(h);
      J.col(j) = (residuals(v) - r) / h;
    }
    const Eigen::MatrixXd JtJ = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false;
    for (int tries = 0; tries < 12 && !improved; ++tries) {
      Eigen::MatrixXd A = JtJ;
      A.diagonal() += lambda * (JtJ.diagonal().array() + 1e-12).matrix();
      const Eigen::VectorXd delta = A.ldlt().solve(-g);
      std::vector<double> next = values;
      for (Eigen::Index j = 0; j < n; ++j)
        next[static_cast<std::size_t>(j)] *= std::exp(std::clamp(delta(j), -2.0, 2.0));
      clamp(next);
      const Eigen::VectorXd rn = residuals(next);
      if (rn.squaredNorm() < cost) {
        values = next;
        r = rn;
        const double drop = cost - rn.squaredNorm();
        cost = rn.squaredNorm();
        lambda = std::max(lambda / 3, 1e-9);
        improved = true;
        if (drop < 1e-16) iter = 1000;
      } else {
        lambda *= 4;
      }
    }
    if (!improved) break;
  }
  return values;
}

}  // namespace

const std::vector<std::string>& calibratableFigures() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> k;
    for (const auto& r : figureRanges()) k.push_back(r.key);
    return k;
  }();
  return kKeys;
}

namespace {

// The same run passed twice (or copied under another name) is one run: its start time, device
// and every step time agree.
bool sameRun(const RunLog& a, const RunLog& b) {
  if (a.started != b.started || a.deviceName != b.deviceName || a.model != b.model || a.steps.size() != b.steps.size())
    return false;
  for (std::size_t i = 0; i < a.steps.size(); ++i)
    if (a.steps[i].seconds != b.steps[i].seconds || a.steps[i].step != b.steps[i].step) return false;
  return true;
}

}  // namespace

CalibrationResult calibrateDevice(const CalibrationRequest& req, const std::vector<RunLog>& given,
                                  const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks) {
  std::vector<RunLog> runs;
  std::vector<std::string> duplicates;
  for (const auto& log : given) {
    const auto same = std::find_if(runs.begin(), runs.end(), [&](const RunLog& r) { return sameRun(r, log); });
    if (same != runs.end()) duplicates.push_back(log.path + " is " + same->path + " again: counted once");
    else runs.push_back(log);
  }
  if (!req.otherDevice)
    for (const auto& log : runs)
      if (const std::string m = deviceMismatch(devices, log, req.base.id); !m.empty())
        throw util::FieldError("device_base", m + ": calibrate from that device, or say the runs are of another device "
                                                  "(--other-device) to fit " + req.base.id + "'s datasheet to them");
  if (runs.empty()) throw util::FieldError("runs", "no runs to calibrate on");
  if (req.base.filePath.empty() && !req.base.measured)
    throw util::FieldError("device_base", "'" + req.base.id + "' has no datasheet file to start from; name a catalog device");
  for (const auto& log : runs) {
    if (log.deviceName != runs.front().deviceName || log.deviceType != runs.front().deviceType)
      throw Error(log.path + ": ran on '" + log.deviceName + "', but " + runs.front().path + " on '" +
                  runs.front().deviceName + "': calibrate one device at a time");
  }
  // The software the runs ran: the one named; else what each run records (an exported
  // transformer job: eager or torch.compile; any other job: the base kind's default, plain
  // PyTorch). One device's figures are fitted under one stack: runs of two are refused.
  std::string stackId = req.stackId, stackFrom;
  if (stackId.empty())
    for (const auto& log : runs) {
      std::string ran = stackOfRun(log, "", stacks);
      if (ran.empty()) ran = stacks.defaultFor(req.base.kind).id;
      if (stackId.empty()) stackId = ran, stackFrom = log.path;
      else if (ran != stackId)
        throw util::FieldError("stack", log.path + " ran under " + ran + ", " + stackFrom + " under " + stackId +
                                            ": calibrate eager and torch.compile runs separately (name one with --stack)");
    }
  const hw::StackSpec& stack = stackId.empty() ? stacks.defaultFor(req.base.kind) : stacks.at(stackId);
  hw::DeviceSpec base = req.base;
  // Start from the stack's figures for this hardware (on the host, at its measured rates).
  base.measuredSoftware = measuredRatesOnly(req.base);
  const Problem problem(runs, base, stack, devices, stacks);
  const hw::SoftwareFigures start = hw::figuresFor(stack, base);

  std::vector<std::size_t> all(problem.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const std::size_t configs = distinctConfigurations(problem, all);

  CalibrationResult res;
  res.duplicates = duplicates;
  for (const auto& log : runs)
    if (const std::string w = noiseWarning(steadyState(log)); !w.empty()) res.noisy.push_back(log.path + ": " + w);
  res.baseId = req.base.id;
  res.baseFile = req.base.filePath;
  res.baseText = req.base.filePath.empty() ? hw::hostDeviceFileText(req.base)
                                           : util::readFile(req.base.filePath, util::kMaxDataFileBytes);
  res.stackId = stack.id;
  res.date = req.date.empty() ? util::todayUtc() : req.date;

  // Which figures: the ones asked for, each checked; or as many as the runs pin, in order.
  const bool automatic = req.figures.empty();
  std::vector<std::string> candidates = req.figures;
  if (automatic) {  // the figures the runs' step models read
    const bool transformers = std::any_of(runs.begin(), runs.end(), [](const RunLog& l) { return nn::findTransformer(l.model); });
    const bool layers = std::any_of(runs.begin(), runs.end(), [](const RunLog& l) { return !nn::findTransformer(l.model); });
    for (const auto& f : figureRanges())
      if (f.readBy == ReadBy::Both || (f.readBy == ReadBy::Transformer ? transformers : layers)) candidates.push_back(f.key);
  }
  std::vector<std::string> keys;
  std::vector<double> values;
  for (const auto& key : candidates) {
    const FigureRange& range = rangeOf(key);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) throw util::FieldError("fit", "'" + key + "' is named twice");
    std::string why;
    if (keys.size() + 1 > configs) {
      why = "the runs hold " + std::to_string(configs) + " distinct configuration" + (configs == 1 ? "" : "s") +
            ", which pin at most " + std::to_string(configs) + " figure" + (configs == 1 ? "" : "s") + "; " + key +
            " would be one more";
    } else {
      std::vector<std::string> k = keys;
      std::vector<double> v = values;
      k.push_back(key);
      v.push_back(hw::figureValue(start, key).value_or(range.fallback));
      why = whyNotPinned(elasticities(problem, k, v, all), static_cast<Eigen::Index>(k.size() - 1), k);
    }
    if (!why.empty()) {
      if (!automatic) throw util::FieldError("fit", "refused: " + why);
      res.skipped.push_back(why);
      continue;
    }
    keys.push_back(key);
    values.push_back(hw::figureValue(start, key).value_or(range.fallback));
  }
  if (keys.empty()) throw util::FieldError("runs", "these runs pin no figure: " + (res.skipped.empty() ? std::string() : res.skipped.front()));

  const Eigen::MatrixXd s0 = elasticities(problem, keys, values, all);
  const std::vector<double> fitted = fit(problem, keys, values, all);
  for (std::size_t j = 0; j < keys.size(); ++j)
    res.figures.push_back({keys[j], fitted[j], values[j], s0.col(static_cast<Eigen::Index>(j)).cwiseAbs().maxCoeff()});

  res.device = problem.device(keys, fitted);
  res.device.id = req.id;
  res.device.name = req.name;
  std::vector<double> errors;
  const hw::DeviceSpec startDevice = problem.device({}, {});
  for (std::size_t i = 0; i < problem.size(); ++i) {
    CalibratedRun cr;
    cr.path = runs[i].path;
    cr.model = runs[i].model;
    cr.batch = runs[i].batch;
    cr.measuredSeconds = problem.measured(i);
    cr.startSeconds = problem.stepSeconds(i, startDevice);
    cr.fittedSeconds = problem.stepSeconds(i, problem.device(keys, fitted));
    errors.push_back(std::fabs(cr.fittedSeconds / cr.measuredSeconds - 1) * 100);
    res.runs.push_back(cr);
  }
  res.fitMedianAbsPct = median(errors);
  res.fitMaxAbsPct = *std::max_element(errors.begin(), errors.end());

  // Leave one out: fit on the others, predict the one left out.
  if (problem.size() >= 4) {
    std::vector<double> loo;
    for (std::size_t out = 0; out < problem.size(); ++out) {
      std::vector<std::size_t> rest;
      for (std::size_t i = 0; i < problem.size(); ++i)
        if (i != out) rest.push_back(i);
      if (distinctConfigurations(problem, rest) < keys.size()) continue;
      const std::vector<double> f = fit(problem, keys, values, rest);
      loo.push_back(std::fabs(problem.stepSeconds(out, problem.device(keys, f)) / problem.measured(out) - 1) * 100);
    }
    if (!loo.empty()) res.leaveOneOutMedianAbsPct = median(loo);
  }
  return res;
}

Json calibratedDeviceJson(const CalibrationResult& r) {
  const std::string base = r.baseFile.empty() ? "measured on this machine" : r.baseFile;
  Json root = Json::parse(r.baseText, base);
  root.set("id", r.device.id);
  root.set("name", r.device.name);
  std::string runs;
  for (const auto& cr : r.runs) runs += (runs.empty() ? "" : ", ") + cr.path;
  root.set("notes", "Calibrated by accellab-cli calibrate on " + r.date + " from " + r.baseId + " (" + base +
                        ") under the " + r.stackId + " stack, on " + std::to_string(r.runs.size()) + " measured run(s): " +
                        runs + ". Hardware figures are the base's; calibrated_software holds the fitted ones" +
                        (r.baseFile.empty() ? " and the measured rates' efficiencies (1: the peaks are measured)." : "."));
  // The device's own figures: the fitted ones over what it started from (on a measured base, the
  // efficiencies of its measured rates: measuredRatesOnly), all numbers.
  Json figures = Json::object();
  for (const auto& key : hw::stackFigureKeys())
    if (const auto v = hw::figureValue(r.device.measuredSoftware, key)) figures.set(key, *v);
  root.set(hw::kCalibratedSoftware, figures);
  Json source = Json::object();
  source.set("ref", "fitted on your runs " + r.date + " (" + runs + "; fit median error " +
                        std::to_string(static_cast<int>(std::lround(r.fitMedianAbsPct * 10))) + "/10 %)");
  source.set("date", r.date);
  root[std::string("sources")].set(hw::kCalibratedSoftware, source);
  return root;
}

Json calibrationReportJson(const CalibrationResult& r) {
  Json j = Json::object();
  j.set("device", r.device.id);
  j.set("base", r.baseId);
  j.set("stack", r.stackId);
  Json figs = Json::array();
  for (const auto& f : r.figures) {
    Json o = Json::object();
    o.set("key", f.key);
    o.set("value", f.value);
    o.set("start", f.start);
    o.set("elasticity", f.elasticity);
    figs.push(o);
  }
  j.set("figures", figs);
  Json runs = Json::array();
  for (const auto& cr : r.runs) {
    Json o = Json::object();
    o.set("file", cr.path);
    o.set("model", cr.model);
    o.set("batch", cr.batch);
    o.set("measured_step_seconds", cr.measuredSeconds);
    o.set("base_step_seconds", cr.startSeconds);
    o.set("fitted_step_seconds", cr.fittedSeconds);
    runs.push(o);
  }
  j.set("runs", runs);
  j.set("fit_median_abs_pct_error", r.fitMedianAbsPct);
  j.set("fit_max_abs_pct_error", r.fitMaxAbsPct);
  if (r.leaveOneOutMedianAbsPct) j.set("leave_one_out_median_abs_pct_error", *r.leaveOneOutMedianAbsPct);
  auto lines = [](const std::vector<std::string>& v) {
    Json a = Json::array();
    for (const auto& s : v) a.push(s);
    return a;
  };
  j.set("skipped", lines(r.skipped));
  j.set("duplicates", lines(r.duplicates));
  j.set("noisy", lines(r.noisy));
  return j;
}

}  // namespace core::bridge
