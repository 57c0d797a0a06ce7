#pragma once
// Recurrent layers serialise over time: step t needs step t-1's state, so a layer of T steps
// (per direction) is T small GEMMs in a row (each direction its own chain) plus the ops of
// every step. On a GPU each of those tiny steps costs a launch latency that the work cannot
// hide, which is why a bidirectional LSTM in Keras 2 ran slower on a K80 than on 32 vCPUs.
#include "core/sim/layer_cost.h"

namespace core::sim {

// Ops one recurrent step launches (Keras 2 LSTM on TF 1.x: the gate GEMM(s), adds, gate
// nonlinearities, the cell update and the while-loop's own control ops).
int opsPerRecurrentStep(Pass pass);

LayerTime recurrentLayerTime(const LayerWork& l, Pass pass, double samplesPerDevice, const ExecutionUnit& u);

// layerTime() or recurrentLayerTime(), whichever fits the layer.
LayerTime anyLayerTime(const LayerWork& l, Pass pass, double samplesPerDevice, const ExecutionUnit& u);

}  // namespace core::sim
