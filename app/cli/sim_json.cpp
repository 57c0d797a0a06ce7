#include "app/cli/sim_json.h"

#include <cmath>

#include "core/hw/catalog_files.h"

namespace app::cli {

using core::util::Json;

namespace {
Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(); }
}  // namespace

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
  j.set("peak_tflops_fp4", opt(d.peakTflopsFp4));
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
  j.set("price_date", d.priceDate.empty() ? Json() : Json(d.priceDate));
  // "listed": a dated on-demand price; "none": none found as of price_date (never a 0 price).
  j.set("price_status", d.usdPerHourOnDemand ? "listed" : "none");
  j.set("price_seller", d.priceSeller.empty() ? Json() : Json(d.priceSeller));
  j.set("board_power_watts", opt(d.boardPowerWatts));
  j.set("training_power_watts", opt(d.trainingPowerWatts));
  j.set("notes", d.notes);
  j.set("file", d.filePath);
  j.set("sources", core::hw::sourcesToJson(d.sources));
  return j;
}

}  // namespace app::cli
