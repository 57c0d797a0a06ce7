#include "core/sim/data_parallel.h"

#include <algorithm>
#include <cmath>

namespace core::sim {

double ringAllReduceSeconds(double bytes, int participants, double bytesPerSecond, double hopLatencySeconds) {
  if (participants <= 1 || bytes <= 0) return 0.0;
  const double n = participants;
  const double transfer = bytesPerSecond > 0 ? 2.0 * (n - 1) / n * bytes / bytesPerSecond : 0.0;
  return transfer + 2.0 * (n - 1) * hopLatencySeconds;
}

double hierarchicalAllReduceSeconds(double bytes, int devices, int perNode, double intraBytesPerSecond,
                                    double interBytesPerSecond, double hopLatencySeconds) {
  if (perNode <= 0 || devices <= perNode || interBytesPerSecond <= 0)
    return ringAllReduceSeconds(bytes, devices, intraBytesPerSecond, hopLatencySeconds);
  const int nodes = (devices + perNode - 1) / perNode;
  const double intra = ringAllReduceSeconds(bytes, perNode, intraBytesPerSecond, hopLatencySeconds);
  const double n = nodes;
  const double inter = 2.0 * (n - 1) / n * (bytes / perNode) / interBytesPerSecond +
                       2.0 * std::ceil(std::log2(n)) * hopLatencySeconds;
  return intra + inter;
}

double exposedCommunicationSeconds(double allReduceSeconds, double backwardSeconds, bool afterBackward) {
  if (allReduceSeconds <= 0) return 0.0;
  if (afterBackward) return allReduceSeconds;
  return std::max(allReduceSeconds * kNonOverlappableShare, allReduceSeconds - backwardSeconds);
}

}  // namespace core::sim
