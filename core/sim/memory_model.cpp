#include "core/sim/memory_model.h"

namespace core::sim {

MemoryEstimate replicaMemory(const Workload& w, double samples, double bytesPerActivation, double reserveBytes,
                             bool fused) {
  MemoryEstimate m;
  const double params = static_cast<double>(w.params);
  const double act = bytesPerActivation / 4.0;
  m.weightBytes = 4.0 * (params + static_cast<double>(w.nonTrainableParams)) + (act < 1.0 ? 2.0 * params : 0.0);
  m.gradientBytes = 4.0 * params;
  m.optimizerBytes = 4.0 * kOptimizerSlotsPerParam * params;
  m.activationBytes = (fused ? w.savedBytesFused : w.savedBytes) * samples * act;
  m.workspaceBytes = w.maxLayerBytes * samples * act;  // the live input/output pair of the widest layer
  m.reserveBytes = reserveBytes;
  return m;
}

}  // namespace core::sim
