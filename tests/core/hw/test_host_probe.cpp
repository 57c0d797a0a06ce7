// The measured `host` device: a measurement becomes a valid spec, and the cache is reused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/hw/host_probe.h"
#include "core/nn/gemm.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace fs = std::filesystem;

namespace {

// A measurement of a 4-vCPU, 2-core machine: 200 GFLOP/s fp32 on all vCPUs, no bf16 units.
core::hw::HostMeasurement sampleMeasurement(const std::string& isa) {
  core::hw::HostMeasurement m;
  m.cpuModel = "Test CPU";
  m.vcpus = 4;
  m.cores = 2;
  m.vectorIsa = m.buildIsa = m.gemmPath = isa;
  m.gemmGflopsPerThread = 60;
  m.gemmGflopsAll = 200;
  m.memBandwidthGBps = 20;
  m.memGib = 16;
  m.measuredAt = "2025-01-01";
  return m;
}

}  // namespace

TEST(HostProbe, SpecFromAMeasurementIsPerVcpuAndValid) {
  const auto s = core::hw::hostSpecFromMeasurement(sampleMeasurement("avx2"));
  EXPECT_EQ(s.id, "host");
  EXPECT_TRUE(s.measured);
  EXPECT_EQ(s.kind, core::hw::DeviceKind::Cpu);
  EXPECT_DOUBLE_EQ(*s.peakTflopsFp32, 0.05);  // 200 GFLOP/s over 4 vCPUs
  EXPECT_EQ(s.vcpusDefault, 4);
  EXPECT_EQ(s.vcpusPerCore, 2);
  EXPECT_DOUBLE_EQ(s.memGib, 4);
  EXPECT_NE(s.sourceOf("peak_tflops_fp32"), nullptr);
  EXPECT_NO_THROW(core::hw::validate(s));
}

// bf16 on the host: where its GEMMs multiply in bf16 hardware (AMX, AVX512_BF16) the measured
// bf16 rate is the host's bf16 peak, sourced; where they do not, it has none and a bf16
// prediction runs at the fp32 peak, saying so (core/sim's peakFor).
TEST(HostProbe, AMeasuredBf16RateIsTheHostsBf16Peak) {
  core::hw::HostMeasurement m = sampleMeasurement("avx512");
  const auto plain = core::hw::hostSpecFromMeasurement(m);
  EXPECT_FALSE(plain.peakTflopsBf16.has_value());
  EXPECT_NE(plain.notes.find("bf16 emulated"), std::string::npos) << plain.notes;
  m.gemmPath = "amx";
  m.gemmBf16GflopsAll = 1600;
  const auto tiles = core::hw::hostSpecFromMeasurement(m);
  ASSERT_TRUE(tiles.peakTflopsBf16.has_value());
  EXPECT_DOUBLE_EQ(*tiles.peakTflopsBf16, 0.4);  // 1,600 GFLOP/s over 4 vCPUs
  EXPECT_NE(tiles.sourceOf("peak_tflops_bf16"), nullptr);
  EXPECT_NE(tiles.notes.find("bf16 GEMM 1,600 GFLOP/s (amx)"), std::string::npos) << tiles.notes;
  EXPECT_NO_THROW(core::hw::validate(tiles));
}

TEST(HostProbe, MeasuresOnceThenReadsTheCache) {
  const fs::path dir = fs::temp_directory_path() / "accellab-host-cache-test";
  fs::remove_all(dir);
  const std::string cache = (dir / "host.json").string();
  const auto first = core::hw::cachedHostMeasurement(cache);
  ASSERT_TRUE(fs::exists(cache));
  // A rate was measured, not its size: under ASan on two busy cores the GEMM ran at 0.47 GFLOP/s.
  EXPECT_GT(first.gemmGflopsAll, 0.05);
  EXPECT_GT(first.memBandwidthGBps, 0.05);
  EXPECT_GE(first.vcpus, first.cores);
  EXPECT_EQ(first.gemmPath, core::nn::gemmIsaName(core::nn::gemmIsa()));
  EXPECT_EQ(first.gemmBf16GflopsAll > 0, core::nn::bf16OnHardware());  // measured only where it is real
  const auto second = core::hw::cachedHostMeasurement(cache);
  EXPECT_EQ(second.gemmGflopsAll, first.gemmGflopsAll);  // read back, not measured again
  EXPECT_EQ(second.measuredAt, first.measuredAt);
  // A cache measured another way (no "method", e.g. the Eigen GEMM of earlier versions, with
  // a figure no measurement gives) is measured again and overwritten.
  std::string text;
  {
    std::ifstream in(cache);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto methodAt = text.find("\"method\"");
  ASSERT_NE(methodAt, std::string::npos);
  text.erase(methodAt, text.find('\n', methodAt) - methodAt + 1);
  const auto gemmAt = text.find("\"gemm_gflops_all\"");
  text.replace(gemmAt, text.find('\n', gemmAt) - gemmAt, "\"gemm_gflops_all\": 123456.0,");
  {
    std::ofstream out(cache);
    out << text;
  }
  const auto third = core::hw::cachedHostMeasurement(cache);
  EXPECT_NE(third.gemmGflopsAll, 123456.0);
  EXPECT_NE(third.gemmGflopsAll, second.gemmGflopsAll);  // a fresh measurement
  fs::remove_all(dir);
}

// Other processes' share of the CPUs this process may use: their busy time less its own.
TEST(HostProbe, OthersBusyShareIsTheirTimeOverTheCpusItMayUse) {
  EXPECT_DOUBLE_EQ(core::hw::othersBusyShare(2.0, 2.0, 1.0, 2), 0.0);  // only this process ran
  EXPECT_DOUBLE_EQ(core::hw::othersBusyShare(3.0, 2.0, 1.0, 2), 0.5);  // one CPU's worth of others
  EXPECT_DOUBLE_EQ(core::hw::othersBusyShare(9.0, 0.0, 1.0, 2), 1.0);  // clamped
  EXPECT_DOUBLE_EQ(core::hw::othersBusyShare(1.0, 2.0, 1.0, 2), 0.0);  // clock skew: not negative
  EXPECT_DOUBLE_EQ(core::hw::othersBusyShare(1.0, 0.0, 0.0, 2), 0.0);  // no window
}

// The host benchmark says its own noise, and one taken while other processes kept the vCPUs
// busy is measured again at a start 10 minutes later (not at every start while busy).
TEST(HostProbe, AMeasurementTakenUnderLoadIsRetaken) {
  const fs::path dir = fs::temp_directory_path() / "accellab-host-load-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string cache = (dir / "host.json").string();
  auto m = core::hw::cachedHostMeasurement(cache);
  EXPECT_GE(m.gemmSpread, 0);
  EXPECT_LE(m.gemmSpread, 1);
  EXPECT_NE(m.noiseText().find("over 5 trials; other processes used"), std::string::npos) << m.noiseText();
  auto rewrite = [&](double busy, double ageSeconds) {
    core::util::Json j = core::util::Json::parseFile(cache, 1 << 20);
    j.set("others_busy_share", busy);
    j.set("gemm_gflops_all", 4242.0);  // a figure no measurement here gives: read back or not
    j.set("measured_at_unix", j.at("measured_at_unix").asNumber() - ageSeconds);
    core::util::writeFileAtomic(cache, j.dump(2));
  };
  rewrite(0.6, 10);  // busy, just now: kept, and said
  m = core::hw::cachedHostMeasurement(cache);
  EXPECT_EQ(m.gemmGflopsAll, 4242.0);
  EXPECT_TRUE(m.underLoad());
  EXPECT_NE(core::hw::hostSpecFromMeasurement(m).notes.find("measured under load"), std::string::npos);
  rewrite(0.6, 3600);  // busy, an hour ago: a reload while running keeps it (no stall) ...
  EXPECT_EQ(core::hw::cachedHostMeasurement(cache, core::hw::HostMeasure::Cached).gemmGflopsAll, 4242.0);
  m = core::hw::cachedHostMeasurement(cache);  // ... a start measures it again
  EXPECT_NE(m.gemmGflopsAll, 4242.0);
  rewrite(0.02, 3600 * 24 * 30);  // idle a month ago: still this machine's
  EXPECT_EQ(core::hw::cachedHostMeasurement(cache).gemmGflopsAll, 4242.0);
  fs::remove_all(dir);
}
