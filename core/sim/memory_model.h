#pragma once
// Memory one replica needs for training: fp32 weights (plus a 16-bit copy in mixed
// precision), fp32 gradients, the optimizer's state (Adam: two fp32 moments), the activations
// kept for the backward pass at the replica's batch, a working buffer for the largest layer,
// and what the runtime reserves. Compared with the device's memory, it decides whether the
// configuration fits (an outcome, not an error).
#include "core/sim/workload.h"

namespace core::sim {

inline constexpr double kOptimizerSlotsPerParam = 2;  // Adam's m and v

struct MemoryEstimate {
  double weightBytes = 0;
  double gradientBytes = 0;
  double optimizerBytes = 0;
  double activationBytes = 0;
  double workspaceBytes = 0;
  double reserveBytes = 0;
  double total() const {
    return weightBytes + gradientBytes + optimizerBytes + activationBytes + workspaceBytes + reserveBytes;
  }
};

// `samples` on this replica; `bytesPerActivation` 4 or 2; `fused`: elementwise layers keep no
// tensors of their own (XLA).
MemoryEstimate replicaMemory(const Workload& w, double samples, double bytesPerActivation, double reserveBytes,
                             bool fused = false);

}  // namespace core::sim
