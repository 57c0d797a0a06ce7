// IDX reading (plain and gzip) and the MNIST-style loaders, on small files the test writes.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "core/data/dataset_loader.h"
#include "core/data/idx_reader.h"
#include "core/data/raw_file.h"
#include "core/util/error.h"
#include "test_files.h"

using core::util::Error;
using namespace testdata;
namespace fs = std::filesystem;

namespace {

// Expects `fn` to throw core::util::Error whose message contains every fragment.
template <class Fn>
void expectError(Fn&& fn, std::initializer_list<std::string> fragments) {
  try {
    fn();
    FAIL() << "no error thrown";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "message: " << msg << "\nmissing: " << f;
  }
}

TEST(Idx, ParsesImagesAndLabels) {
  const auto a = core::data::parseIdx(idxImages(3, 5, 6), "mem");
  ASSERT_EQ(a.dims, (std::vector<std::int64_t>{3, 5, 6}));
  EXPECT_EQ(a.count(), 3);
  EXPECT_EQ(a.itemSize(), 30);
  EXPECT_EQ(a.values[1 * 30 + 2 * 6 + 4], pixel(1, 2, 4));
  const auto l = core::data::parseIdx(idxLabels(7), "mem");
  ASSERT_EQ(l.dims, (std::vector<std::int64_t>{7}));
  EXPECT_EQ(l.values[4], 2);  // (4*3) % 10
}

TEST(Idx, ReadsPlainAndGzipFilesTheSame) {
  const auto dir = scratchDir("idx-gz");
  writeBytes(dir / "plain", idxImages(4, 5, 6));
  writeBytes(dir / "packed.gz", gzip(idxImages(4, 5, 6)));
  const auto plain = core::data::readIdxFile((dir / "plain").string());
  const auto packed = core::data::readIdxFile((dir / "packed.gz").string());
  EXPECT_EQ(plain.dims, packed.dims);
  EXPECT_EQ(plain.values, packed.values);
  fs::remove_all(dir);
}

TEST(Idx, ConcatenatedGzipMembersAreRead) {
  const Bytes whole = idxImages(2, 5, 6);
  const Bytes first(whole.begin(), whole.begin() + 20), second(whole.begin() + 20, whole.end());
  Bytes both = gzip(first);
  const Bytes g2 = gzip(second);
  both.insert(both.end(), g2.begin(), g2.end());
  EXPECT_EQ(core::data::gunzip(both, "mem"), whole);
}

TEST(Idx, WrongMagicIsAnError) {
  Bytes b = idxImages(2, 5, 6);
  b[0] = 0x12;
  expectError([&] { core::data::parseIdx(b, "file.idx"); }, {"file.idx", "magic", "0x12"});
  expectError([&] { core::data::parseIdx(Bytes{0, 0}, "short.idx"); }, {"short.idx", "not an IDX file"});
  Bytes text{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  expectError([&] { core::data::parseIdx(text, "text.idx"); }, {"text.idx", "magic"});
}

TEST(Idx, UnsupportedTypeIsNamed) {
  Bytes b = idxImages(2, 5, 6);
  b[2] = 0x0D;
  expectError([&] { core::data::parseIdx(b, "f.idx"); }, {"f.idx", "float32", "not supported"});
}

TEST(Idx, TruncatedDataAndHeaderAreErrors) {
  Bytes b = idxImages(3, 5, 6);
  b.resize(b.size() - 7);
  expectError([&] { core::data::parseIdx(b, "t.idx"); }, {"t.idx", "truncated", "90", "83"});
  Bytes h = idxImages(3, 5, 6);
  h.resize(9);
  expectError([&] { core::data::parseIdx(h, "h.idx"); }, {"h.idx", "truncated IDX header"});
  Bytes extra = idxImages(1, 2, 2);
  extra.push_back(1);
  expectError([&] { core::data::parseIdx(extra, "x.idx"); }, {"x.idx", "unexpected bytes"});
}

TEST(Idx, BadGzipIsAnError) {
  const auto dir = scratchDir("idx-badgz");
  Bytes g = gzip(idxImages(20, 5, 6));
  Bytes cut(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(g.size() / 2));
  writeBytes(dir / "cut.gz", cut);
  expectError([&] { core::data::readIdxFile((dir / "cut.gz").string()); }, {"cut.gz", "truncated"});
  Bytes garbage = g;
  for (std::size_t i = 12; i < garbage.size() - 8; ++i) garbage[i] = static_cast<std::uint8_t>(garbage[i] ^ 0x5A);
  writeBytes(dir / "garbage.gz", garbage);
  expectError([&] { core::data::readIdxFile((dir / "garbage.gz").string()); }, {"garbage.gz", "gzip"});
  Bytes header{0x1f, 0x8b};
  writeBytes(dir / "header.gz", header);
  expectError([&] { core::data::readIdxFile((dir / "header.gz").string()); }, {"header.gz", "gzip"});
  expectError([&] { core::data::readIdxFile((dir / "absent.gz").string()); }, {"absent.gz", "cannot open"});
  fs::remove_all(dir);
}

TEST(IdxDataset, LoadsScaledColumnsAndLabels) {
  for (bool gz : {false, true}) {
    const auto dir = scratchDir(gz ? "mnist-gz" : "mnist-plain");
    writeMnistLike(dir, 12, 4, gz);
    core::data::LoadOptions o;
    o.dataDir = dir.string();
    const auto s = core::data::loadDataset("mnist", o);
    ASSERT_EQ(s.train.size(), 12);
    ASSERT_EQ(s.test.size(), 4);
    EXPECT_EQ(s.train.shape(), (core::nn::Shape{1, 5, 6}));
    EXPECT_EQ(s.train.classes(), 10);
    // Column i is image i, row-major pixels, scaled to [0,1].
    EXPECT_FLOAT_EQ(s.train.samples()(2 * 6 + 3, 7), pixel(7, 2, 3) / 255.0f);
    EXPECT_FLOAT_EQ(s.test.samples()(4 * 6 + 5, 3), pixel(3, 4, 5) / 255.0f);
    EXPECT_EQ(s.train.labels()[5], 5);  // 15 % 10
    EXPECT_GE(s.train.samples().minCoeff(), 0.0f);
    EXPECT_LE(s.train.samples().maxCoeff(), 1.0f);
    fs::remove_all(dir);
  }
}

TEST(IdxDataset, DottedFileNamesAreFound) {
  const auto dir = scratchDir("mnist-dotted");
  writeBytes(dir / "train-images.idx3-ubyte", idxImages(3, 5, 6));
  writeBytes(dir / "train-labels.idx1-ubyte", idxLabels(3));
  writeBytes(dir / "t10k-images.idx3-ubyte", idxImages(2, 5, 6));
  writeBytes(dir / "t10k-labels.idx1-ubyte", idxLabels(2));
  core::data::LoadOptions o;
  o.dataDir = dir.string();
  EXPECT_TRUE(core::data::datasetAvailable("mnist", dir.string()));
  EXPECT_EQ(core::data::loadDataset("mnist", o).train.size(), 3);
  fs::remove_all(dir);
}

TEST(IdxDataset, CountMismatchIsAnError) {
  const auto dir = scratchDir("mnist-mismatch");
  writeMnistLike(dir, 10, 4, false);
  writeBytes(dir / "train-labels-idx1-ubyte", idxLabels(9));
  core::data::LoadOptions o;
  o.dataDir = dir.string();
  expectError([&] { core::data::loadDataset("mnist", o); }, {"count mismatch", "10 images", "9 labels"});
  fs::remove_all(dir);
}

TEST(IdxDataset, LabelOutOfRangeAndWrongRankAreErrors) {
  const auto dir = scratchDir("mnist-badlabel");
  writeMnistLike(dir, 3, 2, false);
  writeBytes(dir / "t10k-labels-idx1-ubyte", idx({2}, Bytes{1, 10}));
  core::data::LoadOptions o;
  o.dataDir = dir.string();
  expectError([&] { core::data::loadDataset("mnist", o); }, {"t10k-labels-idx1-ubyte", "label 10", "out of range"});
  writeMnistLike(dir, 3, 2, false);
  writeBytes(dir / "train-images-idx3-ubyte", idx({3, 30}, Bytes(90, 7)));
  expectError([&] { core::data::loadDataset("mnist", o); }, {"train-images-idx3-ubyte", "3-dimensional"});
  fs::remove_all(dir);
}

TEST(IdxDataset, MissingFilesSayWhatWhereAndHow) {
  const auto dir = scratchDir("fashion-missing");
  writeBytes(dir / "train-images-idx3-ubyte.gz", gzip(idxImages(2, 5, 6)));
  core::data::LoadOptions o;
  o.dataDir = dir.string();
  EXPECT_FALSE(core::data::datasetAvailable("fashion-mnist", dir.string()));
  expectError([&] { core::data::loadDataset("fashion-mnist", o); },
              {dir.string(), "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "dataset-fashion-mnist", "--data-dir"});
  o.dataDir = (dir / "nowhere").string();
  expectError([&] { core::data::loadDataset("fashion-mnist", o); }, {"nowhere", "does not exist"});
  fs::remove_all(dir);
}

TEST(IdxDataset, LimitKeepsASeededSubset) {
  const auto dir = scratchDir("mnist-limit");
  writeMnistLike(dir, 50, 20, true);
  core::data::LoadOptions o;
  o.dataDir = dir.string();
  o.limit = 10;
  o.testLimit = 5;
  o.seed = 3;
  const auto a = core::data::loadDataset("mnist", o);
  const auto b = core::data::loadDataset("mnist", o);
  ASSERT_EQ(a.train.size(), 10);
  ASSERT_EQ(a.test.size(), 5);
  EXPECT_EQ(a.train.samples(), b.train.samples());
  EXPECT_EQ(a.train.labels(), b.train.labels());
  o.seed = 4;
  const auto c = core::data::loadDataset("mnist", o);
  EXPECT_NE(a.train.labels(), c.train.labels());
  o.limit = -1;
  expectError([&] { core::data::loadDataset("mnist", o); }, {"limit", "negative"});
  fs::remove_all(dir);
}

// The real Fashion-MNIST from the Debian package, when installed (skipped otherwise).
TEST(IdxDataset, RealFashionMnistWhenInstalled) {
  if (!core::data::datasetAvailable("fashion-mnist")) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  const auto s = core::data::loadDataset("fashion-mnist");
  ASSERT_EQ(s.train.size(), 60000);
  ASSERT_EQ(s.test.size(), 10000);
  EXPECT_EQ(s.train.shape(), (core::nn::Shape{1, 28, 28}));
  std::vector<int> perClass(10);
  for (int l : s.test.labels()) ++perClass[static_cast<std::size_t>(l)];
  for (int n : perClass) EXPECT_EQ(n, 1000);
}

}  // namespace

// --- Hostile files (reliability issue: each built from the input that broke the reader) ---

TEST(Idx, DimensionsWhoseProductWrapsAreRefused) {
  // 64 x 2^30 x 2^28 = 2^64: a signed product wrapped to 0 and passed the truncation check.
  const Bytes header = idx({64, 1u << 30, 1u << 28}, {});
  expectError([&] { core::data::parseIdx(header, "wrap.idx"); }, {"wrap.idx", "too large"});
  const auto dir = scratchDir("idx-wrap");
  writeBytes(dir / "wrap.idx", header);
  expectError([&] { core::data::readIdxFile((dir / "wrap.idx").string()); }, {"wrap.idx", "too large"});
  std::filesystem::remove_all(dir);
}

TEST(Idx, AGzipBombIsRefusedBeforeItIsInflated) {
  // A valid header promising 2^31 bytes, then 4 MiB of zeros: a few KB compressed. The header
  // promises more than that much gzip can hold, so nothing is inflated or allocated.
  Bytes bomb = idx({1u << 15, 1u << 8, 1u << 8}, {});
  bomb.resize(bomb.size() + (4u << 20), 0);
  const auto dir = scratchDir("idx-bomb");
  writeBytes(dir / "bomb.gz", gzip(bomb));
  const auto t0 = std::chrono::steady_clock::now();
  expectError([&] { core::data::readIdxFile((dir / "bomb.gz").string()); }, {"bomb.gz", "can hold"});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  // A stream that inflates past what a caller allows stops there.
  writeBytes(dir / "zeros.gz", gzip(Bytes(8u << 20, 0)));
  expectError([&] { core::data::readDataFile((dir / "zeros.gz").string(), 1 << 20); }, {"zeros.gz", "inflates to more than"});
  std::filesystem::remove_all(dir);
}

TEST(Idx, AHugeSparseFileIsCheckedByItsHeaderNotReadWhole) {
  // A 3 GB sparse file whose header promises 10 values: refused from its size, unread.
  const auto dir = scratchDir("idx-sparse");
  const auto path = dir / "sparse.idx";
  writeBytes(path, idx({10}, Bytes(10, 1)));
  std::filesystem::resize_file(path, std::uintmax_t{3} << 30);
  const auto t0 = std::chrono::steady_clock::now();
  expectError([&] { core::data::readIdxFile(path.string()); }, {"sparse.idx", "unexpected bytes", "10 expected"});
  // A reader with a size limit refuses it without reading it either.
  expectError([&] { core::data::readDataFile(path.string(), 1 << 20); }, {"sparse.idx", "larger than"});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  std::filesystem::remove_all(dir);
}
