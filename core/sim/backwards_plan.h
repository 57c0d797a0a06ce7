#pragma once
// Planning backwards: given the tokens to train and a deadline or a budget (or both), the
// smallest count of one device that meets them, with its parallel plan, time and cost, or why
// no count does. Each count is simulated as the forward question would be (simulateLlm, plan
// search included); nothing is extrapolated.
#include <string>
#include <vector>

#include "core/hw/device_spec.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/llm_simulator.h"

namespace core::sim {

struct BackwardsGoal {
  double tokens = 0;            // to train (> 0)
  double deadlineSeconds = 0;   // 0 = none
  double budgetUsd = 0;         // 0 = none
  int maxCount = 65536;         // devices the search may use at most
};

struct BackwardsAnswer {
  bool met = false;
  int count = 0;                // the smallest count found that meets the goal (met)
  SimReport report;             // at that count (met), or the count that came closest
  bool hasReport = false;
  std::string why;              // when not met: what stops every count
  std::vector<int> countsTried; // in the order simulated
};

// Counts are tried doubling from 1 (a TPU board counts as one device), then the gap between the
// last count that failed and the first that met is narrowed by bisection, in whole nodes once
// a count spans more than one node. A count no plan can run (the batch does not split) counts
// as not meeting. Throws core::util::Error for a goal without tokens or without a deadline or
// a budget, and what simulateLlm throws for the configuration itself (unknown model, ...).
BackwardsAnswer planBackwards(const SimConfig& base, const hw::DeviceSpec& device, const hw::StackSpec& stack,
                              const BackwardsGoal& goal);

}  // namespace core::sim
