// The validator: CSV reading, the note rules, and the calibration bars on calibration.csv
// (a regression in any cost model shows up here).
#include <gtest/gtest.h>

#include <map>

#include "core/sim/row_readings.h"
#include "core/sim/validation.h"
#include "core/util/error.h"
#include "sim_test_support.h"

using namespace core::sim;

namespace {
const std::string kHeader =
    "id,model,dataset,device,vcpus,count,batch,precision,metric,value,vs_device,vs_vcpus,vs_count,vs_batch,"
    "vs_precision,tolerance_note,source\n";

std::string errorOf(const std::string& text) {
  try {
    parseReferenceCsv(text, "ref.csv");
  } catch (const core::util::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Validation, NotesBecomeRunRules) {
  const NoteRules a = parseNote("approx ~100x; wall time of 12 epochs incl. compile");
  EXPECT_EQ(a.epochs, 12);
  EXPECT_FALSE(a.validation);
  const NoteRules b = parseNote("5 epochs x steps_per_epoch=100 = 500 steps (512,000 images); a 10k validation pass");
  EXPECT_EQ(b.epochs, 5);
  EXPECT_EQ(b.stepsPerEpoch, 100);
  EXPECT_EQ(b.images, 512000);
  EXPECT_TRUE(b.validation);
  EXPECT_EQ(parseNote("approx ~9 h to 75.7% top-1 (reached at epoch 64 per RM10)").epochs, 64);
  EXPECT_EQ(parseNote("approx ~3x (article); whole 500-step run").totalSteps, 500);
  ASSERT_TRUE(parseNote("build=pip (TF 1.2.1 pip build)").build.has_value());
  EXPECT_EQ(*parseNote("build=pip (TF 1.2.1 pip build)").build, CpuBuild::Pip);
  EXPECT_FALSE(parseNote("build=gpu (one K80 die)").build.has_value());
  EXPECT_TRUE(parseNote("run average incl. compile + validation").runAverage);
  const NoteRules ml = parseNote("MLPerf TTT; epochs to target=86; excludes init (18 s)");
  EXPECT_EQ(ml.epochs, 86);
  EXPECT_TRUE(ml.excludesInit);
}

TEST(Validation, HostileNotesAreScannedWithoutBacktracking) {
  // 50,000 digits before " epochs" overflowed std::regex's stack (issue 15): now refused by length.
  const std::string digits(50000, '7');
  try {
    parseNote(digits + " epochs");
    FAIL() << "a 50,000-digit epoch count was accepted";
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most 15"), std::string::npos) << e.what();
  }
  const std::string commas(200000, ',');
  EXPECT_EQ(parseNote(commas + " images").images, 0);
  EXPECT_EQ(parseNote("a" + commas + "5 images").images, 5);
  EXPECT_EQ(parseNote("1,024 images").images, 1024);
}

TEST(Validation, NoteCountsAreReadAsTheNumbersTheyAre) {
  // Issue 25: "-1 epochs" was read as 1 and "1e308 epochs" as 308.
  const auto refused = [](const std::string& note) {
    try {
      parseNote(note);
      return std::string();
    } catch (const core::util::Error& e) {
      return std::string(e.what());
    }
  };
  for (const std::string note : {"wall time of -1 epochs", "wall time of 1e308 epochs", "1.5 epochs", "0 epochs",
                                 "10-12 epochs", "at epoch 2000000", "epochs to target=-5", "steps_per_epoch=1e20",
                                 "a -3-step run", "-100 images"}) {
    const std::string why = refused(note);
    EXPECT_NE(why.find("is not a count of"), std::string::npos) << note << ": " << why;
  }
  EXPECT_EQ(parseNote("a 1e3 epochs run").epochs, 1000);  // an exponent is read whole
  EXPECT_EQ(parseNote("(n=20 epochs); mean of epochs 2..20").epochs, 20);
  EXPECT_EQ(parseNote("the12 epochs").epochs, 12);
  EXPECT_EQ(parseNote("reached at epoch 64.").epochs, 64);
  EXPECT_EQ(parseNote("epoch (= 50k images / 1024); 512,000 images").images, 512000);
  // In a CSV the refusal names the file, the line and the row.
  const std::string bad = errorOf(kHeader + "R1,mlp,mnist,k80,,1,128,fp32,epoch_seconds,10,,,,,,time of 1e308 epochs,s\n");
  EXPECT_NE(bad.find("ref.csv:2: row 'R1'"), std::string::npos) << bad;
  EXPECT_NE(bad.find("'1e308 epochs'"), std::string::npos) << bad;
}

TEST(Validation, MalformedCsvNamesTheLineAndColumn) {
  EXPECT_NE(errorOf("id,model\n").find("missing column"), std::string::npos);
  const std::string bad = kHeader + "R1,mlp,mnist,k80,,1,128,fp32,epoch_seconds,abc,,,,,,note,src\n";
  EXPECT_NE(errorOf(bad).find("ref.csv:2"), std::string::npos) << errorOf(bad);
  EXPECT_NE(errorOf(bad).find("value"), std::string::npos);
  EXPECT_NE(errorOf(kHeader + "R1,mlp,mnist,k80,,1,128,fp64,epoch_seconds,1,,,,,,n,s\n").find("fp64"), std::string::npos);
  EXPECT_NE(errorOf(kHeader + "R1,mlp,mnist,k80,,1,128,fp32,joules,1,,,,,,n,s\n").find("joules"), std::string::npos);
  EXPECT_NE(errorOf(kHeader + "R1,mlp,mnist,k80,,1,128,fp32,ratio,2,,,,,,n,s\n").find("vs_device"), std::string::npos);
  EXPECT_NE(errorOf(kHeader + "R1,mlp,\"mnist,k80\n").find("unterminated"), std::string::npos);
  const auto rows = parseReferenceCsv(kHeader + "R1,mlp,mnist,k80,,1,128,fp32,epoch_seconds,3.2,,,,,,\"a, b\",s\n", "x");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].note, "a, b");
}

TEST(Validation, ARowTheSimulatorRefusesIsReportedNotFatal) {
  const auto rows = parseReferenceCsv(kHeader + "R1,mlp,mnist,k80,,3,128,fp32,epoch_seconds,3.2,,,,,,n,s\n"
                                                 "R2,mlp,mnist,k80,,1,128,fp32,epoch_seconds,3.2,,,,,,n,s\n",
                                      "x");
  const ValidationResult v = validateRows(simtest::simulator(), rows);
  ASSERT_EQ(v.rows.size(), 2u);
  EXPECT_FALSE(v.rows[0].ok);
  EXPECT_NE(v.rows[0].error.find("batch: "), std::string::npos);
  EXPECT_TRUE(v.rows[1].ok);
  EXPECT_EQ(v.overall.rows, 1);
}

TEST(Validation, CalibrationMediansStayUnderTheBar) {
  const ValidationResult v = validateRows(simtest::simulator(), shippedReferenceRows());
  for (const auto& r : v.rows) EXPECT_TRUE(r.ok) << r.row.id << ": " << r.error;
  // The stacks issue's bars: 15% overall, 20% for every device family.
  EXPECT_LE(v.overall.medianAbsPct, 15.0);
  for (const auto& f : v.families) {
    EXPECT_LE(f.medianAbsPct, 20.0) << f.family;
    EXPECT_EQ(f.oomMatched, f.oomRows) << f.family;
  }
  // Every family and every stack of the reference is there.
  std::vector<std::string> names, stacks;
  for (const auto& f : v.families) names.push_back(f.family);
  for (const auto& f : v.stacks) stacks.push_back(f.family);
  EXPECT_EQ(names, (std::vector<std::string>{"a100", "cpu", "k80", "p100", "tpu", "v100"}));
  EXPECT_EQ(stacks, (std::vector<std::string>{"keras-2017", "keras-2020", "mlperf", "tf-tuned-2018", "tuned"}));
}

TEST(Validation, HeldOutTensorFlowBenchmarksOnTheK80AndP100) {
  // resources/reference/tf-benchmarks-2017.csv was not used for fitting. The K80 rows
  // (ResNet-50 and Inception-v3, batch 32 and 64) must hold; the P100 rows are a known miss
  // (about 2x too slow, see resources/devices/README.md) and only checked for their order.
  const auto rows =
      readReferenceCsv(std::string(ACCELLAB_TEST_DATA) + "/../../resources/reference/tf-benchmarks-2017.csv");
  const ValidationResult v = validateRows(simtest::simulator(), rows);
  ASSERT_EQ(v.rows.size(), 8u);
  std::map<std::string, double> predicted;
  for (const auto& r : v.rows) {
    ASSERT_TRUE(r.ok) << r.row.id << ": " << r.error;
    predicted[r.row.id] = r.predicted;
    // Since the stacks (2026-11): the P100 rows run tf-tuned-2018, whose fp32 figure is tied to
    // the tuned stack's; both GPUs hold.
    EXPECT_LE(r.absPctError, r.row.a.device == "k80" ? 20.0 : 30.0) << r.row.id;
  }
  // Inception-v3 at 299x299 is slower than ResNet-50 at 224x224 on both GPUs (1.4x the work).
  EXPECT_LT(predicted["TF3"], predicted["TF1"]);  // P100, batch 64
  EXPECT_LT(predicted["TF7"], predicted["TF5"]);  // K80, batch 64
}

namespace {
std::string readingsErrorOf(const std::string& text) {
  try {
    parseRowReadings(text, "readings.json");
  } catch (const core::util::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(RowReadings, ApplyToTheMatchingRowsAndDeviceOnly) {
  auto rows = parseReferenceCsv(
      kHeader +
          "R1,cifar-cnn,cifar10,p100,,1,32,fp32,ratio,3.96,cpu-skylake,2,1,32,fp32,\"CPU spec not stated in article: 2 "
          "vCPU assumed\",s\n"
          "R2,cifar-cnn,cifar10,cpu-skylake,8,1,32,fp32,epoch_seconds,100,,,,,,build=pip,s\n",
      "ref.csv");
  const auto readings = parseRowReadings(
      R"({"readings": [{"note_contains": "CPU spec not stated", "device": "cpu-skylake", "vcpus": 4,
          "why": "read as 4 vCPUs", "source": {"ref": "the platform's documentation", "date": "2020"}}]})",
      "readings.json");
  applyReadings(rows, readings);
  EXPECT_EQ(rows[0].a.vcpus, 0);  // the P100 side is not the CPU
  ASSERT_TRUE(rows[0].b.has_value());
  EXPECT_EQ(rows[0].b->vcpus, 4);
  EXPECT_NE(rows[0].reading.find("read as 4 vCPUs"), std::string::npos);
  EXPECT_NE(rows[0].reading.find("the platform's documentation"), std::string::npos);
  EXPECT_EQ(rows[1].a.vcpus, 8);  // its note states the hardware: untouched
  EXPECT_TRUE(rows[1].reading.empty());
}

TEST(RowReadings, BadFilesAreRefusedNamingTheKey) {
  EXPECT_NE(readingsErrorOf(R"({"readings": 3})").find("'readings'"), std::string::npos);
  EXPECT_NE(readingsErrorOf(R"({"reading": []})").find("'reading'"), std::string::npos);
  const std::string noSource =
      R"({"readings": [{"note_contains": "x", "device": "cpu-skylake", "vcpus": 4, "why": "w"}]})";
  EXPECT_NE(readingsErrorOf(noSource).find("readings[0].source"), std::string::npos) << readingsErrorOf(noSource);
  const std::string zero =
      R"({"readings": [{"note_contains": "x", "device": "cpu-skylake", "vcpus": 0, "why": "w", "source": {"ref": "r", "date": "d"}}]})";
  EXPECT_NE(readingsErrorOf(zero).find("readings[0].vcpus"), std::string::npos) << readingsErrorOf(zero);
  const std::string extra =
      R"({"readings": [{"note_contains": "x", "device": "cpu-skylake", "vcpus": 4, "ghz": 2, "why": "w", "source": {"ref": "r", "date": "d"}}]})";
  EXPECT_NE(readingsErrorOf(extra).find("ghz"), std::string::npos) << readingsErrorOf(extra);
}

TEST(RowReadings, TheShippedKaggleCpuRowsRunOnFourVcpus) {
  // The articles leave Kaggle's CPU session open; the shipped reading takes Kaggle's documented
  // CPU session (4 vCPUs) for every row whose note says so, and nothing else changes.
  const auto published = readReferenceCsv(shippedCalibrationCsv());
  const auto rows = shippedReferenceRows();
  ASSERT_EQ(rows.size(), published.size());
  int read = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bool open = rows[i].note.find("Kaggle CPU spec not stated") != std::string::npos;
    EXPECT_EQ(!rows[i].reading.empty(), open) << rows[i].id;
    if (!open) {
      EXPECT_EQ(rows[i].a.vcpus, published[i].a.vcpus) << rows[i].id;
      continue;
    }
    ++read;
    const RowConfig& cpu = rows[i].a.device == "cpu-skylake" ? rows[i].a : *rows[i].b;
    EXPECT_EQ(cpu.vcpus, 4) << rows[i].id;
  }
  EXPECT_EQ(read, 4);  // K1, K5:cpu, KC1, KC2
}
