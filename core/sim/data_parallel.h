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
// Devices grouped in nodes of `perNode` (0: one flat ring): the gradients are reduce-scattered
// within each node over `intraBytesPerSecond`, each device all-reduces its 1/perNode share with
// its peers in the other nodes over `interBytesPerSecond` (a tree: 2 log2(nodes) latency hops),
// then all-gathered in the node: NCCL's hierarchical all-reduce.
double hierarchicalAllReduceSeconds(double bytes, int devices, int perNode, double intraBytesPerSecond,
                                    double interBytesPerSecond, double hopLatencySeconds);
// `afterBackward`: the stack starts the all-reduce only when backward is done; none of it hides.
double exposedCommunicationSeconds(double allReduceSeconds, double backwardSeconds, bool afterBackward = false);

}  // namespace core::sim
