#pragma once
// CONTRACT: the channel that carries a run's samples (core/experiment/run_samples.h) from the
// training thread to the GUI or the CLI (no Qt).
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/experiment/names.h"
#include "core/experiment/run_samples.h"

namespace core::train {

using experiment::BatchSample;
using experiment::EpochSample;
using experiment::RunStatus;
using experiment::TextSample;
using experiment::runStatusName;

// The producer buffer (PlotJuggler habit): the training thread appends, the GUI timer
// swaps everything out at ~30 Hz. Nothing is emitted per batch.
class MetricsChannel {
public:
  void push(const BatchSample& s);
  void push(const EpochSample& s);
  void push(const TextSample& s);
  // Moves everything accumulated since the last drain into the outputs (appends).
  void drain(std::vector<BatchSample>& batches, std::vector<EpochSample>& epochs);
  // The same for a language model's generated texts.
  void drainTexts(std::vector<TextSample>& texts);

private:
  std::mutex m_mutex;
  std::vector<BatchSample> m_batches;
  std::vector<EpochSample> m_epochs;
  std::vector<TextSample> m_texts;
};

}  // namespace core::train
