#include "core/hw/software_figures.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "core/util/json.h"

namespace core::hw {
namespace {

using util::Error;
using util::failKey;
using util::Json;

enum class Check { Fraction, Seconds, Factor, Positive, Bytes, Tile, Flag, Pipeline, AllReduce };

// One figure key: its check, its plausible range (outside it the file is refused, with the
// range named) and the field it fills.
struct FigureDef {
  const char* name;
  Check check;
  double min, max;
  std::function<void(SoftwareFigures&, double)> set;
  std::function<std::optional<double>(const SoftwareFigures&)> get;
};

#define ACCELLAB_FIG(key, member, check, lo, hi)                                                  \
  FigureDef {                                                                                     \
    key, check, lo, hi, [](SoftwareFigures& f, double v) { f.member = v; },                       \
        [](const SoftwareFigures& f) -> std::optional<double> {                                    \
          return f.member ? std::optional<double>(static_cast<double>(*f.member)) : std::nullopt; \
        }                                                                                         \
  }

// A true/false figure: stored as 1 or 0 in the table's number.
FigureDef flagFigure(const char* key, std::optional<bool> SoftwareFigures::*member) {
  return FigureDef{key, Check::Flag, 0, 1, [member](SoftwareFigures& f, double v) { f.*member = v != 0; },
                   [member](const SoftwareFigures& f) -> std::optional<double> {
                     return f.*member ? std::optional<double>(*(f.*member) ? 1.0 : 0.0) : std::nullopt;
                   }};
}

const std::vector<FigureDef>& figureTable() {
  static const std::vector<FigureDef> table = {
      ACCELLAB_FIG("gemm_efficiency", gemmEfficiency, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("gemm_efficiency_fp32", gemmEfficiencyFp32, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("depthwise_efficiency", depthwiseEfficiency, Check::Fraction, 0.001, 1.0),
      ACCELLAB_FIG("mem_efficiency", memEfficiency, Check::Fraction, 0.05, 1.0),
      ACCELLAB_FIG("kernel_launch_seconds", kernelLaunchSeconds, Check::Seconds, 0.0, 1e-2),
      ACCELLAB_FIG("step_overhead_seconds", stepOverheadSeconds, Check::Seconds, 0.0, 10.0),
      ACCELLAB_FIG("compile_seconds", compileSeconds, Check::Seconds, 0.0, 3600.0),
      ACCELLAB_FIG("compile_seconds_per_layer", compileSecondsPerLayer, Check::Seconds, 0.0, 60.0),
      ACCELLAB_FIG("sync_seconds_per_thread", syncSecondsPerThread, Check::Seconds, 0.0, 1e-2),
      ACCELLAB_FIG("cross_socket_sync_factor", crossSocketSyncFactor, Check::Factor, 1.0, 10.0),
      ACCELLAB_FIG("pip_build_factor", pipBuildFactor, Check::Fraction, 0.05, 1.0),
      ACCELLAB_FIG("framework_reserve_gib", frameworkReserveGib, Check::Positive, 0.0, 64.0),
      ACCELLAB_FIG("optimizer_bytes_per_param", optimizerBytesPerParam, Check::Bytes, 1.0, 1024.0),
      ACCELLAB_FIG("host_jpeg_mbps_per_vcpu", hostJpegMBpsPerVcpu, Check::Positive, 0.1, 1e4),
      ACCELLAB_FIG("device_jpeg_mbps", deviceJpegMBps, Check::Positive, 1.0, 1e6),
      ACCELLAB_FIG("matrix_tile_min", matrixTileMin, Check::Tile, 1.0, 4096.0),
      ACCELLAB_FIG("matmul_efficiency", matmulEfficiency, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("matmul_efficiency_fp32", matmulEfficiencyFp32, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("fp8_matmul_efficiency", fp8MatmulEfficiency, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("fp4_matmul_efficiency", fp4MatmulEfficiency, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("comm_efficiency", commEfficiency, Check::Fraction, 0.05, 1.0),
      flagFigure("fused_attention", &SoftwareFigures::fusedAttention),
      flagFigure("fuses_elementwise", &SoftwareFigures::fusesElementwise),
      flagFigure("autocast", &SoftwareFigures::autocast),
      flagFigure("fused_loss", &SoftwareFigures::fusedLoss),
      flagFigure("fuses_epilogues", &SoftwareFigures::fusesEpilogues),
      flagFigure("channels_last", &SoftwareFigures::channelsLast),
      flagFigure("fp32_activations", &SoftwareFigures::fp32Activations),
      FigureDef{"input_pipeline", Check::Pipeline, 0, 1,
                [](SoftwareFigures& f, double v) {
                  f.inputPipeline = v != 0 ? InputPipeline::DeviceDecode : InputPipeline::HostDecode;
                },
                [](const SoftwareFigures& f) -> std::optional<double> {
                  if (!f.inputPipeline) return std::nullopt;
                  return *f.inputPipeline == InputPipeline::DeviceDecode ? 1.0 : 0.0;
                }},
      FigureDef{"allreduce", Check::AllReduce, 0, 1,
                [](SoftwareFigures& f, double v) {
                  f.allReduce = v != 0 ? AllReduceMode::AfterBackward : AllReduceMode::Bucketed;
                },
                [](const SoftwareFigures& f) -> std::optional<double> {
                  if (!f.allReduce) return std::nullopt;
                  return *f.allReduce == AllReduceMode::AfterBackward ? 1.0 : 0.0;
                }},
  };
  return table;
}

#undef ACCELLAB_FIG

const FigureDef* findFigure(const std::string& key) {
  for (const auto& f : figureTable())
    if (key == f.name) return &f;
  return nullptr;
}

// A figure's value as the number the table stores, checked.
double figureNumber(const std::string& path, const std::string& where, const FigureDef& def, const Json& v) {
  if (v.isNull()) failKey(path, where, "null is not allowed; leave the key out to mean \"not set\"");
  switch (def.check) {
    case Check::Flag:
      if (!v.isBool()) failKey(path, where, "must be true or false");
      return v.asBool() ? 1.0 : 0.0;
    case Check::Pipeline:
      if (!v.isString() || (v.asString() != "host-decode" && v.asString() != "device-decode"))
        failKey(path, where, "must be \"host-decode\" or \"device-decode\"");
      return v.asString() == "device-decode" ? 1.0 : 0.0;
    case Check::AllReduce:
      if (!v.isString() || (v.asString() != "bucketed" && v.asString() != "after-backward"))
        failKey(path, where, "must be \"bucketed\" or \"after-backward\"");
      return v.asString() == "after-backward" ? 1.0 : 0.0;
    default: break;
  }
  if (!v.isNumber()) failKey(path, where, "must be a number");
  const double x = v.asNumber();
  if (!std::isfinite(x)) failKey(path, where, "must be finite");
  const std::string range = "[" + util::formatNumber(def.min) + ", " + util::formatNumber(def.max) + "]";
  if (x < def.min || x > def.max)
    failKey(path, where, util::formatNumber(x) + " is outside the plausible range " + range);
  if (def.check == Check::Fraction && x <= 0) failKey(path, where, "must be a fraction in (0, 1]");
  if (def.check == Check::Tile && x != std::floor(x)) failKey(path, where, "must be a whole number");
  return x;
}

Json figureJson(const FigureDef& def, double x) {
  switch (def.check) {
    case Check::Flag: return Json(x != 0);
    case Check::Pipeline: return Json(x != 0 ? "device-decode" : "host-decode");
    case Check::AllReduce: return Json(x != 0 ? "after-backward" : "bucketed");
    default: return Json(x);
  }
}

}  // namespace

const std::vector<std::string>& stackFigureKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& d : figureTable()) k.emplace_back(d.name);
    return k;
  }();
  return keys;
}

std::optional<double> figureValue(const SoftwareFigures& f, const std::string& key) {
  const FigureDef* def = findFigure(key);
  if (!def) throw Error("unknown stack figure '" + key + "'");
  return def->get(f);
}

std::pair<double, double> figureRange(const std::string& key) {
  const FigureDef* def = findFigure(key);
  if (!def) throw Error("unknown stack figure '" + key + "'");
  return {def->min, def->max};
}

void setFigure(SoftwareFigures& f, const std::string& key, double value) {
  const FigureDef* def = findFigure(key);
  if (!def) throw Error("unknown stack figure '" + key + "'");
  def->set(f, value);
}

void readFigure(SoftwareFigures& f, const std::string& path, const std::string& where, const std::string& key,
                const Json& value) {
  const FigureDef* def = findFigure(key);
  if (!def) failKey(path, where, "unknown software figure (known: see resources/stacks/README.md)");
  def->set(f, figureNumber(path, where, *def, value));
}

SoftwareFigures overlay(SoftwareFigures base, const SoftwareFigures& over) {
  for (const auto& def : figureTable())
    if (const auto v = def.get(over)) def.set(base, *v);
  return base;
}

bool isStackFigure(const std::string& key) { return findFigure(key) != nullptr; }

Json figureToJson(const std::string& key, double value) {
  const FigureDef* def = findFigure(key);
  if (!def) throw Error("unknown stack figure '" + key + "'");
  return figureJson(*def, value);
}

}  // namespace core::hw
