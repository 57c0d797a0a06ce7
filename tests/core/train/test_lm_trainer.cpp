// The language-model trainer: AdamW and the schedule against hand-computed steps, clipping,
// the corpus rules, a short char-gpt run on a corpus the test writes (the loss falls far below
// the uniform 8 bits/char) and reproducibility.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/data/text_corpus.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/train/lm_trainer.h"
#include "core/train/trainer.h"
#include "core/util/error.h"

namespace fs = std::filesystem;
using namespace core::train;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("accellab-lm-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name, std::ios::binary) << text; }
};

std::unique_ptr<core::nn::Network> charGpt(int context, std::uint64_t seed) {
  core::nn::ModelInput in;
  in.shape = {1, context, 1};
  in.classes = 256;
  in.vocabulary = 256;
  auto net = core::nn::buildModel("char-gpt", in);
  net->initialize(seed);
  return net;
}

TEST(LmTrainer, AdamWStepMatchesHandComputation) {
  // wd 0.1 on the first parameter only; lr 0.1; first step: m_hat = g, v_hat = g^2.
  AdamW opt(0.9, 0.95, 1e-8, 0.1, {1, 0});
  Eigen::VectorXf p(2), g(2);
  p << 1.0f, 2.0f;
  g << 0.5f, -1.0f;
  opt.step(p, g, 0.1);
  EXPECT_NEAR(p[0], 1.0 * (1 - 0.1 * 0.1) - 0.1, 1e-6);  // 0.99 - 0.1
  EXPECT_NEAR(p[1], 2.0 + 0.1, 1e-6);                     // no decay on it
  // Second step, same gradient: m = 0.19 g, v = 0.0975 g^2, corrected by 1 - 0.81 and 1 - 0.9025.
  opt.step(p, g, 0.1);
  const double mhat = 0.19 / 0.19, vhat = 0.0975 / 0.0975;
  EXPECT_NEAR(p[1], 2.1 + 0.1 * mhat / std::sqrt(vhat), 1e-5);
}

TEST(LmTrainer, ScheduleWarmsUpThenFollowsTheCosine) {
  LmConfig c;
  EXPECT_DOUBLE_EQ(lmLearningRate(c, 0, 2000), 1e-5);
  EXPECT_DOUBLE_EQ(lmLearningRate(c, 99, 2000), 1e-3);
  EXPECT_DOUBLE_EQ(lmLearningRate(c, 100, 2000), 1e-3);
  EXPECT_NEAR(lmLearningRate(c, 1050, 2000), 1e-4 + 0.5 * 9e-4, 1e-12);  // half way: the mean
  EXPECT_NEAR(lmLearningRate(c, 1999, 2000), 1e-4 + 0.5 * 9e-4 * (1 + std::cos(M_PI * 1899.0 / 1900.0)), 1e-15);
}

TEST(LmTrainer, ClippingScalesTheGlobalNorm) {
  Eigen::VectorXf g(2);
  g << 3.0f, 4.0f;
  EXPECT_DOUBLE_EQ(clipGradientNorm(g, 1.0), 5.0);
  EXPECT_NEAR(g.norm(), 1.0, 1e-5);
  Eigen::VectorXf small(1);
  small << 0.5f;
  clipGradientNorm(small, 1.0);
  EXPECT_FLOAT_EQ(small[0], 0.5f);
}

TEST(LmTrainer, CorpusTakesExtensionlessFilesByNameAndSplitsTheLastTenth) {
  TempDir d;
  d.write("b", std::string(1000, 'b'));
  d.write("a", std::string(1000, 'a'));
  d.write("c.dat", "index, skipped");
  fs::create_directories(d.path / "sub");
  d.write("sub/x", "skipped");
  fs::create_symlink(d.path / "a", d.path / "link");
  const core::data::TextCorpus c = core::data::loadTextCorpus(d.path.string());
  EXPECT_EQ(c.files, 2);
  ASSERT_EQ(c.train.size() + c.validation.size(), 2000u);
  EXPECT_EQ(c.validation.size(), 200u);
  EXPECT_EQ(c.train.front(), 'a');
  EXPECT_EQ(c.validation.back(), 'b');
  d.write("tiny", "too small");
  try {
    core::data::loadTextCorpus((d.path / "tiny").string());
    FAIL() << "a 9-byte corpus was accepted";
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("too small"), std::string::npos) << e.what();
  }
}

TEST(LmTrainer, TheMissingFortunesPackageIsNamed) {
  // The CLI passes the install hint when the default folder is used; a missing folder names both.
  TempDir d;
  const std::string gone = (d.path / "fortunes").string();
  try {
    core::data::loadTextCorpus(gone, 129, core::data::kFortunesInstallHint);
    FAIL() << "no error";
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("apt-get install fortunes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(gone), std::string::npos) << e.what();
  }
}

TEST(LmTrainer, WeightDecayAppliesToTheLinearWeightsOnly) {
  // The peer's count: qkv, out, W1, W2 and head weights = 819,200 of 875,264 parameters.
  auto net = charGpt(128, 0);
  const auto mask = net->matrixWeightMask();
  std::int64_t decayed = 0;
  for (auto m : mask) decayed += m;
  EXPECT_EQ(net->paramCount(), 875264);
  EXPECT_EQ(decayed, 819200);
}

core::data::TextCorpus tinyCorpus() {
  std::string text;
  const char* lines[] = {"the quick brown fox jumps over the lazy dog\n", "a stitch in time saves nine\n",
                         "all that glitters is not gold\n"};
  for (int i = 0; i < 120; ++i) text += lines[i % 3];
  core::data::TextCorpus c;
  c.source = "test corpus";
  c.train.assign(text.begin(), text.end() - static_cast<std::ptrdiff_t>(text.size() / 10));
  c.validation.assign(text.end() - static_cast<std::ptrdiff_t>(text.size() / 10), text.end());
  return c;
}

TEST(LmTrainer, AShortRunLearnsFarBelowUniform) {
  auto net = charGpt(16, 1);
  LmConfig c;
  c.steps = 100;
  c.evalEvery = 100;
  c.batch = 12;
  c.warmupSteps = 10;
  c.learningRate = 3e-3;
  c.validationWindows = 20;
  c.sampleChars = 30;
  c.threads = 2;
  const LmResult r = trainLanguageModel(*net, tinyCorpus(), c);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.evaluations.size(), 1u);
  // Uniform over 256 bytes is 8 bits/char; a repeated three-line text is learnt well below 3.
  EXPECT_LT(r.evaluations.back().validationBitsPerChar, 3.0);
  EXPECT_EQ(r.evaluations.back().sampleGreedy.size(), 30u);
  EXPECT_GT(r.evaluations.back().tokensPerSecond, 0);
}

TEST(LmTrainer, SameSeedAndThreadsGiveTheSameLosses) {
  LmConfig c;
  c.steps = 6;
  c.evalEvery = 6;
  c.batch = 4;
  c.validationWindows = 4;
  c.sampleChars = 0;
  c.threads = 2;
  auto a = charGpt(16, 5);
  auto b = charGpt(16, 5);
  const LmResult ra = trainLanguageModel(*a, tinyCorpus(), c);
  const LmResult rb = trainLanguageModel(*b, tinyCorpus(), c);
  ASSERT_TRUE(ra.ok && rb.ok);
  EXPECT_EQ(ra.stepLosses, rb.stepLosses);
  EXPECT_EQ(ra.evaluations.back().validationLoss, rb.evaluations.back().validationLoss);
}

TEST(LmTrainer, BadSettingsAreNamed) {
  LmConfig c;
  c.steps = 0;
  EXPECT_THROW(validate(c), core::util::Error);
  auto net = charGpt(16, 0);
  c.steps = 1;
  c.temperature = 0;
  const LmResult r = trainLanguageModel(*net, tinyCorpus(), c);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("temperature"), std::string::npos) << r.error;
}

// The app's runs (core::train::Trainer) train char-gpt through the same loop, read as epochs:
// one update per batch of windows, one evaluation and generated text per epoch, the prompt the
// user typed, and pause/stop as for every run.
TEST(LmTrainer, TheTrainerRunsALanguageModelAsEpochs) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 60; ++i) text += "the quick brown fox jumps over the lazy dog\n";
  dir.write("corpus.txt", text);
  TrainConfig c;
  c.modelId = "char-gpt";
  c.datasetId = "fortunes";
  c.dataDir = (dir.path / "corpus.txt").string();
  c.batch = 8;
  c.limit = 16;  // 2 updates an epoch
  c.epochs = 2;
  c.threads = 2;
  c.learningRate = 3e-3;
  Trainer trainer(c);
  trainer.setPrompt("the quick");
  const RunResult r = trainer.run({});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  EXPECT_EQ(r.epochsCompleted, 2);
  std::vector<BatchSample> batches;
  std::vector<EpochSample> epochs;
  std::vector<TextSample> texts;
  trainer.metrics().drain(batches, epochs);
  trainer.metrics().drainTexts(texts);
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(batches.back().step, 4);
  EXPECT_EQ(batches.back().epoch, 2);
  EXPECT_EQ(batches.back().images, 32);  // sequences
  ASSERT_EQ(epochs.size(), 2u);
  EXPECT_EQ(epochs[1].epoch, 2);
  EXPECT_EQ(epochs[1].images, 16);
  EXPECT_TRUE(std::isfinite(epochs[1].testLoss));
  EXPECT_GT(epochs[1].testAccuracy, 0.0);
  EXPECT_LT(epochs[1].trainLoss, std::log(256.0));  // below uniform after 4 updates
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_EQ(texts[1].step, 4);
  EXPECT_EQ(texts[1].prompt, "the quick");
  EXPECT_EQ(texts[1].greedy.size(), 200u);
  EXPECT_NEAR(texts[1].bitsPerChar, epochs[1].testLoss / std::log(2.0), 1e-9);
}

TEST(LmTrainer, TheTrainerStopsALanguageModelAndNamesAMissingCorpus) {
  TrainConfig c;
  c.modelId = "char-gpt";
  c.datasetId = "fortunes";
  c.dataDir = "/nonexistent/accellab-corpus";
  Trainer missing(c);
  const RunResult r = missing.run({});
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_NE(r.message.find("/nonexistent/accellab-corpus"), std::string::npos) << r.message;

  TempDir dir;
  std::string text;
  for (int i = 0; i < 60; ++i) text += "a stitch in time saves nine\n";
  dir.write("corpus.txt", text);
  c.dataDir = (dir.path / "corpus.txt").string();
  c.batch = 4;
  c.epochs = 100;
  c.threads = 1;
  Trainer trainer(c);
  std::stop_source stop;
  trainer.setBatchObserver([&](const BatchSample& s) {
    if (s.step == 3) stop.request_stop();
  });
  const RunResult s = trainer.run(stop.get_token());
  EXPECT_EQ(s.status, RunStatus::Stopped) << s.message;
  EXPECT_EQ(s.epochsCompleted, 0);

  // A classifier's dataset is refused for a language model, naming the field.
  c.datasetId = "fashion-mnist";
  EXPECT_THROW(core::experiment::validate(c), core::experiment::FieldError);
  c.datasetId = "fortunes";
  c.modelId = "mlp";
  EXPECT_THROW(core::experiment::validate(c), core::experiment::FieldError);
}

}  // namespace
