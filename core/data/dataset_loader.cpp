#include "core/data/dataset_loader.h"

#include <algorithm>
#include <filesystem>

#include "core/data/cifar_reader.h"
#include "core/data/dataset_info.h"
#include "core/data/idx_reader.h"
#include "core/data/image_folder.h"
#include "core/data/synthetic.h"
#include "core/data/text_corpus.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace fs = std::filesystem;

namespace core::data {

using util::Error;

namespace {

const char* const kIdxFiles[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                                 "t10k-labels-idx1-ubyte"};
const char* const kCifarTrainFiles[] = {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                                        "data_batch_4.bin", "data_batch_5.bin"};
const char* const kCifarTestFile = "test_batch.bin";

bool isIdxDataset(const std::string& id) { return id == "fashion-mnist" || id == "mnist"; }

// An IDX file may be stored plain, gzip-compressed (.gz), or with the dotted name MNIST's
// mirrors sometimes use (train-images.idx3-ubyte).
std::string findIdxFile(const fs::path& dir, const std::string& base) {
  std::string dotted = base;
  if (const auto dash = dotted.find("-idx"); dash != std::string::npos) dotted[dash] = '.';
  for (const std::string& name : {base + ".gz", base, dotted + ".gz", dotted}) {
    std::error_code ec;
    if (fs::is_regular_file(dir / name, ec)) return (dir / name).string();
  }
  return {};
}

// CIFAR-10's archive extracts to cifar-10-batches-bin/; accept that folder or its parent.
fs::path cifarFolder(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir / kCifarTestFile, ec) && fs::is_directory(dir / "cifar-10-batches-bin", ec))
    return dir / "cifar-10-batches-bin";
  return dir;
}

std::string howToGet(const std::string& id) {
  if (id == "fashion-mnist")
    return "Install the Debian package: sudo apt install dataset-fashion-mnist (files in "
           "/usr/share/datasets/fashion-mnist), or give a folder with those four files (data_dir; the CLI's --data-dir).";
  if (id == "mnist")
    return "Download the four MNIST IDX files (plain or .gz) from the MNIST web page into that folder, or give another folder "
           "(data_dir; the CLI's --data-dir).";
  return "Download the CIFAR-10 binary version (cifar-10-binary.tar.gz) from the CIFAR web page, extract it "
         "into that folder (cifar-10-batches-bin/ is found too), or give another folder (data_dir; the CLI's --data-dir).";
}

[[noreturn]] void throwMissing(const std::string& id, const fs::path& dir, const std::vector<std::string>& missing) {
  std::string list;
  for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
  std::string files;
  for (const auto& f : expectedFiles(id)) files += (files.empty() ? "" : ", ") + f;
  std::error_code ec;
  std::string where = "folder " + dir.string();
  if (fs::is_directory(dir, ec)) {
    std::error_code listing;
    fs::directory_iterator probe(dir, listing);
    if (listing) throw Error("dataset '" + id + "': the folder " + dir.string() + " cannot be read (" + listing.message() + ")");
  } else if (fs::exists(dir, ec)) {
    throw Error("dataset '" + id + "': " + dir.string() + " is a file; the data folder must be a folder holding " +
                [&] {
                  std::string f;
                  for (const auto& e : expectedFiles(id)) f += (f.empty() ? "" : ", ") + e;
                  return f;
                }());
  } else {
    where += " (which does not exist)";
  }
  if (missing.size() == expectedFiles(id).size())
    throw Error("dataset '" + id + "': none of its files are in " + where + ". Expected: " + files + ". " + howToGet(id));
  throw Error("dataset '" + id + "': missing " + list + " in " + where + ". Expected: " + files + ". " + howToGet(id));
}

Dataset idxToDataset(const std::string& id, const std::string& imagesPath, const std::string& labelsPath) {
  const IdxArray images = readIdxFile(imagesPath);
  const IdxArray labels = readIdxFile(labelsPath);
  if (images.dims.size() != 3)
    throw Error(imagesPath + ": expected a 3-dimensional IDX array (images x rows x columns), got " +
                std::to_string(images.dims.size()) + " dimensions");
  if (labels.dims.size() != 1)
    throw Error(labelsPath + ": expected a 1-dimensional IDX array of labels, got " +
                std::to_string(labels.dims.size()) + " dimensions");
  if (images.count() != labels.count())
    throw Error("dataset '" + id + "': image/label count mismatch: " + imagesPath + " has " +
                std::to_string(images.count()) + " images but " + labelsPath + " has " +
                std::to_string(labels.count()) + " labels");
  const int classes = datasetInfo(id).classes;
  const nn::Shape shape{1, static_cast<int>(images.dims[1]), static_cast<int>(images.dims[2])};
  const auto n = static_cast<Eigen::Index>(images.count());
  const auto rows = static_cast<Eigen::Index>(images.itemSize());
  if (rows == 0) throw Error(imagesPath + ": images of size 0");
  Eigen::MatrixXf x(rows, n);
  const Eigen::Map<const Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic>> raw(images.values.data(), rows, n);
  x = raw.cast<float>() * (1.0f / 255.0f);
  std::vector<int> y(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) {
    const int label = labels.values[static_cast<std::size_t>(i)];
    if (label >= classes)
      throw Error(labelsPath + ": label " + std::to_string(label) + " at index " + std::to_string(i) +
                  " is out of range (" + std::to_string(classes) + " classes)");
    y[static_cast<std::size_t>(i)] = label;
  }
  return Dataset(id, shape, classes, std::move(x), std::move(y));
}

DatasetSplit loadIdx(const std::string& id, const fs::path& dir) {
  std::vector<std::string> paths, missing;
  for (const char* base : kIdxFiles) {
    paths.push_back(findIdxFile(dir, base));
    if (paths.back().empty()) missing.push_back(std::string(base) + "[.gz]");
  }
  if (!missing.empty()) throwMissing(id, dir, missing);
  DatasetSplit s{idxToDataset(id, paths[0], paths[1]), idxToDataset(id, paths[2], paths[3])};
  if (s.train.shape() != s.test.shape())
    throw Error("dataset '" + id + "': training images (" + paths[0] + ") and test images (" + paths[2] +
                ") have different sizes");
  return s;
}

Dataset cifarToDataset(const std::vector<std::string>& paths) {
  std::vector<CifarBatch> batches;
  std::int64_t total = 0;
  for (const auto& p : paths) {
    batches.push_back(readCifarBatch(p));
    total += batches.back().count();
  }
  Eigen::MatrixXf x(kCifarPixels, static_cast<Eigen::Index>(total));
  std::vector<int> y;
  y.reserve(static_cast<std::size_t>(total));
  Eigen::Index col = 0;
  for (const auto& b : batches) {
    const Eigen::Map<const Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic>> raw(b.pixels.data(), kCifarPixels,
                                                                                           b.count());
    x.middleCols(col, b.count()) = raw.cast<float>() * (1.0f / 255.0f);
    col += b.count();
    y.insert(y.end(), b.labels.begin(), b.labels.end());
  }
  return Dataset("cifar10", {3, 32, 32}, kCifarClasses, std::move(x), std::move(y));
}

DatasetSplit loadCifar(const fs::path& given) {
  const fs::path dir = cifarFolder(given);
  std::vector<std::string> train, missing;
  std::error_code ec;
  for (const char* f : kCifarTrainFiles) {
    if (fs::is_regular_file(dir / f, ec)) train.push_back((dir / f).string());
    else missing.push_back(f);
  }
  if (!fs::is_regular_file(dir / kCifarTestFile, ec)) missing.push_back(kCifarTestFile);
  if (!missing.empty()) throwMissing("cifar10", dir, missing);
  return {cifarToDataset(train), cifarToDataset({(dir / kCifarTestFile).string()})};
}

DatasetSplit makeSyntheticSplit(const DatasetInfo& info, const LoadOptions& o) {
  SyntheticSpec spec;
  spec.id = info.id;
  spec.shape = o.shape.size() > 0 && o.shape.c > 0 ? o.shape : info.inputShape;
  spec.classes = o.classes > 0 ? o.classes : info.classes;
  spec.vocabulary = o.vocabulary > 0 ? o.vocabulary : info.vocabulary;
  spec.seed = o.seed;
  const std::int64_t bytesPerSample = spec.shape.size() * static_cast<std::int64_t>(sizeof(float));
  std::int64_t train = info.trainSize, test = info.testSize;
  const std::int64_t fit = std::max<std::int64_t>(2, kSyntheticBudgetBytes / bytesPerSample);
  if (train + test > fit) {  // keep the catalog's train:test ratio inside the memory budget
    test = std::max<std::int64_t>(1, fit * test / (train + test));
    train = std::max<std::int64_t>(1, fit - test);
  }
  if (o.limit > 0) train = o.limit;
  if (o.testLimit > 0) test = o.testLimit;
  const double needGB = static_cast<double>((train + test) * bytesPerSample) / 1e9;
  if (needGB > 8.0)
    throw Error("dataset '" + info.id + "': " + std::to_string(train + test) + " generated samples of " +
                std::to_string(spec.shape.size()) + " values need " + std::to_string(needGB) +
                " GB of memory; use a smaller --limit");
  spec.count = train;
  spec.sampleStream = 0;
  DatasetSplit s;
  s.train = makeSynthetic(spec);
  spec.count = test;
  spec.sampleStream = 1;
  s.test = makeSynthetic(spec);
  return s;
}

}  // namespace

std::string defaultDataDir(const std::string& id) {
  const DatasetInfo& info = datasetInfo(id);
  if (info.id == "fashion-mnist") return "/usr/share/datasets/fashion-mnist";
  if (info.id == "mnist" || info.id == "cifar10") return (fs::path(util::userDataDir()) / "datasets" / info.id).string();
  return {};
}

std::vector<std::string> expectedFiles(const std::string& id) {
  const DatasetInfo& info = datasetInfo(id);
  std::vector<std::string> files;
  if (isIdxDataset(info.id)) {
    for (const char* f : kIdxFiles) files.push_back(std::string(f) + "[.gz]");
  } else if (info.id == "cifar10") {
    for (const char* f : kCifarTrainFiles) files.emplace_back(f);
    files.emplace_back(kCifarTestFile);
  }
  return files;
}

bool datasetAvailable(const std::string& id, const std::string& dir) {
  const DatasetInfo& info = datasetInfo(id);
  if (!info.loadable) return false;
  if (info.format == SampleFormat::Synthetic) return true;
  if (info.id == kImageFolderId) {  // your folder: no default place
    std::error_code ec;
    return !dir.empty() && fs::is_directory(dir, ec);
  }
  if (info.format == SampleFormat::TokenIds) {  // a text corpus: the fortunes folder, or any file or folder given
    std::error_code ec;
    return fs::exists(dir.empty() ? fs::path(kFortunesDir) : fs::path(dir), ec);
  }
  const fs::path folder = dir.empty() ? fs::path(defaultDataDir(id)) : fs::path(dir);
  std::error_code ec;
  if (isIdxDataset(info.id)) {
    for (const char* base : kIdxFiles)
      if (findIdxFile(folder, base).empty()) return false;
    return true;
  }
  const fs::path cifar = cifarFolder(folder);
  for (const char* f : kCifarTrainFiles)
    if (!fs::is_regular_file(cifar / f, ec)) return false;
  return fs::is_regular_file(cifar / kCifarTestFile, ec);
}

DatasetInfo datasetInfoIn(const std::string& id, const std::string& dir) {
  const DatasetInfo& info = datasetInfo(id);
  if (info.id != kImageFolderId || dir.empty()) return info;
  return imageFolderInfo(listImageFolder(dir), info.inputShape);
}

DatasetSplit loadDataset(const std::string& id, const LoadOptions& o) {
  const DatasetInfo& info = datasetInfo(id);
  if (o.limit < 0) throw Error("limit must not be negative, got " + std::to_string(o.limit));
  if (o.testLimit < 0) throw Error("test limit must not be negative, got " + std::to_string(o.testLimit));
  if (!info.loadable)
    throw Error("dataset '" + id + "' is a descriptor only (sizes and shapes for the simulator); AccelLab cannot train "
                "on it. Trainable datasets: fashion-mnist, mnist, cifar10, synthetic, synthetic-imagenet, image-folder");
  if (info.format == SampleFormat::Synthetic) return makeSyntheticSplit(info, o);
  if (info.format == SampleFormat::TokenIds)
    throw Error("dataset '" + id + "' is text: it trains a language model (char-gpt) through the language-model loop, "
                "not as labelled samples");

  if (info.id == kImageFolderId) {
    if (o.dataDir.empty())
      throw Error("dataset 'image-folder' needs your folder of images: --data-dir DIR, with one sub-folder per class "
                  "(DIR/<class name>/*.png|*.jpg|*.jpeg)");
    return loadImageFolder(o.dataDir, o.shape.size() > 0 && o.shape.c > 0 ? o.shape : info.inputShape, o);
  }
  const fs::path dir = o.dataDir.empty() ? fs::path(defaultDataDir(id)) : fs::path(o.dataDir);
  DatasetSplit s = isIdxDataset(info.id) ? loadIdx(info.id, dir) : loadCifar(dir);
  if (s.train.empty()) throw Error("dataset '" + id + "': the training set in " + dir.string() + " is empty");
  // limited() copies; skip it when everything is kept (a full Fashion-MNIST is 188 MB).
  if (o.limit > 0 && o.limit < s.train.size()) s.train = s.train.limited(o.limit, o.seed);
  if (o.testLimit > 0 && o.testLimit < s.test.size()) s.test = s.test.limited(o.testLimit, o.seed + 1);
  return s;
}

}  // namespace core::data
