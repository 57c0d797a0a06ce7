#pragma once
// A transformer of the zoo (char-gpt, vit-tiny, gpt2-small, ...) simulated as a training run,
// so the app's charts (epoch time, throughput, cost, memory, why) read it like any other run:
// the step comes from the LLM simulator (core/sim/llm_simulator: attention FLOPs at the model's
// sequence length, the parallel plan, ZeRO, memory), the epoch from the dataset, and the first
// epoch's compilation from the stack, as for the other models. One "image" is one sample: a
// sequence of tokensPerSample tokens for a language model, an image for a ViT.
#include <string>

#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/sim_report.h"

namespace core::sim {

// Throws core::util::Error naming the dataset when `spec` cannot read it: a language model reads
// token sequences (text, fortunes), a ViT images.
void requireTransformerDataset(const nn::TransformerSpec& spec, const std::string& datasetId);

// Throws core::util::Error naming the argument for an unknown dataset, a dataset of the wrong
// kind (a language model needs token sequences; a ViT needs images) or a plan that cannot run.
// The configuration's transformer settings (c.llm: sequence length, fine-tuning, plan) apply as
// they do to a plan; the app leaves them at their defaults (the model's own length, full
// training, the plan searched).
SimReport simulateTransformerRun(const nn::TransformerSpec& spec, const hw::DeviceSpec& device,
                                 const hw::StackSpec& stack, const SimConfig& c);

}  // namespace core::sim
