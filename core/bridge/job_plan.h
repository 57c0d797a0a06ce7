#pragma once
// How an exported multi-device job should run, as the simulator sees it: DDP (every device holds
// the whole model) when the model fits one device, FSDP (weights, gradients and optimizer state
// sharded) when it does not.
#include "core/bridge/torch_export.h"
#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/sim_report.h"

namespace core::bridge {

// A transformer's job as simulate describes it (`c`: model, precision, global batch, sequence,
// fine-tuning, LoRA rank, a plan if given, device and count, stack): synthetic data (images for
// a ViT), 200 steps, evaluated at the end. What export-script --model and the LLM planner's
// Export Job… both start from; chooseLlmPlan then settles the stack and the plan.
ExportRequest transformerExportRequest(const sim::SimConfig& c);

// Sets request.strategy and request.strategyReason for request.deviceId x request.count.
// Throws core::util::Error naming the device when the simulator cannot run the configuration.
void chooseStrategy(ExportRequest& request, const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks);

// A transformer job (request.llm): the stack it stands for (the one named, else the device
// kind's default; a stack plain PyTorch is not, such as NeMo's, becomes pytorch-compile or
// pytorch-eager by whether it fuses, with a note) and, unless request.llm->planGiven, the plan:
// the fastest the exported job can run (tp = pp = ep = 1) that fits request.count devices, from
// the simulator's own search; without a device, dp = count, one micro-batch per replica.
// Throws core::util::Error naming the option when the simulator cannot run the configuration.
void chooseLlmPlan(ExportRequest& request, const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks);

}  // namespace core::bridge
