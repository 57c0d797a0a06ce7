#pragma once
// The simulator: a configuration (model, dataset, device, stack, count, batch, precision, ...) in, a
// SimReport out. The model's layers come from core::nn::modelStats (the same definitions the
// engine trains), the dataset's from core::data::datasetInfo; both are cached per
// (model, dataset), so sweeps cost microseconds per configuration. Thread-safe.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/sim_report.h"
#include "core/sim/workload.h"

namespace core::sim {

class Simulator {
public:
  Simulator(const hw::DeviceCatalog& catalog, const hw::StackCatalog& stacks);

  // Throws core::util::Error for unknown ids (model, dataset, device) and impossible values
  // (batch < 1, count < 1, batch not divisible by count, vCPUs out of range, ...), naming the
  // argument. A configuration that does not fit in memory is a report with fitsInMemory false.
  SimReport simulate(const SimConfig& c) const;

  // The cached workload of (model, dataset[, your image folder]); throws for unknown ids.
  std::shared_ptr<const Workload> workload(const std::string& modelId, const std::string& datasetId,
                                           const std::string& dataDir = {}) const;

  const hw::DeviceCatalog& catalog() const { return m_catalog; }
  const hw::StackCatalog& stacks() const { return m_stacks; }
  // Adds or replaces one stack (the fit tries figures this way). Not to be called while
  // another thread simulates.
  void replaceStack(hw::StackSpec stack) { m_stacks.add(std::move(stack)); }
  // The stack `c` runs: c.stackId, or the default for its device's kind. Throws for unknown ids.
  const hw::StackSpec& stackFor(const SimConfig& c) const;

private:
  const hw::StackSpec* contrastStack(const hw::StackSpec& stack, hw::DeviceKind kind) const;

  hw::DeviceCatalog m_catalog;
  hw::StackCatalog m_stacks;
  mutable std::mutex m_mutex;
  mutable std::map<std::tuple<std::string, std::string, std::string>, std::shared_ptr<const Workload>> m_workloads;
};

// The whole simulation of a prepared workload on one device (pure; what simulate() calls).
SimReport simulateWorkload(const Workload& w, const hw::DeviceSpec& d, const hw::StackSpec& stack, const SimConfig& c);

}  // namespace core::sim
