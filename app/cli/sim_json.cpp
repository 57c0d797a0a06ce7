#include "app/cli/sim_json.h"

#include <cmath>

#include "core/hw/catalog_files.h"

namespace app::cli {

using core::util::Json;

namespace {
// Six significant digits: enough for every figure, and stable output for golden files.
Json rounded(double v) {
  if (v == 0 || !std::isfinite(v)) return Json(v);
  const double scale = std::pow(10.0, 5 - static_cast<int>(std::floor(std::log10(std::abs(v)))));
  return Json(std::round(v * scale) / scale);
}
Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(); }
}  // namespace

Json reportJson(const core::sim::SimReport& r) {
  const auto& c = r.config;
  Json j = Json::object();
  j.set("model", c.modelId);
  j.set("dataset", c.datasetId);
  j.set("device", c.deviceId);
  j.set("stack", c.stackId);
  j.set("stack_name", r.stackName);
  j.set("count", c.count);
  if (r.vcpus > 0) {
    j.set("vcpus", r.vcpus);
    j.set("cpu_build", core::sim::cpuBuildName(c.cpuBuild));
  }
  j.set("batch", c.batch);
  j.set("per_device_batch", r.perDeviceBatch);
  j.set("precision", core::util::precisionName(c.precision));
  j.set("epochs", c.epochs);
  j.set("step_seconds", rounded(r.stepSeconds));
  j.set("images_per_second", rounded(r.imagesPerSecond));
  j.set("steps_per_epoch", r.stepsPerEpoch);
  j.set("epoch_seconds", rounded(r.epochSeconds));
  j.set("first_epoch_seconds", rounded(r.firstEpochSeconds));
  j.set("compile_seconds", rounded(r.compileSeconds));
  j.set("eval_each_epoch", c.evalEachEpoch);
  j.set("eval_seconds_per_epoch", rounded(r.evalSecondsPerEpoch));
  j.set("run_seconds", rounded(r.runSeconds));
  j.set("price_kind", c.preemptible ? "preemptible" : "on-demand");
  j.set("price_known", r.priceKnown);
  j.set("usd_per_hour", rounded(r.usdPerHour));
  j.set("usd_per_million_images", rounded(r.usdPerMillionImages));
  j.set("usd_per_run", rounded(r.usdPerRun));
  j.set("memory_bytes_per_device", std::round(r.memoryBytesPerDevice));
  j.set("memory_capacity_bytes", std::round(r.memoryCapacityBytes));
  j.set("fits_in_memory", r.fitsInMemory);
  j.set("peak_tflops", rounded(r.peakTflops));
  j.set("achieved_tflops", rounded(r.achievedTflops));
  j.set("utilization", rounded(r.utilization));
  j.set("bound", core::sim::boundName(r.bound));
  j.set("explanation", r.explanation);
  if (!r.contrastStackId.empty()) {
    Json o = Json::object();
    o.set("stack", r.contrastStackId);
    o.set("step_seconds", rounded(r.contrastStepSeconds));
    j.set("other_stack", o);
  }
  Json b = Json::object();
  b.set("compute_seconds", rounded(r.breakdown.computeSeconds));
  b.set("memory_seconds", rounded(r.breakdown.memorySeconds));
  b.set("overhead_seconds", rounded(r.breakdown.overheadSeconds));
  b.set("input_seconds", rounded(r.breakdown.inputSeconds));
  b.set("communication_seconds", rounded(r.breakdown.communicationSeconds));
  j.set("breakdown", b);
  return j;
}

Json deviceJson(const core::hw::DeviceSpec& d) {
  Json j = Json::object();
  j.set("id", d.id);
  j.set("name", d.name);
  j.set("kind", core::hw::deviceKindName(d.kind));
  if (!d.generation.empty()) j.set("generation", d.generation);
  j.set("measured", d.measured);
  j.set("peak_tflops_fp32", opt(d.peakTflopsFp32));
  j.set("peak_tflops_tf32", opt(d.peakTflopsTf32));
  j.set("peak_tflops_fp16", opt(d.peakTflopsFp16));
  j.set("peak_tflops_bf16", opt(d.peakTflopsBf16));
  j.set("peak_tflops_fp8", opt(d.peakTflopsFp8));
  if (d.chipsPerDevice > 1) j.set("chips_per_device", d.chipsPerDevice);
  j.set("mem_gib", d.memGib);
  j.set("mem_bandwidth_gbps", d.memBandwidthGBps);
  j.set("interconnect_gbps", opt(d.interconnectGBps));
  if (d.kind == core::hw::DeviceKind::Cpu) {
    j.set("per", "vcpu");
    j.set("vcpus_default", d.vcpusDefault);
    j.set("vcpus_max", d.vcpusMax);
  }
  j.set("usd_per_hour_on_demand", opt(d.usdPerHourOnDemand));
  j.set("usd_per_hour_preemptible", opt(d.usdPerHourPreemptible));
  j.set("price_date", d.priceDate);
  j.set("notes", d.notes);
  j.set("file", d.filePath);
  j.set("sources", core::hw::sourcesToJson(d.sources));
  return j;
}

}  // namespace app::cli
