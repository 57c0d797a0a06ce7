#include "core/train/metrics.h"

#include <iterator>

namespace core::train {

void MetricsChannel::push(const BatchSample& s) {
  const std::lock_guard lock(m_mutex);
  m_batches.push_back(s);
}

void MetricsChannel::push(const EpochSample& s) {
  const std::lock_guard lock(m_mutex);
  m_epochs.push_back(s);
}

void MetricsChannel::push(const TextSample& s) {
  const std::lock_guard lock(m_mutex);
  m_texts.push_back(s);
}

void MetricsChannel::drainTexts(std::vector<TextSample>& texts) {
  std::vector<TextSample> t;
  {
    const std::lock_guard lock(m_mutex);
    t.swap(m_texts);
  }
  texts.insert(texts.end(), std::make_move_iterator(t.begin()), std::make_move_iterator(t.end()));
}

void MetricsChannel::drain(std::vector<BatchSample>& batches, std::vector<EpochSample>& epochs) {
  std::vector<BatchSample> b;
  std::vector<EpochSample> e;
  {
    // Swap under the lock, copy outside it: the training thread never waits on the reader.
    const std::lock_guard lock(m_mutex);
    b.swap(m_batches);
    e.swap(m_epochs);
  }
  batches.insert(batches.end(), b.begin(), b.end());
  epochs.insert(epochs.end(), e.begin(), e.end());
}

}  // namespace core::train
