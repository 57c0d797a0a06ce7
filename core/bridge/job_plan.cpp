#include "core/bridge/job_plan.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/experiment/sim_config.h"
#include "core/hw/software_figures.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/llm_simulator.h"
#include "core/sim/simulator.h"
#include "core/util/error.h"
#include "core/util/units.h"

namespace core::bridge {
namespace {

std::string gib(double bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / util::kBytesPerGib << " GiB";
  return s.str();
}

}  // namespace

void chooseStrategy(ExportRequest& r, const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks) {
  const sim::Simulator sim(devices, stacks);
  // The one mapping; the exported job runs at the experiment's precision (a choice: PyTorch
  // does what the script says), with whole-dataset epochs.
  experiment::TrainConfig train = r.train;
  train.limit = 0;
  experiment::DeviceChoice choice;
  choice.deviceId = r.deviceId;
  choice.count = r.count;
  choice.precision = r.train.precision;
  sim::SimConfig c = experiment::simConfigFor(train, choice, devices.find(r.deviceId));
  c.perLayer = false;
  const sim::SimReport report = sim.simulate(c);
  const std::string use = gib(report.memoryBytesPerDevice) + " of " + gib(report.memoryCapacityBytes);
  if (report.fitsInMemory) {
    r.strategy = "ddp";
    r.strategyReason = "the simulator's plan: DDP, the model fits one " + r.deviceId + " (" + use + " per device)";
  } else {
    r.strategy = "fsdp";
    r.strategyReason = "the simulator's plan: FSDP, data parallel does not fit one " + r.deviceId + " (" + use +
                       " per device), so weights, gradients and optimizer state are sharded";
  }
}

ExportRequest transformerExportRequest(const sim::SimConfig& c) {
  const nn::TransformerSpec& spec = nn::transformerSpec(c.modelId);
  ExportRequest r;
  r.train.modelId = c.modelId;
  r.train.datasetId = spec.kind == nn::TransformerKind::Vision ? "synthetic-imagenet" : "synthetic";
  r.train.precision = c.precision;
  r.train.batch = c.batch;
  r.deviceId = c.deviceId;
  r.count = c.count;
  r.lmSteps = 200;
  r.lmEvalEvery = r.lmSteps;
  LlmExport& l = r.llm.emplace();
  l.seqLen = c.llm.seqLen;
  l.finetune = c.llm.finetune;
  l.loraRank = c.llm.loraRank;
  if (c.llm.plan) l.plan = *c.llm.plan, l.planGiven = true;
  l.stackId = c.stackId;
  return r;
}

void chooseLlmPlan(ExportRequest& r, const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks) {
  LlmExport& l = *r.llm;
  const hw::DeviceSpec* device = r.deviceId.empty() ? nullptr : devices.find(r.deviceId);
  if (!r.deviceId.empty() && !device) throw util::FieldError("device", "'" + r.deviceId + "' is not in the catalog");
  if (device && device->kind == hw::DeviceKind::Tpu)
    throw util::FieldError("device", r.deviceId + " is a TPU: the exported job is PyTorch on CUDA or ROCm or on a CPU; "
                                     "a TPU runs JAX or PyTorch/XLA");
  const hw::StackSpec& stack =
      l.stackId.empty() ? stacks.defaultFor(device ? device->kind : hw::DeviceKind::Gpu) : stacks.at(l.stackId);
  const bool fuses = device && hw::figuresFor(stack, *device).fusesElementwise.value_or(false);
  if (stack.id == "pytorch-eager" || stack.id == "pytorch-compile") {
    l.stackId = stack.id;
    l.compile = stack.id == "pytorch-compile";
  } else {
    l.stackId = fuses ? "pytorch-compile" : "pytorch-eager";
    l.compile = fuses;
    l.stackNote = "the stack " + stack.id + " (" + stack.name + ") is not plain PyTorch; the job runs " + l.stackId +
                  ", its nearest, and is judged as " + l.stackId;
  }
  if (l.planGiven) {
    l.planReason = "given with --parallel";
    return;
  }
  if (!device) {
    l.plan = sim::ParallelPlan{};
    l.plan.dp = r.count;
    l.plan.microBatch = std::max(1, r.train.batch / r.count);
    l.planReason = "data parallel over the " + std::to_string(r.count) + " processes (name --device for the simulator's plan)";
    return;
  }
  sim::SimConfig c;
  c.modelId = r.train.modelId;
  c.deviceId = device->id;
  c.stackId = l.stackId;
  c.count = r.count;
  c.batch = r.train.batch;
  c.precision = r.train.precision;
  c.llm.seqLen = l.seqLen;
  c.llm.finetune = l.finetune;
  c.llm.loraRank = l.loraRank;
  c.llm.dataParallelOnly = true;
  const sim::SimReport report = sim::simulateLlm(c, *device, stacks.at(l.stackId));
  l.plan = report.llm->plan;
  if (nn::transformerSpec(c.modelId).kind == nn::TransformerKind::Vision) {
    // A vision transformer's job runs the classifier loop: DDP or FSDP, one micro-batch a step.
    l.plan.zero = l.plan.zero == 3 ? 3 : 0;
    l.plan.microBatch = r.train.batch / l.plan.dp;
  }
  // A CPU's count is processes sharing one machine, a GPU's its devices.
  const bool cpu = device->kind == hw::DeviceKind::Cpu;
  const std::string where = cpu ? std::to_string(r.count) + (r.count == 1 ? " process" : " processes") + " on " + device->id
                                : std::to_string(r.count) + "x " + device->id;
  const std::string use = gib(report.memoryBytesPerDevice) + " of " + gib(report.memoryCapacityBytes) +
                          (cpu ? " per process" : " per device");
  l.planReason = report.fitsInMemory
                     ? "the simulator's fastest plan for " + where + " under " + l.stackId + " among the " +
                           std::to_string(report.llm->plansConsidered) + " a plain PyTorch job can run (" + use + ")"
                     : "no plan a plain PyTorch job can run fits " + where + " (" + use +
                           " at the closest): expect out-of-memory there";
}

}  // namespace core::bridge
