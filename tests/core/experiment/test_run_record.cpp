// The run record's codec (core/experiment/run_record.h) reads the history files the app
// wrote before it moved to core: a run file, a journal and the legacy runs.json (the fuzz
// seeds tests/data/fuzz/run_history/*.bin, written by the app's codec; the first byte picks
// the reader), writes them back whole, and refuses a version it does not know, naming it.
#include <gtest/gtest.h>

#include <string>

#include "core/experiment/run_record.h"
#include "core/sim/parallel_plan.h"
#include "core/util/error.h"
#include "core/util/files.h"

using namespace core::experiment;

namespace {

std::string seed(const std::string& name) {
  const std::string bytes = core::util::readFile(std::string(ACCELLAB_TEST_DATA) + "/fuzz/run_history/" + name);
  return bytes.substr(1);  // the fuzz target's reader byte
}

}  // namespace

TEST(RunRecord, ReadsAVersion1RunFileAndWritesItBackWhole) {
  const RunRecord run = runFromFile(seed("run-file.bin"), "run-file.json");
  EXPECT_NE(run.name.find("lenet5"), std::string::npos);
  EXPECT_EQ(run.color, "#0072b2");
  EXPECT_FALSE(run.epochs.empty());
  EXPECT_FALSE(run.devices.empty());
  const std::string again = runFileJson(run);
  const RunRecord back = runFromFile(again, "again.json");
  EXPECT_EQ(runFileJson(back), again);
  EXPECT_EQ(back.batches.size(), run.batches.size());
  EXPECT_EQ(back.devices.size(), run.devices.size());
}

TEST(RunRecord, ReadsAJournalAsAnInterruptedRun) {
  const RunRecord run = runFromJournal(seed("journal.bin"), "run.jsonl");
  EXPECT_EQ(run.status, RunStatus::Stopped);
  EXPECT_NE(run.statusMessage.find("Interrupted"), std::string::npos);
}

TEST(RunRecord, ReadsTheLegacyRunsJsonSkippingAMalformedRun) {
  // The seed's second run has a name only: it is skipped, its error naming the file.
  std::vector<std::string> skipped;
  const auto runs = runsFromJson(seed("legacy-runs.bin"), "runs.json", &skipped);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(runs[0].epochs.empty());
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("runs.json"), std::string::npos) << skipped[0];
  // Without a list for them, a malformed run is an error.
  EXPECT_THROW(runsFromJson(seed("legacy-runs.bin"), "runs.json"), core::util::Error);
}

TEST(RunRecord, AnUnknownVersionIsRefusedNamingTheFileAndKey) {
  std::string text = seed("run-file.bin");
  const std::size_t at = text.find("\"version\":1");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 11, "\"version\":3");
  try {
    runFromFile(text, "future.json");
    FAIL() << "read a version it does not know";
  } catch (const core::util::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("future.json"), std::string::npos) << what;
    EXPECT_NE(what.find("version"), std::string::npos) << what;
    EXPECT_NE(what.find("newer"), std::string::npos) << what;
  }
}

// Version 2 writes a device's report in the one report form: a transformer's carries its plan
// part, and it reads back whole. A record that says version 1 has none and is refused with one.
TEST(RunRecord, Version2KeepsATransformersPlanPartAndVersion1HasNone) {
  RunRecord run = runFromFile(seed("run-file.bin"), "run-file.json");
  ASSERT_FALSE(run.devices.empty());
  core::sim::LlmPart& part = run.devices.front().report.llm.emplace();
  part.modelName = "char-gpt";
  part.chips = 1;
  part.seqLen = 128;
  part.plan = core::sim::parseParallelPlan("dp=1,microbatch=4");
  part.tokensPerSecond = 123456;
  part.memory.weightBytes = 1e6;
  part.kernelsPerStep = 345;
  const std::string text = runFileJson(run);
  const std::string version2 = "\"version\": 2";  // as runFileJson indents it
  ASSERT_NE(text.find(version2), std::string::npos);
  const RunRecord back = runFromFile(text, "v2.json");
  ASSERT_TRUE(back.devices.front().report.llm.has_value());
  const core::sim::LlmPart& b = *back.devices.front().report.llm;
  EXPECT_EQ(b.plan, part.plan);
  EXPECT_EQ(b.tokensPerSecond, part.tokensPerSecond);
  EXPECT_EQ(b.memory.weightBytes, part.memory.weightBytes);
  EXPECT_EQ(b.kernelsPerStep, part.kernelsPerStep);
  EXPECT_EQ(runFileJson(back), text);
  // The version 1 seed has no plan part; the same text saying version 1 is refused, naming the key.
  EXPECT_FALSE(runFromFile(seed("run-file.bin"), "v1.json").devices.front().report.llm.has_value());
  std::string v1 = text;
  v1.replace(v1.find(version2), version2.size(), "\"version\": 1");
  try {
    runFromFile(v1, "v1.json");
    FAIL() << "read a plan part in a version 1 record";
  } catch (const core::util::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("v1.json"), std::string::npos) << what;
    EXPECT_NE(what.find("plan"), std::string::npos) << what;
  }
}
