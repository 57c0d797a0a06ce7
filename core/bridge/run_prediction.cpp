#include "core/bridge/run_prediction.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <set>

#include "core/experiment/sim_config.h"
#include "core/hw/device_spec.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/llm_simulator.h"
#include "core/sim/simulator.h"
#include "core/util/error.h"
#include "core/util/precision.h"

namespace core::bridge {
namespace {

std::vector<std::string> tokens(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// A catalog token is in the name when a name token starts with it ("sxm" in "sxm4").
bool inName(const std::vector<std::string>& name, const std::string& t) {
  return std::any_of(name.begin(), name.end(), [&](const std::string& n) { return n.rfind(t, 0) == 0; });
}

}  // namespace

std::string matchDevice(const hw::DeviceCatalog& catalog, const RunLog& log) {
  if (log.deviceType == "cpu") return catalog.find(hw::kHostDeviceId) ? hw::kHostDeviceId : std::string();
  const std::vector<std::string> name = tokens(log.deviceName);
  std::string best;
  int bestScore = -1000;
  for (const auto& d : catalog.devices()) {
    if (d.kind == hw::DeviceKind::Cpu) continue;
    const std::vector<std::string> id = tokens(d.id);
    if (id.empty() || std::find(name.begin(), name.end(), id.front()) == name.end()) continue;  // the model: h100, a100, mi300x
    int score = 0;
    for (std::size_t i = 1; i < id.size(); ++i) score += inName(name, id[i]) ? 2 : -1;  // pcie, sxm, 80gb, nvl
    if (score > bestScore || (score == bestScore && d.id.size() < best.size())) {
      best = d.id;
      bestScore = score;
    }
  }
  return best;  // never the device it was exported for: a log is judged where it ran
}

std::string deviceMismatch(const hw::DeviceCatalog& catalog, const RunLog& log, const std::string& deviceId) {
  const std::string ran = matchDevice(catalog, log);
  if (ran.empty() || ran == deviceId) return {};
  return log.path + " ran on '" + log.deviceName + "', which is " + ran + " in the catalog, not " + deviceId;
}

sim::SimConfig simConfigOf(const RunLog& log, const std::string& deviceId, const std::string& stackId) {
  const auto precision = util::parsePrecision(log.precision);
  if (!precision) throw util::Error(log.path + ": precision '" + log.precision + "' is unknown");
  // The experiment the log ran, through the one mapping; its precision is the one it ran at
  // (a choice, so no device falls back to another).
  experiment::TrainConfig train;
  train.modelId = log.model;
  train.datasetId = log.dataset;
  train.batch = log.batch;
  train.precision = *precision;
  experiment::DeviceChoice choice;
  choice.deviceId = deviceId;
  choice.stackId = stackId;
  choice.count = log.deviceCount;
  choice.precision = *precision;
  sim::SimConfig c = experiment::simConfigFor(train, choice, nullptr);
  c.perLayer = false;
  // A CPU run used its processes' threads: the machine's vCPUs as the run had them.
  if (log.deviceType == "cpu" && log.threads > 0) c.vcpus = log.threads * std::max(1, log.deviceCount);
  if (nn::findTransformer(log.model)) {
    c.llm.seqLen = log.seqLen;
    if (log.plan) {  // the plan as it ran
      c.llm.plan = *log.plan;
      c.llm.finetune = log.finetune;
      if (log.finetune == sim::Finetune::Lora) c.llm.loraRank = log.loraRank;
    }
  }
  return c;
}

std::string stackOfRun(const RunLog& log, const std::string& stackId, const hw::StackCatalog& stacks) {
  if (!stackId.empty() || !log.plan) return stackId;
  const std::string ran = log.compiled ? "pytorch-compile" : "pytorch-eager";
  return stacks.find(ran) ? ran : std::string();
}

sim::SimReport simulateLoggedRun(const sim::Simulator& sim, const sim::SimConfig& config, const hw::DeviceSpec& device,
                                 const hw::StackSpec& stack) {
  sim::SimConfig c = config;
  // More threads than the CPU has vCPUs compute no faster than its vCPUs.
  if (device.kind == hw::DeviceKind::Cpu && device.vcpusMax > 0) c.vcpus = std::min(c.vcpus, device.vcpusMax);
  if (nn::findTransformer(c.modelId)) return sim::simulateLlm(c, device, stack);
  hw::requireStackCovers(stack, device);
  sim::SimReport r = sim::simulateWorkload(*sim.workload(c.modelId, c.datasetId), device, stack, c);
  r.deviceName = device.name;
  r.stackName = stack.name;
  return r;
}

RunPrediction predictRun(const hw::DeviceCatalog& catalog, const hw::StackCatalog& stacks, const RunLog& log,
                         const std::string& deviceId, const std::string& stackId) {
  RunPrediction p;
  p.deviceId = deviceId;
  const hw::DeviceSpec* found = catalog.find(deviceId);
  if (!found) {
    p.why = deviceId.empty() ? "no catalog device matches '" + log.deviceName + "'" +
                                   (log.exportedForDevice.empty() ? std::string()
                                                                  : " (it was exported for " + log.exportedForDevice + ")") +
                                   ": name the device it ran on with --device"
                             : "device '" + deviceId + "' is not in the catalog";
    return p;
  }
  hw::DeviceSpec device = *found;
  if (device.measured) device.measuredSoftware = measuredRatesOnly(device);  // PyTorch ran there, not the engine
  p.deviceName = device.name;
  const auto precision = util::parsePrecision(log.precision);
  if (!precision) {
    p.why = "precision '" + log.precision + "' is unknown";
    return p;
  }
  try {
    // A transformer job says what ran: eager or torch.compile.
    const std::string ran = stackOfRun(log, stackId, stacks);
    const hw::StackSpec& stack = ran.empty() ? stacks.defaultFor(device.kind) : stacks.at(ran);
    p.stackId = stack.id;
    p.stackName = stack.name;
    const sim::Simulator sim(catalog, stacks);
    p.report = simulateLoggedRun(sim, simConfigOf(log, device.id, stack.id), device, stack);
    p.stepSeconds = p.report.stepSeconds;
    p.perSecond = p.report.llm && log.unit == "tokens" ? p.report.llm->tokensPerSecond : p.report.imagesPerSecond;
    p.fitsInMemory = p.report.fitsInMemory;
  } catch (const util::Error& e) {
    p.why = e.what();
    return p;
  }
  if (!(p.stepSeconds > 0)) {
    p.why = "the simulator gave no step time";
    return p;
  }
  p.known = true;
  const SteadyState ss = steadyState(log);
  if (!(ss.perSecond > 0)) {
    p.known = false;
    p.why = "the log measured no throughput (zero " + log.unit + " a step)";
    return p;
  }
  p.error = p.perSecond / ss.perSecond - 1;
  return p;
}

hw::SoftwareFigures measuredRatesOnly(const hw::DeviceSpec& device) {
  hw::SoftwareFigures rates;
  if (!device.measured) return rates;
  rates.gemmEfficiency = device.measuredSoftware.gemmEfficiency;
  rates.memEfficiency = device.measuredSoftware.memEfficiency;
  return rates;
}

std::string errorInWords(double error) {
  const double pct = std::abs(error) * 100;
  if (pct < 0.05) return "AccelLab's prediction matches the measurement";
  std::ostringstream s;
  s << "AccelLab predicted " << std::fixed << std::setprecision(pct < 10 ? 1 : 0) << pct << "% "
    << (error < 0 ? "slower" : "faster") << " than measured";
  return s.str();
}

}  // namespace core::bridge
