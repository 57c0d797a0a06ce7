#pragma once
// Synchronous data parallelism: every replica computes gradients on its share of the global
// batch, then a ring all-reduce sums them (each participant sends and receives
// 2 (N-1)/N of the gradient bytes, in 2 (N-1) latency-bound hops) before the update. The
// all-reduce of early buckets overlaps the rest of the backward pass; only the part that
// outlasts it, and at least the last bucket, shows in the step.
namespace core::sim {

// The share of the all-reduce that cannot overlap (the last gradient bucket).
inline constexpr double kNonOverlappableShare = 0.2;

double ringAllReduceSeconds(double bytes, int participants, double bytesPerSecond, double hopLatencySeconds);
double exposedCommunicationSeconds(double allReduceSeconds, double backwardSeconds);

}  // namespace core::sim
