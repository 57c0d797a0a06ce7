#pragma once
// The one sentence builder of the simulator's "why": what binds a step and by how much, the
// plan (transformers), what does not fit, the precision's fallback, the software and what its
// kernels cost, and the same step under another stack. Every report's explanation is written
// here, whichever model it times, so the reports read alike and cannot drift apart.
#include <cstdint>
#include <string>

#include "core/sim/sim_report.h"

namespace core::sim {

// What the sentence needs beyond the report: facts of the device and the step that the
// report does not keep.
struct StepFacts {
  double deviceSeconds = 0;      // the device's share of the step (the bound's denominator); 0 = the whole step
  double memBytesPerSecond = 0;  // effective, per device (per chip for a transformer's plan)
  bool systolic = false;         // a systolic matrix unit (the MXU idles on narrow layers)
  std::int64_t dispatches = 0;   // op dispatches a step (the CNN/RNN step)
  bool recurrent = false;        // recurrent layers serialise over their time steps
  int hostVcpus = 0;             // the host's vCPUs per device (the input pipeline)
  double gradientBytes = 0;      // all-reduced each step by synchronous data parallel (CNN/RNN)
  bool nchwTransposes = false;   // convolutions transpose NCHW activations for the tensor cores
};

// The report's explanation, from the report's figures (bound, breakdown, utilisation, memory,
// precision note, stack, and r.llm's plan and kernels when it has one) and `f`.
std::string explainStep(const SimReport& r, const StepFacts& f);

// " With <stack> it would be 2.35x slower." (or faster): the same step under `otherStackId`.
std::string contrastSentence(const std::string& otherStackId, double otherOverThisSeconds);

}  // namespace core::sim
