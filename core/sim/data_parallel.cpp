#include "core/sim/data_parallel.h"

#include <algorithm>

namespace core::sim {

double ringAllReduceSeconds(double bytes, int participants, double bytesPerSecond, double hopLatencySeconds) {
  if (participants <= 1 || bytes <= 0) return 0.0;
  const double n = participants;
  const double transfer = bytesPerSecond > 0 ? 2.0 * (n - 1) / n * bytes / bytesPerSecond : 0.0;
  return transfer + 2.0 * (n - 1) * hopLatencySeconds;
}

double exposedCommunicationSeconds(double allReduceSeconds, double backwardSeconds) {
  if (allReduceSeconds <= 0) return 0.0;
  return std::max(allReduceSeconds * kNonOverlappableShare, allReduceSeconds - backwardSeconds);
}

}  // namespace core::sim
