// The one error-band rule for every simulated figure (core/sim/error_band.h): the held-out
// error of the prediction's stack on its hardware generation; "uncalibrated", with what the
// stack reaches on other devices, when there are too few rows; never a band its rows do not
// support. And the shipped held-out errors: every row resolves, and the bands they give.
#include <gtest/gtest.h>

#include <string>

#include "core/nn/transformer_spec.h"
#include "core/sim/error_band.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "sim_test_support.h"

using namespace core::sim;

namespace {

using simtest::device;

const char* const kHeader = "id,reference,model,stack,device,metric,abs_pct_error\n";

HeldOutErrors rows(const std::string& body) {
  return parseHeldOutErrors(std::string(kHeader) + body, "held-out.csv", simtest::catalog());
}

TEST(ErrorBand, ThreeRowsOfTheStackOnTheGenerationMakeItsBand) {
  const HeldOutErrors e = rows(
      "a,calibration-gpu-single.csv,gpt2-large,pytorch-eager,h100,tokens_per_second,10\n"
      "b,calibration-gpu-single.csv,gpt2-large,pytorch-eager,h100,tokens_per_second,20\n"
      "c,calibration-gpu-single.csv,gpt2-large,pytorch-eager,h100,samples_per_second,4\n"
      "d,calibration-llm.csv,gpt2-large,tuned,h100,tokens_per_second,1\n");
  // h200 is a Hopper too: the generation's rows are its band.
  const ErrorBand b = errorBandFor(e, "gpt2-small", "pytorch-eager", device("h200"));
  EXPECT_TRUE(b.calibrated);
  EXPECT_EQ(b.rows, 3);
  EXPECT_DOUBLE_EQ(b.pct, 10.0);
  EXPECT_EQ(b.percent(), "±10%");
  EXPECT_EQ(b.label(), "±10%");
  EXPECT_NE(b.text().find("transformers under pytorch-eager on hopper"), std::string::npos) << b.text();
  // A CNN on the same stack and device has no rows of its own here: the transformer rows are
  // not its band.
  EXPECT_FALSE(errorBandFor(e, "resnet50", "pytorch-eager", device("h200")).known());
}

TEST(ErrorBand, TooFewRowsIsUncalibratedAndSaysWhatItBorrows) {
  const HeldOutErrors e = rows(
      "a,calibration-llm.csv,gpt2-large,pytorch-eager,h100,step_seconds,5\n"
      "b,calibration-llm.csv,gpt2-large,pytorch-eager,a100-pcie-80,step_seconds,30\n"
      "c,calibration-llm.csv,gpt2-large,pytorch-eager,v100-pcie-32,step_seconds,50\n"
      "d,calibration-llm.csv,gpt2-large,tuned,a100-80,tokens_per_second,2\n"
      "e,calibration-llm.csv,gpt2-large,tuned,a100-80,tokens_per_second,3\n"
      "f,calibration-llm.csv,gpt2-large,tuned,a100-80,tokens_per_second,4\n");
  // One Hopper row under pytorch-eager is not a band: the stack's GPU rows (5, 30, 50) are, and
  // the text says the figure is uncalibrated. The tuned A100 rows' 3% is never borrowed.
  const ErrorBand b = errorBandFor(e, "llama3-8b", "pytorch-eager", device("h100"));
  EXPECT_FALSE(b.calibrated);
  EXPECT_DOUBLE_EQ(b.pct, 30.0);
  EXPECT_EQ(b.label(), "±30%, uncalibrated");
  const std::string text = b.text();
  EXPECT_NE(text.find("uncalibrated: only 1 measured transformer row for hopper under pytorch-eager"), std::string::npos)
      << text;
  EXPECT_NE(text.find("transformers on all GPUs under this stack"), std::string::npos) << text;
  // A stack with no rows of the kind at all: every row of the kind, said so.
  const ErrorBand none = errorBandFor(e, "llama3-8b", "pytorch-compile", device("b200"));
  EXPECT_FALSE(none.calibrated);
  EXPECT_EQ(none.rows, 6);
  EXPECT_NE(none.text().find("transformers on all GPUs under every stack"), std::string::npos) << none.text();
  // No TPU rows: no band rather than a GPU's.
  EXPECT_FALSE(errorBandFor(e, "llama3-8b", "tuned", device("tpu-v5p-8")).known());
}

// An uncalibrated band is never narrower than its own rows: one MI300X row under mlperf that
// misses by 66% makes the band ±66%, though the stack's other GPU rows have a median of 10%.
TEST(ErrorBand, TooFewOwnRowsStillWidenTheBandToTheirWorstMiss) {
  const HeldOutErrors e = rows(
      "a,calibration-llm.csv,llama2-70b,mlperf,mi300x,step_seconds,66\n"
      "b,calibration-llm.csv,llama2-70b,mlperf,h100,step_seconds,5\n"
      "c,calibration-llm.csv,llama2-70b,mlperf,h200,step_seconds,10\n"
      "d,calibration-llm.csv,llama2-70b,mlperf,b200,step_seconds,12\n");
  const ErrorBand b = errorBandFor(e, "llama2-70b", "mlperf", device("mi300x"));
  EXPECT_FALSE(b.calibrated);
  EXPECT_DOUBLE_EQ(b.rowsMedianPct, 11.0);  // the four GPU rows under mlperf
  EXPECT_DOUBLE_EQ(b.ownWorstPct, 66.0);
  EXPECT_DOUBLE_EQ(b.pct, 66.0);
  EXPECT_EQ(b.label(), "±66%, uncalibrated");
  const std::string text = b.text();
  EXPECT_NE(text.find("only 1 measured transformer row for"), std::string::npos) << text;
  EXPECT_NE(text.find("off by 66%"), std::string::npos) << text;
  EXPECT_NE(text.find("under this stack: ±11% (n=4)"), std::string::npos) << text;
  // Where its own rows miss by less than the borrowed median, the median stands.
  const HeldOutErrors close = rows(
      "a,calibration-llm.csv,llama2-70b,mlperf,mi300x,step_seconds,2\n"
      "b,calibration-llm.csv,llama2-70b,mlperf,h100,step_seconds,5\n"
      "c,calibration-llm.csv,llama2-70b,mlperf,h200,step_seconds,10\n"
      "d,calibration-llm.csv,llama2-70b,mlperf,b200,step_seconds,12\n");
  const ErrorBand c = errorBandFor(close, "llama2-70b", "mlperf", device("mi300x"));
  EXPECT_DOUBLE_EQ(c.pct, c.rowsMedianPct);
  EXPECT_EQ(c.text().find("off by"), std::string::npos) << c.text();
}

TEST(ErrorBand, RefusedAndOutOfMemoryRowsMakeNoBandAndTheHostHasNone) {
  const HeldOutErrors e = rows(
      "a,calibration.csv,resnet50,keras-2020,p100,oom,0\n"
      "b,calibration.csv,resnet50,keras-2020,p100,oom,100\n"
      "c,calibration.csv,resnet50,keras-2020,p100,images_per_second,\n"
      "d,calibration.csv,resnet50,keras-2020,p100,images_per_second,8\n");
  const ErrorBand b = errorBandFor(e, "resnet50", "keras-2020", device("p100"));
  EXPECT_EQ(b.rows, 1);
  EXPECT_FALSE(b.calibrated);
  // A measured device (this machine) shows its measurement, never a band.
  core::hw::DeviceSpec host = device("p100");
  host.measured = true;
  EXPECT_FALSE(errorBandFor(e, "resnet50", "keras-2020", host).known());
  const Scoreboard s = scoreboardOf(e);
  EXPECT_EQ(s.refused, 1);
  ASSERT_EQ(s.largestMisses.size(), 1u);
  EXPECT_EQ(s.largestMisses[0]->id, "d");
}

// The largest misses are each workload's own: ten CNN rows that miss by more do not crowd the
// transformers' worst out of the list.
TEST(ErrorBand, TheLargestMissesAreListedPerWorkload) {
  std::string body;
  for (int i = 0; i < 10; ++i)
    body += "cnn" + std::to_string(i) + ",calibration.csv,resnet50,tuned,v100,images_per_second," + std::to_string(40 + i) + "\n";
  body += "t1,calibration-llm.csv,llama3-8b,tuned,h100,tokens_per_second,12\n";
  body += "t2,calibration-llm.csv,llama3-8b,tuned,h100,tokens_per_second,20\n";
  const HeldOutErrors e = rows(body);  // the scoreboard points into it
  const Scoreboard s = scoreboardOf(e, 3);
  ASSERT_EQ(s.largestMisses.size(), 5u);
  EXPECT_EQ(s.largestMisses[0]->id, "cnn9");  // the CNN/RNN rows' worst three, worst first
  EXPECT_EQ(s.largestMisses[2]->id, "cnn7");
  EXPECT_EQ(s.largestMisses[3]->id, "t2");    // then the transformers', worst first
  EXPECT_EQ(s.largestMisses[4]->id, "t1");
}

TEST(ErrorBand, BadFilesNameTheLineAndColumn) {
  try {
    rows("a,calibration.csv,resnet50,tuned,no-such-gpu,images_per_second,3\n");
    FAIL();
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("held-out.csv:2: device: 'no-such-gpu'"), std::string::npos) << e.what();
  }
  try {
    rows("a,calibration.csv,no-such-model,tuned,v100,images_per_second,3\n");
    FAIL();
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("held-out.csv:2: model: 'no-such-model'"), std::string::npos) << e.what();
  }
  try {
    rows("a,calibration.csv,resnet50,tuned,v100,images_per_second,3\na,calibration.csv,resnet50,tuned,v100,images_per_second,4\n");
    FAIL();
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("held-out.csv:3: id: 'a' appears twice"), std::string::npos) << e.what();
  }
  try {
    rows("a,calibration.csv,resnet50,tuned,v100,images_per_second,-3\n");
    FAIL();
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("held-out.csv:2: abs_pct_error"), std::string::npos) << e.what();
  }
}

TEST(ErrorBand, TheShippedHeldOutErrorsCoverEveryCalibrationRow) {
  const std::string dir = std::string(ACCELLAB_SOURCE_RESOURCES) + "/calibration/";
  const HeldOutErrors e = readHeldOutErrors(dir + "held-out-errors.csv", simtest::catalog());
  // One held-out error per row of each calibration file (header and blank lines aside).
  auto lines = [&](const std::string& f) {
    const std::string text = core::util::readFile(dir + f, core::util::kMaxReferenceCsvBytes);
    int n = 0;
    for (char ch : text) n += ch == '\n';
    return n - 1;
  };
  int cnn = 0, llm = 0, single = 0;
  for (const auto& r : e.rows) {
    // Every row's model is one the simulator knows; the transformers go through the LLM step.
    EXPECT_EQ(r.workload == "transformer", core::nn::findTransformer(r.model) != nullptr) << r.id;
    cnn += r.reference == "calibration.csv";
    llm += r.reference == "calibration-llm.csv";
    single += r.reference == "calibration-gpu-single.csv";
  }
  EXPECT_EQ(cnn, lines("calibration.csv"));
  EXPECT_EQ(llm, lines("calibration-llm.csv"));
  EXPECT_EQ(single, lines("calibration-gpu-single.csv"));
  // The eager stack on one H100 is calibrated by its measured rows; a device generation with no
  // rows under it is not, and says so.
  EXPECT_TRUE(errorBandFor(e, "llama3-8b", "pytorch-eager", device("h100")).calibrated);
  const ErrorBand blackwell = errorBandFor(e, "llama3-8b", "pytorch-eager", device("rtx5090"));
  EXPECT_FALSE(blackwell.calibrated);
  EXPECT_TRUE(blackwell.known());
  // The measured H100 CNN rows (resources/reference, never fitted) are the band of a CNN under
  // eager PyTorch on a Hopper: ResNet-50 in NCHW is still 26% off there, and the band shows it.
  const ErrorBand resnet = errorBandFor(e, "resnet50", "pytorch-eager", device("h100"));
  EXPECT_TRUE(resnet.calibrated);
  EXPECT_GE(resnet.pct, 10.0);
  // The held-out bar of the issue: transformer rows' median within 20%.
  const Scoreboard s = scoreboardOf(e);
  for (const auto& w : s.workloads)
    if (w.workload == "transformer") {
      EXPECT_LE(w.medianAbsPct, 20.0);
    }
}

}  // namespace

namespace {

TEST(MfuCaution, AMfuAboveWhatPublishedRunsOfThatScaleReachedIsFlagged) {
  const std::string header = "id,reference,model,stack,device,metric,abs_pct_error,published_mfu,chips\n";
  const HeldOutErrors e = parseHeldOutErrors(header +
                                                 "small,calibration-gpu-single.csv,gpt2-large,pytorch-eager,h100,tokens_per_second,10,0.30,1\n"
                                                 "big,calibration-llm.csv,llama3-70b,tuned,h100,tokens_per_second,5,0.42,64\n"
                                                 "cnn,calibration.csv,resnet50,tuned,v100,images_per_second,5,,\n"
                                                 "pod,calibration-llm.csv,llama3-70b,tuned,tpu-v5p-8,tokens_per_second,5,0.71,64\n",
                                             "held-out.csv", simtest::catalog());
  // 64 chips: the 64-chip row's 42% is the ceiling (the 1-chip row is another scale).
  // A TPU pod's 71% is a TPU's ceiling, not a GPU's.
  const auto Gpu = core::hw::DeviceKind::Gpu;
  const auto ceiling = publishedMfuCeiling(e, 64, Gpu);
  ASSERT_TRUE(ceiling.has_value());
  EXPECT_EQ(ceiling->id, "big");
  EXPECT_EQ(publishedMfuCeiling(e, 64, core::hw::DeviceKind::Tpu)->id, "pod");
  EXPECT_TRUE(mfuCaution(e, 0.43, 64, Gpu).empty());  // within 2 points
  EXPECT_TRUE(mfuCaution(e, 0.70, 64, core::hw::DeviceKind::Tpu).empty());
  const std::string caution = mfuCaution(e, 0.59, 64, Gpu);
  EXPECT_NE(caution.find("MFU 59% is above the highest published figure"), std::string::npos) << caution;
  EXPECT_NE(caution.find("42% (big, llama3-70b on 64 h100 chips under tuned)"), std::string::npos) << caution;
  // One chip: the single-GPU row is the ceiling; 4,096 chips: no row of that scale, no caution.
  EXPECT_FALSE(mfuCaution(e, 0.35, 1, Gpu).empty());
  EXPECT_TRUE(mfuCaution(e, 0.9, 4096, Gpu).empty());
  // An implied MFU above 1 is refused, naming the column.
  EXPECT_THROW(parseHeldOutErrors(header + "x,calibration-llm.csv,gpt2-large,tuned,h100,tokens_per_second,5,1.3,8\n",
                                  "held-out.csv", simtest::catalog()),
               core::util::Error);
}

}  // namespace
