// Dataset, batching, the synthetic generator and the catalog.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/data/batcher.h"
#include "core/data/dataset_info.h"
#include "core/data/dataset_loader.h"
#include "core/data/synthetic.h"
#include "core/util/error.h"

using core::util::Error;

namespace {

core::data::Dataset counting(int n) {
  Eigen::MatrixXf x(2, n);
  std::vector<int> y(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    x(0, i) = static_cast<float>(i);
    x(1, i) = 0.5f;
    y[static_cast<std::size_t>(i)] = i % 3;
  }
  return core::data::Dataset("count", {2, 1, 1}, 3, std::move(x), std::move(y));
}

TEST(Dataset, RejectsInconsistentData) {
  EXPECT_THROW(core::data::Dataset("d", {3, 1, 1}, 2, Eigen::MatrixXf::Zero(2, 4), std::vector<int>(4)), Error);
  EXPECT_THROW(core::data::Dataset("d", {2, 1, 1}, 2, Eigen::MatrixXf::Zero(2, 4), std::vector<int>(3)), Error);
  EXPECT_THROW(core::data::Dataset("d", {2, 1, 1}, 2, Eigen::MatrixXf::Zero(2, 1), std::vector<int>{2}), Error);
  // Binary datasets (1 class) have labels 0 and 1.
  EXPECT_NO_THROW(core::data::Dataset("d", {2, 1, 1}, 1, Eigen::MatrixXf::Zero(2, 2), std::vector<int>{0, 1}));
}

TEST(Dataset, PermutationIsSeededAndComplete) {
  const auto a = core::data::seededPermutation(1000, 7, 1);
  EXPECT_EQ(a, core::data::seededPermutation(1000, 7, 1));
  EXPECT_NE(a, core::data::seededPermutation(1000, 8, 1));
  EXPECT_NE(a, core::data::seededPermutation(1000, 7, 2));
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t i = 0; i < 1000; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i);
  EXPECT_NE(a, sorted);
}

TEST(Dataset, LimitedKeepsMatchingSamplesAndLabels) {
  const auto d = counting(100);
  const auto l = d.limited(10, 5);
  ASSERT_EQ(l.size(), 10);
  std::set<int> seen;
  for (int j = 0; j < 10; ++j) {
    const int i = static_cast<int>(l.samples()(0, j));
    EXPECT_EQ(l.labels()[static_cast<std::size_t>(j)], i % 3);
    seen.insert(i);
  }
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(l.samples(), d.limited(10, 5).samples());
  EXPECT_EQ(d.limited(0, 5).size(), 100);
  EXPECT_EQ(d.limited(500, 5).size(), 100);
}

TEST(Batcher, EachEpochVisitsEverySampleOnceWithAPartialLastBatch) {
  const auto d = counting(10);
  core::data::Batcher b(d, 4, 11);
  ASSERT_EQ(b.batchCount(), 3);
  EXPECT_EQ(b.batchSamples(2), 2);
  Eigen::MatrixXf x;
  std::vector<int> y;
  std::vector<int> visited;
  for (std::int64_t k = 0; k < b.batchCount(); ++k) {
    b.fetch(k, x, y);
    ASSERT_EQ(x.cols(), static_cast<Eigen::Index>(y.size()));
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      visited.push_back(static_cast<int>(x(0, j)));
      EXPECT_EQ(y[static_cast<std::size_t>(j)], visited.back() % 3);
    }
  }
  std::sort(visited.begin(), visited.end());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(visited[static_cast<std::size_t>(i)], i);
  const auto epoch0 = b.order();
  b.startEpoch(1);
  EXPECT_NE(b.order(), epoch0);
  b.startEpoch(0);
  EXPECT_EQ(b.order(), epoch0);
  EXPECT_THROW(core::data::Batcher(d, 0, 1), Error);
  EXPECT_THROW(b.fetch(3, x, y), Error);
}

TEST(Synthetic, IsSeededShapedAndInRange) {
  core::data::SyntheticSpec s;
  s.shape = {3, 8, 8};
  s.classes = 4;
  s.count = 50;
  s.seed = 9;
  const auto a = core::data::makeSynthetic(s);
  EXPECT_EQ(a.size(), 50);
  EXPECT_EQ(a.samples().rows(), 192);
  EXPECT_GE(a.samples().minCoeff(), 0.0f);
  EXPECT_LE(a.samples().maxCoeff(), 1.0f);
  for (int l : a.labels()) EXPECT_TRUE(l >= 0 && l < 4);
  EXPECT_EQ(a.samples(), core::data::makeSynthetic(s).samples());
  // Sample i does not depend on how many are generated.
  s.count = 20;
  const auto fewer = core::data::makeSynthetic(s);
  EXPECT_EQ(fewer.samples(), a.samples().leftCols(20));
  s.seed = 10;
  EXPECT_NE(core::data::makeSynthetic(s).samples(), fewer.samples());
  s.classes = 0;
  EXPECT_THROW(core::data::makeSynthetic(s), Error);
}

// Nearest class mean (fitted on train, scored on test) is far above chance: the data is
// learnable, and train/test share a distribution. Also: not trivially separable per pixel.
TEST(Synthetic, ImagesAreLearnable) {
  core::data::LoadOptions o;
  o.seed = 3;
  o.limit = 2000;
  o.testLimit = 500;
  const auto s = core::data::loadDataset("synthetic", o);
  const int k = s.train.classes();
  Eigen::MatrixXf means = Eigen::MatrixXf::Zero(s.train.samples().rows(), k);
  Eigen::VectorXf counts = Eigen::VectorXf::Zero(k);
  for (Eigen::Index i = 0; i < s.train.samples().cols(); ++i) {
    means.col(s.train.labels()[static_cast<std::size_t>(i)]) += s.train.samples().col(i);
    counts(s.train.labels()[static_cast<std::size_t>(i)]) += 1;
  }
  for (int c = 0; c < k; ++c) means.col(c) /= counts(c);
  int correct = 0;
  for (Eigen::Index i = 0; i < s.test.samples().cols(); ++i) {
    Eigen::Index best;
    (means.colwise() - s.test.samples().col(i)).colwise().squaredNorm().minCoeff(&best);
    correct += best == s.test.labels()[static_cast<std::size_t>(i)];
  }
  EXPECT_GT(correct, 400);  // > 80 % with 10 classes
  // A single pixel alone is a poor classifier: per-pixel noise is strong.
  const float spread = (s.train.samples().row(0).array() - s.train.samples().row(0).mean()).abs().mean();
  EXPECT_GT(spread, 0.15f);
}

TEST(Synthetic, TokenIdsStayInTheVocabularyAndCarryTheClass) {
  core::data::SyntheticSpec s;
  s.shape = {1, 64, 1};
  s.classes = 1;  // binary
  s.vocabulary = 100;
  s.count = 200;
  const auto d = core::data::makeSynthetic(s);
  int agree = 0;
  for (Eigen::Index i = 0; i < d.samples().cols(); ++i) {
    int even = 0;
    for (Eigen::Index r = 0; r < 64; ++r) {
      const float t = d.samples()(r, i);
      ASSERT_EQ(t, std::floor(t));
      ASSERT_GE(t, 0.0f);
      ASSERT_LT(t, 100.0f);
      even += static_cast<int>(t) % 2 == 0;
    }
    agree += (even > 32) == (d.labels()[static_cast<std::size_t>(i)] == 0);
  }
  EXPECT_GT(agree, 180);
}

TEST(SyntheticDataset, UsesTheRequestedShapeAndCapsMemory) {
  core::data::LoadOptions o;
  o.shape = {3, 32, 32};
  o.classes = 5;
  o.limit = 30;
  o.testLimit = 10;
  const auto s = core::data::loadDataset("synthetic", o);
  EXPECT_EQ(s.train.shape(), (core::nn::Shape{3, 32, 32}));
  EXPECT_EQ(s.train.size(), 30);
  EXPECT_EQ(s.test.size(), 10);
  EXPECT_EQ(s.train.classes(), 5);
  // ImageNet-shaped without a limit: the default count fits the memory budget.
  core::data::LoadOptions big;
  big.testLimit = 2;
  big.limit = 4;
  const auto im = core::data::loadDataset("synthetic-imagenet", big);
  EXPECT_EQ(im.train.shape(), (core::nn::Shape{3, 224, 224}));
  EXPECT_EQ(im.train.classes(), 1000);
}

TEST(Catalog, HasEveryDatasetWithPublishedSizes) {
  using core::data::datasetInfo;
  EXPECT_EQ(datasetInfo("fashion-mnist").trainSize, 60000);
  EXPECT_EQ(datasetInfo("fashion-mnist").testSize, 10000);
  EXPECT_TRUE(datasetInfo("fashion-mnist").loadable);
  EXPECT_EQ(datasetInfo("mnist").inputShape, (core::nn::Shape{1, 28, 28}));
  EXPECT_EQ(datasetInfo("cifar10").trainSize, 50000);
  EXPECT_EQ(datasetInfo("cifar10").inputShape, (core::nn::Shape{3, 32, 32}));
  const auto& in = datasetInfo("imagenet");
  EXPECT_EQ(in.trainSize, 1281167);
  EXPECT_EQ(in.testSize, 50000);
  EXPECT_EQ(in.classes, 1000);
  EXPECT_EQ(in.format, core::data::SampleFormat::Jpeg);
  EXPECT_NEAR(in.storedBytesPerSample, 110e3, 1e3);
  EXPECT_FALSE(in.loadable);
  const auto& fl = datasetInfo("tf-flowers");
  EXPECT_EQ(fl.trainSize + fl.testSize, 3670);
  EXPECT_EQ(fl.classes, 5);
  EXPECT_EQ(fl.inputShape, (core::nn::Shape{3, 331, 331}));
  const auto& imdb = datasetInfo("imdb");
  EXPECT_EQ(imdb.trainSize, 25000);
  EXPECT_EQ(imdb.testSize, 25000);
  EXPECT_EQ(imdb.vocabulary, 20000);
  EXPECT_EQ(imdb.format, core::data::SampleFormat::TokenIds);
  const auto& nz = datasetInfo("nietzsche");
  EXPECT_NEAR(static_cast<double>(nz.trainSize), 200e3, 1e3);
  EXPECT_EQ(nz.inputShape.h, 40);
  EXPECT_EQ(datasetInfo("synthetic").format, core::data::SampleFormat::Synthetic);
  for (const auto& d : core::data::datasetCatalog()) {
    EXPECT_FALSE(d.description.empty()) << d.id;
    EXPECT_FALSE(d.source.empty()) << d.id;
    EXPECT_GT(d.inputShape.size(), 0) << d.id;
  }
}

TEST(Catalog, UnknownAndDescriptorOnlyIdsAreClearErrors) {
  try {
    core::data::datasetInfo("fashion");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'fashion'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("fashion-mnist"), std::string::npos);
  }
  try {
    core::data::loadDataset("imagenet");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("descriptor"), std::string::npos);
  }
}

}  // namespace
