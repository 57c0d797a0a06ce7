// CIFAR-10 binary batches, on small files the test writes.
#include <gtest/gtest.h>

#include "core/data/cifar_reader.h"
#include "core/data/dataset_loader.h"
#include "core/util/error.h"
#include "test_files.h"

using core::util::Error;
using namespace testdata;
namespace fs = std::filesystem;

namespace {

template <class Fn>
std::string errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

void writeCifarDir(const fs::path& dir, int perBatch, bool gz = false) {
  for (int b = 1; b <= 5; ++b) {
    const Bytes bytes = cifarBatch(perBatch, 100 * b);
    writeBytes(dir / ("data_batch_" + std::to_string(b) + ".bin"), gz ? gzip(bytes) : bytes);
  }
  writeBytes(dir / "test_batch.bin", cifarBatch(perBatch + 1, 7));
}

TEST(Cifar, ParsesRecords) {
  const auto b = core::data::parseCifarBatch(cifarBatch(3, 4), "mem");
  ASSERT_EQ(b.count(), 3);
  EXPECT_EQ(b.labels, (std::vector<std::uint8_t>{4, 5, 6}));
  EXPECT_EQ(b.pixels[2 * 3072 + 1500], (4 + 2 + 1500) % 251);
}

TEST(Cifar, BrokenBatchesAreErrors) {
  Bytes cut = cifarBatch(2);
  cut.resize(cut.size() - 100);
  const std::string trunc = errorOf([&] { core::data::parseCifarBatch(cut, "data_batch_1.bin"); });
  EXPECT_NE(trunc.find("data_batch_1.bin"), std::string::npos) << trunc;
  EXPECT_NE(trunc.find("whole number of CIFAR-10 records"), std::string::npos) << trunc;
  Bytes bad = cifarBatch(2);
  bad[3073] = 57;
  const std::string label = errorOf([&] { core::data::parseCifarBatch(bad, "b.bin"); });
  EXPECT_NE(label.find("record 1 has label 57"), std::string::npos) << label;
  EXPECT_NE(errorOf([&] { core::data::parseCifarBatch({}, "e.bin"); }).find("empty"), std::string::npos);
}

TEST(CifarDataset, LoadsFiveBatchesAndTheTestBatch) {
  const auto dir = scratchDir("cifar");
  writeCifarDir(dir, 4);
  core::data::LoadOptions o;
  o.dataDir = dir.string();
  const auto s = core::data::loadDataset("cifar10", o);
  ASSERT_EQ(s.train.size(), 20);
  ASSERT_EQ(s.test.size(), 5);
  EXPECT_EQ(s.train.shape(), (core::nn::Shape{3, 32, 32}));
  // Sample 6 is record 2 of data_batch_2 (first = 200): label 202 % 10, channel-major pixels.
  EXPECT_EQ(s.train.labels()[6], 2);
  EXPECT_FLOAT_EQ(s.train.samples()(2048 + 5, 6), static_cast<float>((202 + 2048 + 5) % 251) / 255.0f);
  fs::remove_all(dir);
}

TEST(CifarDataset, FindsTheExtractedSubfolderAndGzip) {
  const auto dir = scratchDir("cifar-sub");
  fs::create_directories(dir / "cifar-10-batches-bin");
  writeCifarDir(dir / "cifar-10-batches-bin", 2, true);
  core::data::LoadOptions o;
  o.dataDir = dir.string();
  EXPECT_TRUE(core::data::datasetAvailable("cifar10", dir.string()));
  EXPECT_EQ(core::data::loadDataset("cifar10", o).train.size(), 10);
  fs::remove_all(dir);
}

TEST(CifarDataset, MissingOrBrokenFilesAreNamed) {
  const auto dir = scratchDir("cifar-missing");
  writeCifarDir(dir, 2);
  fs::remove(dir / "data_batch_3.bin");
  core::data::LoadOptions o;
  o.dataDir = dir.string();
  const std::string missing = errorOf([&] { core::data::loadDataset("cifar10", o); });
  EXPECT_NE(missing.find("data_batch_3.bin"), std::string::npos) << missing;
  EXPECT_NE(missing.find(dir.string()), std::string::npos) << missing;
  EXPECT_NE(missing.find("cifar-10-binary.tar.gz"), std::string::npos) << missing;
  Bytes cut = cifarBatch(2);
  cut.pop_back();
  writeBytes(dir / "data_batch_3.bin", cut);
  const std::string broken = errorOf([&] { core::data::loadDataset("cifar10", o); });
  EXPECT_NE(broken.find("data_batch_3.bin"), std::string::npos) << broken;
  Bytes g = gzip(cifarBatch(2));
  g.resize(g.size() / 2);
  writeBytes(dir / "data_batch_3.bin", g);
  const std::string badGz = errorOf([&] { core::data::loadDataset("cifar10", o); });
  EXPECT_NE(badGz.find("gzip"), std::string::npos) << badGz;
  fs::remove_all(dir);
}

}  // namespace
