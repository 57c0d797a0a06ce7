#pragma once
// CONTRACT: the figures that belong to the software that runs on a device, not to the device:
// how close its kernels get to the peaks, what each op and step costs, whether it fuses
// element-wise work, how it feeds and synchronises. A software stack file
// (resources/stacks/<id>.json, core/hw/stack_catalog) holds them per hardware generation; the
// simulator resolves one set for a (stack, device) pair. std::optional = "not set": the
// simulator then uses the documented default of the device's kind.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/util/json.h"

namespace core::hw {

// How the input pipeline decodes JPEG images: on the host's vCPUs (Keras, tf.data, torchvision)
// or on the accelerator (NVIDIA DALI / nvJPEG).
enum class InputPipeline { HostDecode, DeviceDecode };
// When gradients are all-reduced: in buckets while backward still runs (Horovod, DDP, NCCL in
// tuned containers, XLA) or after the whole backward pass.
enum class AllReduceMode { Bucketed, AfterBackward };

struct SoftwareFigures {
  std::optional<double> gemmEfficiency;       // fraction of the precision's peak a large GEMM reaches
  std::optional<double> gemmEfficiencyFp32;   // the same on the fp32 (CUDA-core) path of a GPU with matrix units
  std::optional<double> depthwiseEfficiency;  // of the vector units' peak, for grouped convolutions
  std::optional<double> memEfficiency;        // fraction of the bandwidth streaming kernels reach
  std::optional<double> kernelLaunchSeconds;  // per op dispatch / kernel launch
  std::optional<double> stepOverheadSeconds;  // per training step (framework, feed, sync)
  std::optional<double> compileSeconds;       // first step: graph build / XLA compile, fixed part
  std::optional<double> compileSecondsPerLayer;
  std::optional<double> syncSecondsPerThread;   // CPU: per op, per extra thread (barrier/wake-up)
  std::optional<double> crossSocketSyncFactor;  // CPU: barrier cost across sockets vs within one
  std::optional<double> pipBuildFactor;         // CPU: compute rate of a no-AVX2/FMA build vs compiled
  std::optional<double> frameworkReserveGib;    // memory the runtime keeps (context, workspace)
  std::optional<double> optimizerBytesPerParam; // optimizer update traffic per trainable parameter
  std::optional<double> hostJpegMBpsPerVcpu;    // JPEG decode + augment, MB of JPEG/s per host vCPU
  std::optional<double> deviceJpegMBps;         // the same on the device (DALI), MB of JPEG/s per device
  std::optional<int> matrixTileMin;             // narrowest GEMM tile the kernels fall back to
  // Transformers (core/sim/llm_*): plain matmuls (cuBLAS / XLA dot), not convolutions.
  std::optional<double> matmulEfficiency;       // fraction of the precision's peak a large matmul reaches
  std::optional<double> matmulEfficiencyFp32;   // the same on a GPU's fp32 (CUDA-core) path, TF32 off
  std::optional<double> fp8MatmulEfficiency;    // the same for fp8 matmuls (scaling, casts, E4M3/E5M2 kernels)
  std::optional<double> fp4MatmulEfficiency;    // the same for fp4 matmuls (NVFP4/MXFP4 block scaling); default: fp8's
  std::optional<double> commEfficiency;         // fraction of link bandwidth collectives reach (NCCL bus bw)
  std::optional<bool> fusedAttention;           // FlashAttention-style kernels: no T x T matrix in memory
  std::optional<bool> fusesElementwise;         // BN, activations, adds fused into their producer
  // PyTorch autocast over fp32 modules at 16-bit precisions: fp32 residual stream and norms,
  // weights cast to 16 bits every forward and their gradients back (transformers).
  std::optional<bool> autocast;
  // The loss over the vocabulary as one fused kernel that keeps the logits and their fp32
  // gradient (default: true); false: eager PyTorch's cross_entropy(logits.float()), whose
  // backward holds three fp32 tensors of the logits' size at once.
  std::optional<bool> fusedLoss;
  // Activations and bias gradients fused into the matmuls' epilogues (cuBLASLt epilogues in
  // Transformer Engine, XLA); default: as fuses_elementwise. torch.compile's default mode: no.
  std::optional<bool> fusesEpilogues;
  // CNNs on tensor cores at 16 bits: activations in channels_last (NHWC), as the tensor-core
  // convolution kernels want them (default: true); false: NCHW, PyTorch's default, where cuDNN
  // transposes each convolution's tensors to and from NHWC around its kernels.
  std::optional<bool> channelsLast;
  // Activations stored in fp32 whatever the GEMM precision, rounded to it as the GEMMs pack
  // their operands (AccelLab's CPU engine): a 16-bit run moves fp32 bytes between layers.
  std::optional<bool> fp32Activations;
  std::optional<InputPipeline> inputPipeline;
  std::optional<AllReduceMode> allReduce;
};

// The figure table (core/hw/software_figures.cpp): one row per figure key of a stack file, with
// its check and plausible range. Device files' calibrated_software reads the same keys.

// The figure keys a stack file may set, in file order.
const std::vector<std::string>& stackFigureKeys();
bool isStackFigure(const std::string& key);
// `over`'s set figures replace `base`'s (every key of the figure table).
SoftwareFigures overlay(SoftwareFigures base, const SoftwareFigures& over);
// One figure of a set, by key, as a number (bools 0/1, enums their index); nullopt when unset.
// setFigure() writes a number back (the fit uses them).
std::optional<double> figureValue(const SoftwareFigures& f, const std::string& key);
void setFigure(SoftwareFigures& f, const std::string& key, double value);
// The plausible range a file may give a numeric figure ({min, max}); throws for an unknown key.
std::pair<double, double> figureRange(const std::string& key);
// Reads one figure from a file's JSON value, checked (type and range); throws core::util::Error
// "<path>: key '<where>': ..." naming the range or the type it wants.
void readFigure(SoftwareFigures& f, const std::string& path, const std::string& where, const std::string& key,
                const util::Json& value);
// A figure's number as its file writes it (true/false, "device-decode", 0.8).
util::Json figureToJson(const std::string& key, double value);

}  // namespace core::hw
