#include "core/hw/device_spec.h"

// The device model's vocabulary: kinds and their traits, hardware generations, sellers.
#include <algorithm>
#include <cctype>

namespace core::hw {

const char* deviceKindName(DeviceKind k) { return kDeviceKinds.name(k).data(); }

std::string deviceKindPlural(DeviceKind k) {
  std::string name = deviceKindName(k);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name + "s";
}

DeviceTraits defaultTraits(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Cpu: return {MatrixUnit::Vector, LaunchModel::Inline, FusionRule::AsStack, ReplicaRule::PerDevice};
    case DeviceKind::Tpu:
      return {MatrixUnit::Systolic, LaunchModel::CompiledProgram, FusionRule::Compiler, ReplicaRule::PerCore};
    case DeviceKind::Gpu: break;
  }
  return {MatrixUnit::Simt, LaunchModel::PerKernel, FusionRule::AsStack, ReplicaRule::PerDevice};
}

DeviceTraits traitsOf(const DeviceSpec& spec) {
  DeviceTraits t = defaultTraits(spec.kind);
  if (spec.matrixUnit) t.matrixUnit = *spec.matrixUnit;
  if (spec.launchModel) t.launch = *spec.launchModel;
  if (spec.fusion) t.fusion = *spec.fusion;
  if (spec.replicaRule) t.replicas = *spec.replicaRule;
  return t;
}

const std::vector<std::string>& hardwareGenerations() {
  // NVIDIA, AMD, Intel Gaudi, Google TPU, CPU micro-architectures; "host" is this machine. A new
  // kind of device names its own generation by stating its traits (device_catalog.cpp).
  static const std::vector<std::string> g = {
      "kepler", "maxwell", "pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell",
      "cdna2", "cdna3", "cdna4", "gaudi2", "gaudi3",
      "tpu-v2", "tpu-v3", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7",
      "skylake", "cascade-lake", "ice-lake", "sapphire-rapids", "zen3", "zen4", "host"};
  return g;
}

const std::vector<std::string>& priceSellers() {
  // hyperscaler: AWS, Google Cloud, Azure, OCI list prices; neocloud: GPU clouds (Lambda,
  // CoreWeave, RunPod secure cloud, ...); marketplace: peer hosts (vast.ai, RunPod community);
  // reserved: a committed-use or reservation price.
  static const std::vector<std::string> s = {"hyperscaler", "neocloud", "marketplace", "reserved"};
  return s;
}

namespace {

// The closed vocabularies of a device file (generations, sellers): membership and the list an
// error message names.
bool listed(const std::vector<std::string>& words, const std::string& name) {
  return std::find(words.begin(), words.end(), name) != words.end();
}

std::string listText(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace

bool isPriceSeller(const std::string& name) { return listed(priceSellers(), name); }
std::string priceSellerList() { return listText(priceSellers()); }
bool isHardwareGeneration(const std::string& name) { return listed(hardwareGenerations(), name); }
std::string hardwareGenerationList() { return listText(hardwareGenerations()); }

const SourcedValue* DeviceSpec::sourceOf(const std::string& key) const {
  for (const auto& s : sources)
    if (s.key == key) return &s;
  return nullptr;
}

}  // namespace core::hw
