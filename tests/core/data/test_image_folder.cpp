// Your own images: PNG/JPEG decoding (every PNG kind, JPEG grey and colour), resizing, the
// image folder's listing, split, limits and refusals, and a CNN that learns from one.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <sys/stat.h>
#include <zlib.h>

#include "core/data/dataset_loader.h"
#include "core/data/image_decode.h"
#include "core/data/image_folder.h"
#include "core/data/image_resize.h"
#include "core/experiment/train_config.h"
#include "core/train/trainer.h"
#include "core/util/error.h"
#include "image_files.h"

using core::util::Error;
namespace fs = std::filesystem;
namespace data = core::data;
using testdata::Bytes;

namespace {

data::DecodedImage decode(const Bytes& b, int channels, const data::ImageLimits& limits = {}) {
  return data::decodeImage(b, channels, "test.img", limits);
}

// Runs `f`, expecting an Error whose message holds every fragment.
template <class F>
void expectError(F&& f, std::initializer_list<std::string> fragments, int line = __builtin_LINE()) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << *fragments.begin() << " (line " << line << ")";
  } catch (const Error& e) {
    for (const auto& frag : fragments)
      EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << e.what() << " (line " << line << ")";
  }
}

// Sets the width and height in a PNG's IHDR chunk and fixes its CRC.
Bytes withPngSize(Bytes png, std::uint32_t width, std::uint32_t height) {
  auto put = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) png[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
  };
  put(16, width);
  put(20, height);
  const uLong crc = crc32(0, png.data() + 12, 17);  // "IHDR" + 13 bytes of data
  put(29, static_cast<std::uint32_t>(crc));
  return png;
}

// ---- decoding ---------------------------------------------------------------------------------

TEST(ImageDecode, PngOfEveryKindToGreyAndRgb) {
  const Bytes grey = {0, 64, 128, 255};
  auto g = decode(testdata::pngGray(2, 2, grey), 1);
  EXPECT_EQ(g.width, 2);
  EXPECT_EQ(g.height, 2);
  EXPECT_EQ(g.channels, 1);
  EXPECT_EQ(g.pixels, grey);
  auto gAsRgb = decode(testdata::pngGray(2, 2, grey), 3);
  EXPECT_EQ(gAsRgb.pixels, testdata::greyToRgb(grey));

  const Bytes rgb = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30};
  EXPECT_EQ(decode(testdata::pngRgb(2, 2, rgb), 3).pixels, rgb);
  const auto toGrey = decode(testdata::pngRgb(2, 2, rgb), 1).pixels;
  ASSERT_EQ(toGrey.size(), 4u);
  EXPECT_GT(toGrey[1], toGrey[0]);  // green is brighter than red, which is brighter than blue
  EXPECT_GT(toGrey[0], toGrey[2]);

  // RGBA: a transparent pixel is black, an opaque one keeps its colour.
  const Bytes rgba = {200, 100, 50, 255, 200, 100, 50, 0};
  EXPECT_EQ(decode(testdata::png(2, 1, PNG_FORMAT_RGBA, rgba.data()), 3).pixels, (Bytes{200, 100, 50, 0, 0, 0}));

  // 16-bit grey: full scale is 255, zero is 0.
  const std::uint16_t wide[2] = {0, 65535};
  EXPECT_EQ(decode(testdata::png(2, 1, PNG_FORMAT_LINEAR_Y, wide), 1).pixels, (Bytes{0, 255}));

  // Palette: indices into a colour map.
  const Bytes map = {255, 0, 0, 0, 0, 255};
  const Bytes indices = {1, 0, 0, 1};
  EXPECT_EQ(decode(testdata::png(2, 2, PNG_FORMAT_RGB_COLORMAP, indices.data(), map.data(), 2), 3).pixels,
            (Bytes{0, 0, 255, 255, 0, 0, 255, 0, 0, 0, 0, 255}));
}

TEST(ImageDecode, JpegGreyAndColourWithinCompressionError) {
  Bytes grey(16 * 16);
  for (std::size_t i = 0; i < grey.size(); ++i) grey[i] = static_cast<std::uint8_t>((i % 16) * 16);
  const auto g = decode(testdata::jpeg(16, 16, 1, grey), 1);
  ASSERT_EQ(g.pixels.size(), grey.size());
  for (std::size_t i = 0; i < grey.size(); ++i) EXPECT_NEAR(g.pixels[i], grey[i], 12) << i;
  const Bytes rgb = testdata::greyToRgb(grey, 255, 0);
  const auto c = decode(testdata::jpeg(16, 16, 3, rgb), 3);
  ASSERT_EQ(c.pixels.size(), rgb.size());
  for (std::size_t i = 0; i < rgb.size(); ++i) EXPECT_NEAR(c.pixels[i], rgb[i], 24) << i;
  EXPECT_EQ(decode(testdata::jpeg(16, 16, 3, rgb), 1).channels, 1);
}

TEST(ImageDecode, CodecComesFromTheContent) {
  const Bytes grey = {1, 2, 3, 4};
  EXPECT_EQ(data::imageCodecOf(testdata::pngGray(2, 2, grey)), data::ImageCodec::Png);
  EXPECT_EQ(data::imageCodecOf(testdata::jpeg(8, 8, 1, Bytes(64, 9))), data::ImageCodec::Jpeg);
  EXPECT_EQ(data::imageCodecOf(Bytes{'G', 'I', 'F', '8', '9', 'a'}), data::ImageCodec::Unknown);
}

TEST(ImageDecode, RefusesBadBytesNamingTheFile) {
  expectError([] { decode({}, 1); }, {"test.img", "empty"});
  expectError([] { decode(Bytes{'G', 'I', 'F', '8', '9', 'a', 1, 2, 3}, 1); }, {"test.img", "not a PNG or JPEG", "47 49 46"});
  expectError([] { decode(Bytes{1, 2, 3}, 2); }, {"1 (grey) or 3 (RGB)"});

  Bytes grey(32 * 32);
  for (std::size_t i = 0; i < grey.size(); ++i) grey[i] = static_cast<std::uint8_t>(i * 7);
  const Bytes png = testdata::pngGray(32, 32, grey);
  for (std::size_t cut : {std::size_t{8}, std::size_t{30}, png.size() / 2, png.size() - 20}) {
    const Bytes truncated(png.begin(), png.begin() + static_cast<std::ptrdiff_t>(cut));
    expectError([&] { decode(truncated, 1); }, {"test.img", "PNG"});
  }
  Bytes flipped = png;
  flipped[png.size() / 2] ^= 0x55;  // inside IDAT: its CRC no longer matches
  expectError([&] { decode(flipped, 1); }, {"test.img", "PNG"});

  const Bytes jpg = testdata::jpeg(32, 32, 1, grey);
  for (std::size_t cut : {std::size_t{3}, std::size_t{20}, jpg.size() / 2, jpg.size() - 2}) {
    const Bytes truncated(jpg.begin(), jpg.begin() + static_cast<std::ptrdiff_t>(cut));
    expectError([&] { decode(truncated, 1); }, {"test.img", "JPEG"});
  }
}

TEST(ImageDecode, RefusesHugeImagesFromTheHeader) {
  const Bytes png = testdata::pngGray(2, 2, Bytes{1, 2, 3, 4});
  // 20000 x 20000 promised by a 70-byte file: refused before any pixel is allocated.
  expectError([&] { decode(withPngSize(png, 20000, 20000), 3); }, {"test.img", "20000x20000", "larger than"});
  expectError([&] { decode(withPngSize(png, 16384, 16384), 3); }, {"16384x16384", "M pixels"});
  data::ImageLimits small;
  small.maxSide = 16;
  expectError([] { decode(testdata::jpeg(32, 8, 1, Bytes(256, 1)), 1, {16, 1 << 20}); }, {"32x8", "16 pixels a side"});
  EXPECT_NO_THROW(decode(testdata::jpeg(16, 8, 1, Bytes(128, 1)), 1, small));
}

// ---- resizing ---------------------------------------------------------------------------------

TEST(ImageResize, AreaShrinkAveragesAndBilinearGrowKeepsRange) {
  data::DecodedImage img{4, 2, 1, {0, 100, 200, 250, 50, 150, 250, 255}};
  std::vector<float> out(2);
  data::resizeToPlanar(img, {1, 1, 2}, out.data());  // each output pixel is a 2x2 block's mean
  EXPECT_NEAR(out[0] * 255, (0 + 100 + 50 + 150) / 4.0, 1e-3);
  EXPECT_NEAR(out[1] * 255, (200 + 250 + 250 + 255) / 4.0, 1e-3);

  data::DecodedImage flat{3, 3, 3, Bytes(27, 51)};
  std::vector<float> big(3 * 7 * 5);
  data::resizeToPlanar(flat, {3, 7, 5}, big.data());
  for (float v : big) EXPECT_NEAR(v, 0.2f, 1e-6);

  data::DecodedImage ramp{2, 1, 1, {0, 255}};
  std::vector<float> grown(4);
  data::resizeToPlanar(ramp, {1, 1, 4}, grown.data());
  EXPECT_FLOAT_EQ(grown[0], 0.0f);
  EXPECT_FLOAT_EQ(grown[3], 1.0f);
  EXPECT_LT(grown[1], grown[2]);

  // Channel-major: RGB planes one after another.
  data::DecodedImage rgb{1, 1, 3, {255, 0, 51}};
  std::vector<float> planes(3 * 2 * 2);
  data::resizeToPlanar(rgb, {3, 2, 2}, planes.data());
  EXPECT_FLOAT_EQ(planes[0], 1.0f);
  EXPECT_FLOAT_EQ(planes[4], 0.0f);
  EXPECT_FLOAT_EQ(planes[11], 0.2f);
  EXPECT_THROW(data::resizeToPlanar(rgb, {1, 2, 2}, planes.data()), Error);
}

// ---- the folder ------------------------------------------------------------------------------

TEST(ImageFolder, FindsClassesInNameOrderAndImagesInAnyCase) {
  const auto dir = testdata::scratchDir("imgfolder-classes");
  const Bytes img = testdata::pngGray(2, 2, Bytes{1, 2, 3, 4});
  for (const char* c : {"zebra", "ant", "Moose", ".hidden"}) fs::create_directories(dir / c);
  testdata::writeBytes(dir / "zebra" / "a.PNG", img);
  testdata::writeBytes(dir / "zebra" / "b.Jpeg", testdata::jpeg(8, 8, 1, Bytes(64, 3)));
  testdata::writeBytes(dir / "zebra" / "notes.txt", Bytes{'x'});
  testdata::writeBytes(dir / "zebra" / ".c.png", img);
  testdata::writeBytes(dir / "ant" / "x.jpg", testdata::jpeg(8, 8, 1, Bytes(64, 3)));
  testdata::writeBytes(dir / "Moose" / "m.png", img);
  testdata::writeBytes(dir / ".hidden" / "h.png", img);
  testdata::writeBytes(dir / "loose.png", img);  // a file beside the classes: not a class
  const data::ImageFolderListing l = data::listImageFolder(dir.string());
  EXPECT_EQ(l.classes, (std::vector<std::string>{"Moose", "ant", "zebra"}));  // byte order
  ASSERT_EQ(l.files.size(), 3u);
  EXPECT_EQ(l.files[2], (std::vector<std::string>{(dir / "zebra" / "a.PNG").string(), (dir / "zebra" / "b.Jpeg").string()}));
  EXPECT_EQ(l.fileCount, 4);
  EXPECT_GT(l.bytes, 0);
  const data::DatasetInfo info = data::imageFolderInfo(l, {1, 28, 28});
  EXPECT_EQ(info.id, "image-folder");
  EXPECT_EQ(info.classes, 3);
  EXPECT_EQ(info.trainSize + info.testSize, 4);
  EXPECT_EQ(info.testSize, 1);  // zebra's 2 images give 1 test image; single images train
  EXPECT_DOUBLE_EQ(info.storedBytesPerSample, static_cast<double>(l.bytes) / 4);
  EXPECT_EQ(info.inputShape, (core::nn::Shape{1, 28, 28}));
  EXPECT_NE(info.description.find("Moose, ant, zebra"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ImageFolder, SplitIsStratifiedSeededAndSized) {
  EXPECT_EQ(data::imageFolderTestCount(0), 0);
  EXPECT_EQ(data::imageFolderTestCount(1), 0);
  EXPECT_EQ(data::imageFolderTestCount(2), 1);
  EXPECT_EQ(data::imageFolderTestCount(9), 1);
  EXPECT_EQ(data::imageFolderTestCount(10), 2);
  EXPECT_EQ(data::imageFolderTestCount(100), 20);

  data::ImageFolderListing l;
  l.classes = {"a", "b", "c"};
  for (int c = 0; c < 3; ++c) {
    l.files.emplace_back();
    for (int i = 0; i < (c == 0 ? 10 : c == 1 ? 7 : 1); ++i) l.files.back().push_back(l.classes[c] + std::to_string(i));
  }
  const data::ImageFolderSplit s = data::splitImageFolder(l, 42);
  EXPECT_EQ(s.trainFiles.size(), 8u + 6u + 1u);
  EXPECT_EQ(s.testFiles.size(), 2u + 1u);
  EXPECT_EQ(std::count(s.testLabels.begin(), s.testLabels.end(), 0), 2);
  EXPECT_EQ(std::count(s.testLabels.begin(), s.testLabels.end(), 1), 1);
  EXPECT_EQ(std::count(s.trainLabels.begin(), s.trainLabels.end(), 2), 1);
  std::set<std::string> all(s.trainFiles.begin(), s.trainFiles.end());
  all.insert(s.testFiles.begin(), s.testFiles.end());
  EXPECT_EQ(all.size(), 18u);  // every image once
  for (std::size_t i = 0; i < s.trainFiles.size(); ++i)
    EXPECT_EQ(s.trainFiles[i][0], l.classes[static_cast<std::size_t>(s.trainLabels[i])][0]);

  EXPECT_EQ(data::splitImageFolder(l, 42).testFiles, s.testFiles);
  bool differs = false;
  for (std::uint64_t seed = 1; seed < 6; ++seed) differs = differs || data::splitImageFolder(l, seed).testFiles != s.testFiles;
  EXPECT_TRUE(differs);
}

TEST(ImageFolder, LoadsDeterministicallyWithLimits) {
  const auto dir = testdata::scratchDir("imgfolder-load");
  testdata::writePatternFolder(dir, 15);
  data::LoadOptions o;
  o.dataDir = dir.string();
  o.seed = 7;
  o.shape = {1, 28, 28};
  const data::DatasetSplit a = data::loadDataset("image-folder", o);
  EXPECT_EQ(a.train.size(), 36);  // 12 of each class's 15
  EXPECT_EQ(a.test.size(), 9);
  EXPECT_EQ(a.train.classes(), 3);
  EXPECT_EQ(a.train.shape(), (core::nn::Shape{1, 28, 28}));
  EXPECT_GE(a.train.samples().minCoeff(), 0.0f);
  EXPECT_LE(a.train.samples().maxCoeff(), 1.0f);
  EXPECT_GT(a.train.samples().maxCoeff(), 0.5f);
  const data::DatasetSplit b = data::loadDataset("image-folder", o);
  EXPECT_EQ(a.train.samples(), b.train.samples());
  EXPECT_EQ(a.train.labels(), b.train.labels());
  EXPECT_EQ(a.test.samples(), b.test.samples());

  o.seed = 8;
  const data::DatasetSplit c = data::loadDataset("image-folder", o);
  EXPECT_FALSE(c.test.samples() == a.test.samples());

  o.limit = 10;
  o.testLimit = 4;
  o.shape = {3, 20, 24};
  const data::DatasetSplit d = data::loadDataset("image-folder", o);
  EXPECT_EQ(d.train.size(), 10);
  EXPECT_EQ(d.test.size(), 4);
  EXPECT_EQ(d.train.samples().rows(), 3 * 20 * 24);
  EXPECT_EQ(data::loadDataset("image-folder", o).train.labels(), d.train.labels());

  EXPECT_TRUE(data::datasetAvailable("image-folder", dir.string()));
  EXPECT_FALSE(data::datasetAvailable("image-folder"));
  expectError([] { data::loadDataset("image-folder"); }, {"--data-dir DIR"});
  fs::remove_all(dir);
}

TEST(ImageFolder, RefusesBadFoldersNamingWhatIsWrong) {
  const auto dir = testdata::scratchDir("imgfolder-bad");
  const Bytes img = testdata::pngGray(2, 2, Bytes{1, 2, 3, 4});
  const std::string d = dir.string();
  const auto list = [&](const data::ImageFolderLimits& limits = {}) { data::listImageFolder(d, limits); };

  expectError([&] { data::listImageFolder(d + "/missing"); }, {"missing", "no such folder"});
  testdata::writeBytes(dir / "file.png", img);
  expectError([&] { data::listImageFolder(d + "/file.png"); }, {"file.png", "not a folder", "DIR/<class name>"});
  expectError(list, {d, "no class sub-folders", "1 images lie in the folder itself"});
  fs::create_directories(dir / "cats");
  testdata::writeBytes(dir / "cats" / "c.png", img);
  expectError(list, {d, "only one class", "'cats'", "at least 2"});
  fs::create_directories(dir / "dogs");
  testdata::writeBytes(dir / "dogs" / "readme.txt", Bytes{'x'});
  expectError(list, {"class 'dogs'", "has no images"});
  testdata::writeBytes(dir / "dogs" / "d.jpg", testdata::jpeg(8, 8, 1, Bytes(64, 3)));
  EXPECT_NO_THROW(list());

  data::ImageFolderLimits limits;
  limits.maxFiles = 1;
  expectError([&] { list(limits); }, {"more than 1 images"});
  limits = {};
  limits.maxClasses = 1;
  expectError([&] { list(limits); }, {"more than 1 class"});
  limits = {};
  limits.maxFileBytes = 64;
  expectError([&] { list(limits); }, {"c.png", "bytes is larger than an image AccelLab reads (at most 64 bytes)"});

  // A FIFO with an image's name is not read (it would block), it is named.
  ASSERT_EQ(::mkfifo((dir / "dogs" / "pipe.png").c_str(), 0600), 0);
  expectError(list, {"pipe.png", "FIFO"});
  fs::remove(dir / "dogs" / "pipe.png");

  // Single images leave no test set.
  data::LoadOptions o;
  o.dataDir = d;
  o.shape = {1, 8, 8};
  expectError([&] { data::loadDataset("image-folder", o); }, {"none to test on"});

  // A corrupt image stops the load and is named.
  testdata::writeBytes(dir / "dogs" / "e.png", Bytes(img.begin(), img.begin() + 40));
  testdata::writeBytes(dir / "cats" / "f.png", img);
  expectError([&] { data::loadDataset("image-folder", o); }, {"e.png", "PNG"});
  testdata::writeBytes(dir / "dogs" / "e.png", Bytes{'n', 'o', 'p', 'e'});
  expectError([&] { data::loadDataset("image-folder", o); }, {"e.png", "not a PNG or JPEG"});
  testdata::writeBytes(dir / "dogs" / "e.png", img);

  // The memory budget is checked before decoding.
  limits = {};
  limits.budgetBytes = 1000;
  expectError([&] { data::loadImageFolder(d, {3, 32, 32}, o, limits); }, {"need", "--limit"});
  EXPECT_EQ(data::loadImageFolder(d, {1, 8, 8}, o).train.size() + data::loadImageFolder(d, {1, 8, 8}, o).test.size(), 4);
  expectError([&] { data::loadImageFolder(d, {2, 8, 8}, o); }, {"2 input channels"});
  fs::remove_all(dir);
}

TEST(ImageFolder, ConfigNeedsAFolderAndAnImageModel) {
  core::experiment::TrainConfig c;
  c.datasetId = "image-folder";
  c.modelId = "lenet5";
  expectError([&] { core::experiment::validate(c); }, {"give the folder"});
  c.dataDir = "/some/where";
  EXPECT_NO_THROW(core::experiment::validate(c));
  c.modelId = "fasttext";
  expectError([&] { core::experiment::validate(c); }, {"reads token ids"});
}

// ---- training on it --------------------------------------------------------------------------

TEST(ImageFolderTraining, SmallCnnLearnsThePatterns) {
  const auto dir = testdata::scratchDir("imgfolder-train");
  testdata::writePatternFolder(dir, 100);  // 300 images: 240 training, 60 test
  core::train::TrainConfig c;
  c.datasetId = "image-folder";
  c.dataDir = dir.string();
  c.modelId = "lenet5";
  c.batch = 16;
  c.epochs = 3;
  c.threads = 2;
  c.seed = 3;
  c.optimizer = core::train::OptimizerKind::Adam;
  c.learningRate = 2e-3;
  const auto start = std::chrono::steady_clock::now();
  core::train::Trainer t(c);
  const core::train::RunResult r = t.run({});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, core::train::RunStatus::Finished) << r.message;
  std::vector<core::train::BatchSample> batches;
  std::vector<core::train::EpochSample> epochs;
  t.metrics().drain(batches, epochs);
  ASSERT_EQ(epochs.size(), 3u);
  EXPECT_EQ(epochs.back().images, 240);
  EXPECT_GT(epochs.back().testAccuracy, 0.8) << "chance is 1/3";
  std::printf("[ image-folder ] lenet5, 3 epochs on 240 images: test accuracy %.3f, %.2f s\n",
              epochs.back().testAccuracy, seconds);
  fs::remove_all(dir);
}

}  // namespace
