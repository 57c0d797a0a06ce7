#include "core/sim/explanation.h"

#include <sstream>

#include "core/util/numbers.h"
#include "core/util/units.h"

namespace core::sim {
namespace {

std::string pct(double x) { return util::percentText(x); }
std::string num(double x, int digits = 3) { return util::explainedNumber(x, digits); }
std::string gib(double bytes) { return num(bytes / util::kBytesPerGib); }

// "Compute binds: 62% of the 0.1 s step is ...": the binding share and what it is made of.
std::string boundSentence(const SimReport& r, const StepFacts& f) {
  const StepBreakdown& b = r.breakdown;
  const double device = f.deviceSeconds > 0 ? f.deviceSeconds : r.stepSeconds;
  const std::string step = num(r.stepSeconds) + " s step";
  const std::string precision = util::precisionName(r.peakPrecision);  // the peak that ran (fp4 on a Hopper: fp8)
  const bool plan = r.llm.has_value();
  switch (r.bound) {
    case Bound::Compute:
      if (plan)
        return "Compute binds: " + pct(b.computeSeconds / device) + " of the " + step +
               " is matmul and attention arithmetic; the model's FLOPs reach " + pct(r.utilization) + " of the " +
               num(r.peakTflops) + " TFLOP/s " + precision + " peak per chip (MFU).";
      return "Compute binds: " + pct(b.computeSeconds / device) + " of the " + step + " is arithmetic, at " +
             pct(r.utilization) + " of the " + num(r.peakTflops) + " TFLOP/s " + precision + " peak (per-device batch " +
             std::to_string(r.perDeviceBatch) +
             (f.systolic ? ": the 128x128 MXU idles on narrow layers and short per-core batches)."
                         : ": small or narrow GEMMs leave the units partly idle).");
    case Bound::Memory:
      return "Memory bandwidth binds: " + pct(b.memorySeconds / device) + " of the " + step +
             (plan ? " moves norms, activations and small matmuls at " + num(f.memBytesPerSecond / 1e9) + " GB/s per chip."
                   : " moves activations, weights and optimizer state at " + num(f.memBytesPerSecond / 1e9) +
                         " GB/s effective.");
    case Bound::Overhead:
      if (plan)
        return "Fixed overheads bind: " + pct(b.overheadSeconds / device) + " of the " + step +
               " is kernel launches and per-step framework work the chips cannot hide at this batch.";
      return "Fixed overheads bind: " + pct(b.overheadSeconds / device) + " of the " + step +
             " is per-step framework work and " + std::to_string(f.dispatches) + " op dispatches" +
             (f.recurrent ? " (recurrent layers serialise over their time steps, each step its own small ops)" : "") +
             ", which the device cannot hide at per-device batch " + std::to_string(r.perDeviceBatch) + ".";
    case Bound::Input:
      return "The input pipeline binds: " + std::to_string(f.hostVcpus) + " host vCPUs per device need " +
             num(b.inputSeconds) + " s to prepare and send each batch, longer than the device's " + num(device) +
             " s step.";
    case Bound::Communication:
      if (plan) {
        const LlmPart& l = *r.llm;
        return "Communication binds: " + num(b.communicationSeconds) + " s of the " + step +
               " is exposed traffic (tensor parallel " + num(l.tpCommSeconds) + " s, data parallel " +
               num(l.dpCommSeconds) + " s, pipeline " + num(l.ppCommSeconds) + " s, experts " + num(l.epCommSeconds) +
               " s) that the links cannot hide behind compute.";
      }
      return "Communication binds: the ring all-reduce of " + num(f.gradientBytes / 1e6) + " MB of gradients over " +
             std::to_string(r.config.count) + " devices leaves " + num(b.communicationSeconds) +
             " s per step not hidden behind the backward pass.";
  }
  return "";
}

// A transformer's plan: the bubble, the plan and the search, memory per chip by kind.
std::string planSentences(const SimReport& r) {
  const LlmPart& l = *r.llm;
  std::string out;
  if (l.bubbleSeconds > 0.05 * r.stepSeconds)
    out += " The pipeline's fill and drain idle the stages " + pct(l.bubbleSeconds / r.stepSeconds) + " of the step.";
  out += " Plan: " + l.plan.describe();
  if (l.planSearched)
    out += " (the fastest of " + std::to_string(l.plansFitting) + " plans that fit, of " +
           std::to_string(l.plansConsidered) + " considered)";
  const MemoryBreakdown& m = l.memory;
  out += ". Per chip: " + gib(m.total()) + " of " + gib(r.memoryCapacityBytes) + " GiB (weights " + gib(m.weightBytes) +
         ", gradients " + gib(m.gradientBytes) + ", optimizer " + gib(m.optimizerBytes) + ", activations " +
         gib(m.activationBytes) + ")";
  out += r.fitsInMemory ? "." : ": it does NOT fit.";
  return out;
}

// What the stack's kernel count costs: hidden while the device has queued work.
std::string kernelClause(const SimReport& r) {
  const LlmPart& l = *r.llm;
  if (l.kernelsPerStep <= 0 || l.hostSeconds <= 0) return "";
  const double exposed = l.exposedHostSeconds;
  return ", " + std::to_string(l.kernelsPerStep) + " kernels a step, dispatched in " + num(l.hostSeconds) +
         " s of host time (" +
         (exposed > 0.05 * r.stepSeconds ? num(exposed) + " s of it not hidden behind the device's work"
                                         : "hidden behind the device's work") +
         ")";
}

}  // namespace

std::string explainStep(const SimReport& r, const StepFacts& f) {
  std::string out = boundSentence(r, f);
  if (r.llm) {
    out += planSentences(r);
  } else if (!r.fitsInMemory) {
    out += " It does not fit: it needs " + gib(r.memoryBytesPerDevice) + " GiB per device of " +
           gib(r.memoryCapacityBytes) + " GiB.";
  }
  if (!r.precisionNote.empty()) out += " Note: " + r.precisionNote + ".";
  out += " Software: " + r.stackName + (r.llm ? kernelClause(r) : "") + ".";
  if (f.nchwTransposes)
    out += " Activations in NCHW: each convolution's tensors are transposed to and from the NHWC layout the tensor "
           "cores want (channels_last would save that traffic).";
  return out;
}

std::string contrastSentence(const std::string& otherStackId, double otherOverThisSeconds) {
  const double f = otherOverThisSeconds;
  const double times = f >= 1 ? f : 1.0 / f;
  std::ostringstream os;
  os.precision(2);
  if (times < 1e6) os << std::fixed;  // 2.35x; an absurd stack's 1e+300x as a power of ten
  os << times;
  return " With " + otherStackId + " it would be " + os.str() + (f >= 1 ? "x slower." : "x faster.");
}

}  // namespace core::sim
