// The run record's codec (core/experiment/run_record.h) reads the history files the app
// wrote before it moved to core: a run file, a journal and the legacy runs.json (the fuzz
// seeds tests/data/fuzz/run_history/*.bin, written by the app's codec; the first byte picks
// the reader), writes them back whole, and refuses a version it does not know, naming it.
#include <gtest/gtest.h>

#include <string>

#include "core/experiment/run_record.h"
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
  text.replace(at, 11, "\"version\":2");
  try {
    runFromFile(text, "future.json");
    FAIL() << "read a version it does not know";
  } catch (const core::util::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("future.json"), std::string::npos) << what;
    EXPECT_NE(what.find("version"), std::string::npos) << what;
  }
}
