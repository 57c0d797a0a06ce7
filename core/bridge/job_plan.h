#pragma once
// How an exported multi-device job should run, as the simulator sees it: DDP (every device holds
// the whole model) when the model fits one device, FSDP (weights, gradients and optimizer state
// sharded) when it does not.
#include "core/bridge/torch_export.h"
#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"

namespace core::bridge {

// Sets request.strategy and request.strategyReason for request.deviceId x request.count.
// Throws core::util::Error naming the device when the simulator cannot run the configuration.
void chooseStrategy(ExportRequest& request, const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks);

}  // namespace core::bridge
