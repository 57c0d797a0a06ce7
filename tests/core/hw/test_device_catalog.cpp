// The hardware catalog: shipped files parse, every figure has a source, and broken files are
// refused with the file and key named, without stopping the others from loading.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/llm_simulator.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace fs = std::filesystem;
using core::hw::DeviceCatalog;
using core::hw::parseDeviceJson;
using core::util::Error;

namespace {

const std::string kShipped = std::string(ACCELLAB_SOURCE_RESOURCES) + "/devices";

// A minimal valid device, as text, with `extra` keys spliced in (and their sources).
std::string deviceText(const std::string& extra = "", const std::string& extraSources = "") {
  return R"({"id": "lab", "name": "Lab GPU", "kind": "gpu", "peak_tflops_fp32": 10, "mem_gib": 8,
             "mem_bandwidth_gbps": 400)" +
         extra + R"(, "sources": {"peak_tflops_fp32": {"ref": "datasheet", "date": "2020"},
             "mem_gib": {"ref": "datasheet", "date": "2020"},
             "mem_bandwidth_gbps": {"ref": "datasheet", "date": "2020"})" +
         extraSources + "}}";
}

std::string errorOf(const std::string& text, const std::string& path = "/x/lab.json") {
  try {
    parseDeviceJson(text, path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("accellab-hw-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

}  // namespace

TEST(DeviceCatalog, ShipsEveryDeviceWithASourcePerFigure) {
  const DeviceCatalog cat = DeviceCatalog::loadDirs({kShipped});
  EXPECT_TRUE(cat.loadErrors().empty()) << (cat.loadErrors().empty() ? "" : cat.loadErrors().front());
  // 2017-2021 devices, then today's (the LLM issue's list).
  const char* ids[] = {"cpu-skylake", "k80", "p100", "v100", "t4", "a100", "h100", "tpu-v2-8", "tpu-v3-8", "tpu-v4-8",
                       "a100-80", "a100-pcie-80", "h100-pcie", "h200", "h200-nvl", "b200", "gb200", "mi210", "mi250",
                       "mi300x", "mi325x", "mi355x", "l4", "l40s", "gaudi2", "gaudi3", "v100-32", "v100-pcie-32",
                       "tpu-v5e-8", "tpu-v5p-8", "tpu-v6e-8",
                       // 2026: the hardware issue's list (next year's parts, consumer and rental cards).
                       "gb300", "tpu7x", "rtx4090", "rtx5090", "a10g", "l40", "rtx6000-ada", "rtx-pro-6000", "h20",
                       // Another kind, as data: a systolic, compiled-program chip stated by its traits.
                       "trn2"};
  for (const char* id : ids) ASSERT_NE(cat.find(id), nullptr) << id;
  EXPECT_EQ(cat.devices().size(), std::size(ids));
  for (const auto& d : cat.devices()) {
    // A price names its seller kind and date; no price is said in the notes.
    if (d.usdPerHourOnDemand) {
      EXPECT_FALSE(d.priceSeller.empty()) << d.id;
      EXPECT_FALSE(d.priceDate.empty()) << d.id;
    } else {  // "no price", dated and sourced: when none was public
      EXPECT_FALSE(d.priceDate.empty()) << d.id << " has no price and does not date it";
      ASSERT_NE(d.sourceOf("price_date"), nullptr) << d.id;
      EXPECT_NE(d.sourceOf("price_date")->ref.find("no "), std::string::npos) << d.id << ": " << d.sourceOf("price_date")->ref;
      EXPECT_NE(d.notes.find("price"), std::string::npos) << d.id << " has no price and does not say so";
    }
    const auto root = core::util::Json::parseFile(d.filePath, core::util::kMaxDataFileBytes);
    for (const auto& [key, value] : root.asObject()) {
      if (!value.isNumber()) continue;
      const auto* s = d.sourceOf(key);
      ASSERT_NE(s, nullptr) << d.id << ": " << key;
      EXPECT_FALSE(s->ref.empty());
      EXPECT_FALSE(s->date.empty());
    }
  }
}

TEST(DeviceCatalog, TodaysAcceleratorsCarryFp8AndTheirChips) {
  const DeviceCatalog cat = DeviceCatalog::loadDirs({kShipped});
  EXPECT_DOUBLE_EQ(*cat.at("h100").peakTflopsFp8, 1978.9);
  EXPECT_DOUBLE_EQ(*cat.at("b200").peakTflopsFp8, 4500);
  EXPECT_FALSE(cat.at("a100-80").peakTflopsFp8.has_value());  // Ampere has no fp8
  EXPECT_EQ(cat.at("tpu-v5e-8").chipsPerDevice, 8);
  EXPECT_EQ(cat.at("tpu-v5p-8").chipsPerDevice, 4);
  EXPECT_DOUBLE_EQ(*cat.at("tpu-v6e-8").peakTflopsBf16, 918.0 * 8);  // per chip x chips
  EXPECT_EQ(*cat.at("gb200").devicesPerNode, 72);                    // one NVLink domain per rack
}

TEST(DeviceCatalog, SeedFiguresMatchTheVendorNumbers) {
  const DeviceCatalog cat = DeviceCatalog::loadDirs({kShipped});
  EXPECT_DOUBLE_EQ(*cat.at("v100").peakTflopsFp16, 125);
  EXPECT_DOUBLE_EQ(cat.at("v100").memBandwidthGBps, 900);
  EXPECT_DOUBLE_EQ(*cat.at("k80").peakTflopsFp32, 4.37);  // one GK210 die
  EXPECT_FALSE(cat.at("k80").peakTflopsFp16.has_value());  // no fp16 arithmetic: not set
  EXPECT_DOUBLE_EQ(*cat.at("tpu-v3-8").peakTflopsBf16, 492);
  EXPECT_FALSE(cat.at("tpu-v3-8").peakTflopsFp32.has_value());
  EXPECT_EQ(cat.at("tpu-v3-8").coresPerDevice, 8);
  EXPECT_DOUBLE_EQ(*cat.at("a100").peakTflopsTf32, 156);
  EXPECT_EQ(cat.at("cpu-skylake").kind, core::hw::DeviceKind::Cpu);
  EXPECT_DOUBLE_EQ(*cat.at("p100").usdPerHourOnDemand, 1.46);
}

TEST(DeviceCatalog, UnknownKeyIsNamedWithTheFile) {
  const std::string e = errorOf(deviceText(R"(, "mem_bandwith_gbps": 3)"));
  EXPECT_NE(e.find("/x/lab.json"), std::string::npos) << e;
  EXPECT_NE(e.find("mem_bandwith_gbps"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key"), std::string::npos) << e;
}

TEST(DeviceCatalog, MissingRequiredKeyIsNamed) {
  std::string text = deviceText();
  text.replace(text.find(R"("name": "Lab GPU", )"), std::string(R"("name": "Lab GPU", )").size(), "");
  const std::string e = errorOf(text);
  EXPECT_NE(e.find("'name'"), std::string::npos) << e;
  EXPECT_NE(e.find("missing required key"), std::string::npos) << e;
}

TEST(DeviceCatalog, NonPositiveBandwidthIsRefused) {
  std::string text = deviceText();
  text.replace(text.find("400"), 3, "0");
  const std::string e = errorOf(text);
  EXPECT_NE(e.find("mem_bandwidth_gbps"), std::string::npos) << e;
  EXPECT_NE(e.find("positive"), std::string::npos) << e;
  EXPECT_NE(errorOf(deviceText(R"(, "interconnect_gbps": -5)", R"(, "interconnect_gbps": {"ref": "r", "date": "d"})"))
                .find("interconnect_gbps"),
            std::string::npos);
}

TEST(DeviceCatalog, AbsurdPositiveFiguresAreRefusedWithTheirRange) {
  // Each was accepted and printed "step_seconds: null" or "$-nan per run" downstream.
  std::string tiny = deviceText();
  tiny.replace(tiny.find("400"), 3, "1e-308");
  EXPECT_NE(errorOf(tiny).find("mem_bandwidth_gbps': 1e-308 is outside the plausible range [0.1, 1000000]"), std::string::npos)
      << errorOf(tiny);
  std::string denormal = deviceText();
  denormal.replace(denormal.find("\"peak_tflops_fp32\": 10"), 22, "\"peak_tflops_fp32\": 5e-324");
  EXPECT_NE(errorOf(denormal).find("peak_tflops_fp32"), std::string::npos) << errorOf(denormal);
  EXPECT_NE(errorOf(denormal).find("plausible range"), std::string::npos) << errorOf(denormal);
  const std::string slow = errorOf(deviceText(R"(, "allreduce_latency_seconds": 1e308)",
                                              R"(, "allreduce_latency_seconds": {"ref": "r", "date": "d"})"));
  EXPECT_NE(slow.find("allreduce_latency_seconds': 1e+308 is outside"), std::string::npos) << slow;
  // Every shipped device is inside every range.
  EXPECT_NO_THROW(DeviceCatalog::loadDirs({kShipped}));
}

TEST(DeviceCatalog, NamesAreUtf8TextWithoutTerminalEscapes) {
  std::string esc = deviceText();
  esc.replace(esc.find("Lab GPU"), 7, R"(Lab\u001b[2JGPU)");
  EXPECT_NE(errorOf(esc).find("key 'name': holds a control character (code 27)"), std::string::npos) << errorOf(esc);
  std::string bytes = deviceText();
  bytes.replace(bytes.find("Lab GPU"), 7, "Lab \xff GPU");
  EXPECT_NE(errorOf(bytes).find("invalid UTF-8"), std::string::npos) << errorOf(bytes);
  std::string accents = deviceText();
  accents.replace(accents.find("Lab GPU"), 7, "Labor-GPU \xc3\xa9t\xc3\xa9");
  EXPECT_EQ(errorOf(accents), "");
}

TEST(DeviceCatalog, EveryFigureNeedsASourceAndEverySourceAFigure) {
  EXPECT_NE(errorOf(deviceText(R"(, "usd_per_hour_on_demand": 1, "price_date": "2020")")).find("has no source"),
            std::string::npos);
  EXPECT_NE(errorOf(deviceText("", R"(, "interconnect_gbps": {"ref": "r", "date": "d"})")).find("does not set"),
            std::string::npos);
  const std::string noDate =
      errorOf(deviceText(R"(, "host_link_gbps": 1)", R"(, "host_link_gbps": {"ref": "r"})"));
  EXPECT_NE(noDate.find("sources.host_link_gbps.date"), std::string::npos) << noDate;
  EXPECT_NE(errorOf(deviceText(R"(, "mem_gib": 4)")).find("duplicate key"), std::string::npos);
}

// A price says who sells it; power and fp4 are figures like the others, with sources and ranges.
TEST(DeviceCatalog, APriceNamesItsSellerAndPowerAndFp4AreCheckedFigures) {
  const auto priced = parseDeviceJson(
      deviceText(R"(, "usd_per_hour_on_demand": 2, "price_date": "2026-10", "price_seller": "neocloud",
                   "board_power_watts": 700, "training_power_watts": 620, "peak_tflops_fp4": 9000)",
                 R"(, "usd_per_hour_on_demand": {"ref": "r", "date": "d"}, "price_date": {"ref": "r", "date": "d"},
                   "price_seller": {"ref": "r", "date": "d"}, "board_power_watts": {"ref": "r", "date": "d"},
                   "training_power_watts": {"ref": "r", "date": "d"}, "peak_tflops_fp4": {"ref": "r", "date": "d"})"),
      "/x/lab.json");
  EXPECT_EQ(priced.priceSeller, "neocloud");
  EXPECT_EQ(priced.boardPowerWatts.value_or(0), 700);
  EXPECT_EQ(priced.trainingPowerWatts.value_or(0), 620);
  EXPECT_EQ(core::hw::peakTflops(priced, core::util::Precision::FP4).value_or(0), 9000);

  const std::string seller = errorOf(deviceText(R"(, "usd_per_hour_on_demand": 2, "price_date": "2026", "price_seller": "friend")",
                                                R"(, "usd_per_hour_on_demand": {"ref": "r", "date": "d"})"));
  EXPECT_NE(seller.find("price_seller"), std::string::npos) << seller;
  EXPECT_NE(seller.find("hyperscaler, neocloud, marketplace, reserved"), std::string::npos) << seller;
  const std::string orphan = errorOf(deviceText(R"(, "price_seller": "neocloud")"));
  EXPECT_NE(orphan.find("does not set"), std::string::npos) << orphan;
  const std::string watts = errorOf(deviceText(R"(, "board_power_watts": 5e6)", R"(, "board_power_watts": {"ref": "r", "date": "d"})"));
  EXPECT_NE(watts.find("board_power_watts': 5000000 is outside the plausible range"), std::string::npos) << watts;
  // A sign error names the range too, as a price of 0 does.
  const std::string negative = errorOf(deviceText(R"(, "board_power_watts": -300)", R"(, "board_power_watts": {"ref": "r", "date": "d"})"));
  EXPECT_NE(negative.find("board_power_watts': must be positive, in [1, 1000000] (got -300)"), std::string::npos) << negative;
  const std::string free = errorOf(deviceText(R"(, "usd_per_hour_on_demand": 0, "price_date": "2026")",
                                              R"(, "usd_per_hour_on_demand": {"ref": "r", "date": "d"})"));
  EXPECT_NE(free.find("usd_per_hour_on_demand': must be positive, in [1e-04, 100000] (got 0)"), std::string::npos) << free;
  const std::string draw = errorOf(deviceText(R"(, "board_power_watts": 300, "training_power_watts": 900)",
                                              R"(, "board_power_watts": {"ref": "r", "date": "d"}, "training_power_watts": {"ref": "r", "date": "d"})"));
  EXPECT_NE(draw.find("training_power_watts"), std::string::npos) << draw;
  EXPECT_NE(draw.find("more than the board power"), std::string::npos) << draw;
}

TEST(DeviceCatalog, NotSetDiffersFromZero) {
  const auto absent = parseDeviceJson(deviceText(), "/x/lab.json");
  EXPECT_FALSE(absent.allreduceLatencySeconds.has_value());
  EXPECT_FALSE(absent.interconnectGBps.has_value());
  const auto zero = parseDeviceJson(
      deviceText(R"(, "allreduce_latency_seconds": 0)", R"(, "allreduce_latency_seconds": {"ref": "r", "date": "d"})"),
      "/x/lab.json");
  ASSERT_TRUE(zero.allreduceLatencySeconds.has_value());
  EXPECT_EQ(*zero.allreduceLatencySeconds, 0.0);
  EXPECT_NE(errorOf(deviceText(R"(, "allreduce_latency_seconds": null)")).find("null"), std::string::npos);
}

TEST(DeviceCatalog, IdMustMatchTheFileNameAndFractionsStayInRange) {
  EXPECT_NE(errorOf(deviceText(), "/x/other.json").find("must match the file name"), std::string::npos);
  // Software figures belong to stacks now: a device file that sets one is told where it goes.
  const std::string soft =
      errorOf(deviceText(R"(, "gemm_efficiency": 0.5)", R"(, "gemm_efficiency": {"ref": "r", "date": "d"})"));
  EXPECT_NE(soft.find("gemm_efficiency"), std::string::npos) << soft;
  EXPECT_NE(soft.find("software stack file"), std::string::npos) << soft;
  const std::string gen = errorOf(deviceText(R"(, "generation": "voltaa")"));
  EXPECT_NE(gen.find("generation"), std::string::npos) << gen;
  EXPECT_NE(gen.find("volta,"), std::string::npos) << gen;  // the known ones are listed
  std::string fpga = deviceText();
  fpga.replace(fpga.find(R"("kind": "gpu")"), 13, R"("kind": "fpga")");
  EXPECT_NE(errorOf(fpga).find("\"cpu\", \"gpu\" or \"tpu\""), std::string::npos) << errorOf(fpga);
}

// Traits are data: a kind's defaults, and what a file states over them (a new accelerator is
// a file, not code).
TEST(DeviceCatalog, TraitsComeFromTheKindUnlessTheFileStatesThem) {
  using namespace core::hw;
  const DeviceTraits gpu = traitsOf(parseDeviceJson(deviceText(), "/x/lab.json"));
  EXPECT_EQ(gpu.matrixUnit, MatrixUnit::Simt);
  EXPECT_EQ(gpu.launch, LaunchModel::PerKernel);
  EXPECT_EQ(gpu.fusion, FusionRule::AsStack);
  EXPECT_EQ(gpu.replicas, ReplicaRule::PerDevice);
  const DeviceTraits tpu = defaultTraits(DeviceKind::Tpu);
  EXPECT_EQ(tpu.matrixUnit, MatrixUnit::Systolic);
  EXPECT_EQ(tpu.launch, LaunchModel::CompiledProgram);

  // A systolic accelerator that rides as "gpu" in the catalog states its traits.
  const DeviceSpec npu = parseDeviceJson(
      deviceText(R"(, "matrix_unit": "systolic", "launch_model": "compiled-program", "fusion": "compiler",
                    "replicas": "per-core", "cores_per_device": 2)",
                 R"(, "cores_per_device": {"ref": "datasheet", "date": "2020"})"),
      "/x/lab.json");
  const DeviceTraits t = traitsOf(npu);
  EXPECT_EQ(t.matrixUnit, MatrixUnit::Systolic);
  EXPECT_EQ(t.launch, LaunchModel::CompiledProgram);
  EXPECT_EQ(t.fusion, FusionRule::Compiler);
  EXPECT_EQ(t.replicas, ReplicaRule::PerCore);

  const std::string bad = errorOf(deviceText(R"(, "matrix_unit": "tensor")"));
  EXPECT_NE(bad.find("matrix_unit"), std::string::npos) << bad;
  EXPECT_NE(bad.find("\"vector\", \"simt\" or \"systolic\""), std::string::npos) << bad;
  EXPECT_NE(errorOf(deviceText(R"(, "launch_model": 3)")).find("must be a string"), std::string::npos);
}

TEST(DeviceCatalog, ABrokenUserFileDoesNotStopTheOthers) {
  TempDir user;
  user.write("lab.json", deviceText());
  user.write("broken.json", R"({"id": "broken", "name": "x", "kind": "gpu"})");
  user.write("v100.json", [] {
    std::string t = deviceText();
    t.replace(t.find(R"("id": "lab")"), 11, R"("id": "v100")");
    return t;
  }());
  const DeviceCatalog cat = DeviceCatalog::loadDirs({kShipped, user.path.string(), (user.path / "missing").string()});
  ASSERT_EQ(cat.loadErrors().size(), 1u);
  EXPECT_NE(cat.loadErrors()[0].find("broken.json"), std::string::npos) << cat.loadErrors()[0];
  ASSERT_NE(cat.find("lab"), nullptr);
  EXPECT_EQ(cat.at("v100").name, "Lab GPU");  // the user's file replaces the shipped one
  EXPECT_EQ(cat.devices().size(), DeviceCatalog::loadDirs({kShipped}).devices().size() + 1);
}

TEST(DeviceCatalog, UnknownIdIsNamedWithTheKnownOnes) {
  const DeviceCatalog cat = DeviceCatalog::loadDirs({kShipped});
  try {
    cat.at("v1000");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("v1000"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("tpu-v3-8"), std::string::npos);
  }
}

TEST(DeviceCatalog, ASymlinkLoopOrADeviceLinkInTheUserFolderIsNamedAndTheRestLoads) {
  // Before: the folder listing threw outside the per-file try (the GUI aborted at every start,
  // the CLI said "internal error").
  TempDir user;
  user.write("lab.json", deviceText());
  fs::create_symlink(user.path / "b.json", user.path / "a.json");
  fs::create_symlink(user.path / "a.json", user.path / "b.json");
  fs::create_symlink("/dev/zero", user.path / "zero.json");
  DeviceCatalog cat;
  ASSERT_NO_THROW(cat = DeviceCatalog::loadDirs({kShipped, user.path.string()}));
  ASSERT_NE(cat.find("lab"), nullptr);
  std::string errors;
  for (const auto& e : cat.loadErrors()) errors += e + "\n";
  EXPECT_EQ(cat.loadErrors().size(), 3u) << errors;
  EXPECT_NE(errors.find("symlink loop"), std::string::npos) << errors;
  EXPECT_NE(errors.find("zero.json: is a character device"), std::string::npos) << errors;
}

// A misspelt generation is refused (the stacks key their figures by it); a new kind of device
// names its own generation by stating how it computes, launches, fuses and replicates.
TEST(DeviceCatalog, ANewGenerationIsANewKindThatStatesItsTraits) {
  const std::string typo = errorOf(deviceText(R"(, "generation": "hoper")"));
  EXPECT_NE(typo.find("generation': \"hoper\" is not a known hardware generation ("), std::string::npos) << typo;
  EXPECT_NE(typo.find("hopper"), std::string::npos) << typo;
  EXPECT_NE(typo.find("states its traits (matrix_unit, launch_model, fusion, replicas)"), std::string::npos) << typo;
  const auto chip = parseDeviceJson(deviceText(R"(, "generation": "my-npu-1", "matrix_unit": "systolic",
      "launch_model": "compiled-program", "fusion": "compiler", "replicas": "per-device")"), "/x/lab.json");
  EXPECT_EQ(chip.generation, "my-npu-1");
  EXPECT_EQ(core::hw::traitsOf(chip).matrixUnit, core::hw::MatrixUnit::Systolic);
  EXPECT_NE(errorOf(deviceText(R"(, "generation": "My NPU")")).find("may hold only a-z, 0-9 and '-'"), std::string::npos);
  EXPECT_NE(errorOf(deviceText(R"(, "generation": "")")).find("generation': must not be empty"), std::string::npos);
  // The shipped one: AWS Trainium2 simulates a transformer with no code of its own.
  const DeviceCatalog cat = DeviceCatalog::loadDirs({kShipped});
  const auto& trn2 = cat.at("trn2");
  EXPECT_FALSE(core::hw::isHardwareGeneration(trn2.generation));
  const auto stacks = core::hw::StackCatalog::loadDirs({std::string(ACCELLAB_SOURCE_RESOURCES) + "/stacks"});
  core::sim::SimConfig c;
  c.modelId = "llama3-8b";
  c.deviceId = "trn2";
  c.count = 16;
  c.batch = 64;
  c.precision = core::util::Precision::BF16;
  const auto r = core::sim::simulateLlm(c, trn2, stacks.defaultFor(trn2.kind));
  EXPECT_GT(r.llm->tokensPerSecond, 0);
  EXPECT_EQ(r.llm->chips, 16);
}
