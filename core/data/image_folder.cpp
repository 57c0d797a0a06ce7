#include "core/data/image_folder.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <span>

#include "core/data/image_resize.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/parallel.h"

namespace fs = std::filesystem;

namespace core::data {

using util::Error;

namespace {

constexpr std::uint64_t kSplitStream = 0x73706c6974;  // "split"
constexpr std::uint64_t kKeepStream = 0x6b656570;     // "keep": --limit / --test-limit subsets

const std::vector<std::string> kImageSuffixes = {".png", ".jpg", ".jpeg"};

std::string gib(std::int64_t bytes) {
  const double g = static_cast<double>(bytes) / static_cast<double>(std::int64_t{1} << 30);
  char buf[32];
  std::snprintf(buf, sizeof buf, g < 10 ? "%.2f GiB" : "%.0f GiB", g);
  return buf;
}

std::string sizeText(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

std::string layoutHint() {
  return "expected one sub-folder per class holding its images, DIR/<class name>/*.png|*.jpg|*.jpeg";
}

// The sub-folders of `dir` (hidden ones skipped), sorted; counts the images lying in `dir` itself.
std::vector<std::string> classFolders(const fs::path& dir, const ImageFolderLimits& limits, std::int64_t& looseImages) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) throw Error("image folder " + dir.string() + ": cannot list the folder: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw Error("image folder " + dir.string() + ": listing stopped: " + ec.message());
    const std::string name = it->path().filename().string();
    if (name.empty() || name.front() == '.') continue;
    std::error_code kind;
    if (fs::is_directory(it->path(), kind)) {  // follows a symlink to a folder
      if (static_cast<int>(names.size()) >= limits.maxClasses)
        throw Error("image folder " + dir.string() + ": more than " + std::to_string(limits.maxClasses) +
                    " class sub-folders, more than AccelLab trains on");
      names.push_back(name);
    } else {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      for (const auto& s : kImageSuffixes)
        if (lower.size() > s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0) ++looseImages;
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The first `keep` of `files`/`labels` after a seeded shuffle (all of them when keep <= 0).
void keepSubset(std::vector<std::string>& files, std::vector<int>& labels, std::int64_t keep, std::uint64_t seed,
                std::uint64_t stream) {
  const auto n = static_cast<std::int64_t>(files.size());
  if (keep <= 0 || keep >= n) return;
  const std::vector<std::int64_t> order = seededPermutation(n, seed, stream);
  std::vector<std::string> f;
  std::vector<int> l;
  f.reserve(static_cast<std::size_t>(keep));
  l.reserve(static_cast<std::size_t>(keep));
  for (std::int64_t i = 0; i < keep; ++i) {
    const auto k = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
    f.push_back(std::move(files[k]));
    l.push_back(labels[k]);
  }
  files = std::move(f);
  labels = std::move(l);
}

// Decodes `files` into the columns of a (shape.size() x n) matrix, in parallel; any file's
// error propagates (naming it).
Eigen::MatrixXf decodeAll(const std::vector<std::string>& files, nn::Shape shape, const ImageFolderLimits& limits) {
  Eigen::MatrixXf x(static_cast<Eigen::Index>(shape.size()), static_cast<Eigen::Index>(files.size()));
  util::parallelFor(static_cast<std::ptrdiff_t>(files.size()), 4, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      const std::string& path = files[static_cast<std::size_t>(i)];
      const std::string bytes = util::readFile(path, limits.maxFileBytes);
      const DecodedImage image = decodeImage(
          std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), shape.c, path,
          limits.image);
      resizeToPlanar(image, shape, x.col(static_cast<Eigen::Index>(i)).data());
    }
  });
  return x;
}

}  // namespace

ImageFolderListing listImageFolder(const std::string& dir, const ImageFolderLimits& limits) {
  const fs::path root(dir);
  std::error_code ec;
  if (!fs::exists(root, ec)) throw Error("image folder " + dir + ": no such folder");
  if (!fs::is_directory(root, ec)) throw Error("image folder " + dir + ": not a folder; " + layoutHint());
  ImageFolderListing l;
  l.dir = dir;
  std::int64_t loose = 0;
  l.classes = classFolders(root, limits, loose);
  if (l.classes.empty())
    throw Error("image folder " + dir + ": no class sub-folders" +
                (loose > 0 ? " (its " + std::to_string(loose) + " images lie in the folder itself)" : std::string()) +
                "; " + layoutHint());
  if (l.classes.size() < 2)
    throw Error("image folder " + dir + ": only one class sub-folder ('" + l.classes.front() +
                "'); a classifier needs at least 2 classes; " + layoutHint());
  util::ListOptions options;
  options.ignoreCase = true;
  for (const auto& name : l.classes) {
    const std::string classDir = (root / name).string();
    options.maxFiles = static_cast<std::size_t>(std::max<std::int64_t>(0, limits.maxFiles - l.fileCount));
    util::FileListing found = util::listFiles(classDir, kImageSuffixes, options);
    if (!found.warnings.empty()) {
      std::string why = found.warnings.front();
      if (const auto at = why.rfind(" (skipped)"); at != std::string::npos) why.erase(at);
      throw Error("image folder " + dir + ": " + why);
    }
    if (found.truncated || options.maxFiles == 0)
      throw Error("image folder " + dir + ": more than " + std::to_string(limits.maxFiles) +
                  " images, more than AccelLab reads; use a smaller folder");
    if (found.files.empty())
      throw Error("image folder " + dir + ": class '" + name + "' (" + classDir +
                  ") has no images (.png, .jpg or .jpeg files)");
    for (const auto& path : found.files) {
      std::error_code sizeError;
      const std::uintmax_t size = fs::file_size(path, sizeError);
      if (sizeError) throw Error(path + ": cannot read the file size: " + sizeError.message());
      if (size > limits.maxFileBytes)
        throw Error(path + ": " + sizeText(size) + " is larger than an image AccelLab reads (at most " +
                    sizeText(limits.maxFileBytes) + ")");
      l.bytes += static_cast<std::int64_t>(size);
    }
    l.fileCount += static_cast<std::int64_t>(found.files.size());
    l.files.push_back(std::move(found.files));
  }
  return l;
}

std::int64_t imageFolderTestCount(std::int64_t n) { return n < 2 ? 0 : std::max<std::int64_t>(1, n / 5); }

ImageFolderSplit splitImageFolder(const ImageFolderListing& listing, std::uint64_t seed) {
  ImageFolderSplit s;
  for (std::size_t c = 0; c < listing.files.size(); ++c) {
    const std::vector<std::string>& files = listing.files[c];
    const auto n = static_cast<std::int64_t>(files.size());
    const std::int64_t train = n - imageFolderTestCount(n);
    const std::vector<std::int64_t> order = seededPermutation(n, seed, kSplitStream + c);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::string& f = files[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
      (i < train ? s.trainFiles : s.testFiles).push_back(f);
      (i < train ? s.trainLabels : s.testLabels).push_back(static_cast<int>(c));
    }
  }
  return s;
}

DatasetInfo imageFolderInfo(const ImageFolderListing& listing, nn::Shape shape) {
  DatasetInfo d = datasetInfo(kImageFolderId);
  std::string names;
  for (std::size_t c = 0; c < listing.classes.size() && c < 5; ++c) names += (c ? ", " : "") + listing.classes[c];
  if (listing.classes.size() > 5) names += ", ...";
  d.description = "your images in " + listing.dir + ": " + std::to_string(listing.classes.size()) + " classes (" +
                  names + "), resized to " + std::to_string(shape.c) + "x" + std::to_string(shape.h) + "x" +
                  std::to_string(shape.w);
  d.inputShape = shape;
  d.classes = static_cast<int>(listing.classes.size());
  d.trainSize = 0;
  d.testSize = 0;
  for (const auto& files : listing.files) {
    const auto n = static_cast<std::int64_t>(files.size());
    d.testSize += imageFolderTestCount(n);
    d.trainSize += n - imageFolderTestCount(n);
  }
  d.storedBytesPerSample =
      listing.fileCount > 0 ? static_cast<double>(listing.bytes) / static_cast<double>(listing.fileCount) : 0.0;
  d.source = listing.dir;
  return d;
}

DatasetSplit loadImageFolder(const std::string& dir, nn::Shape shape, const LoadOptions& o,
                             const ImageFolderLimits& limits) {
  if (shape.c != 1 && shape.c != 3)
    throw Error("image folder " + dir + ": the model takes " + std::to_string(shape.c) +
                " input channels; images are read as 1 (grey) or 3 (RGB)");
  if (shape.h < 1 || shape.w < 1 || shape.h > limits.image.maxSide || shape.w > limits.image.maxSide)
    throw Error("image folder " + dir + ": cannot resize images to " + std::to_string(shape.h) + "x" +
                std::to_string(shape.w));
  const ImageFolderListing listing = listImageFolder(dir, limits);
  ImageFolderSplit s = splitImageFolder(listing, o.seed);
  if (s.testFiles.empty())
    throw Error("image folder " + dir + ": every class has a single image, which leaves none to test on; " +
                "give a class at least 2 images");
  keepSubset(s.trainFiles, s.trainLabels, o.limit, o.seed, kKeepStream);
  keepSubset(s.testFiles, s.testLabels, o.testLimit, o.seed, kKeepStream + 1);
  const auto images = static_cast<std::int64_t>(s.trainFiles.size() + s.testFiles.size());
  const std::int64_t need = images * shape.size() * static_cast<std::int64_t>(sizeof(float));
  if (need > limits.budgetBytes)
    throw Error("image folder " + dir + ": " + std::to_string(images) + " images at " + std::to_string(shape.c) + "x" +
                std::to_string(shape.h) + "x" + std::to_string(shape.w) + " need " + gib(need) +
                " of memory as floats, more than the " + gib(limits.budgetBytes) +
                " AccelLab allows; train on a subset with --limit N (and --test-limit N)");
  const int classes = static_cast<int>(listing.classes.size());
  DatasetSplit out;
  out.train = Dataset(kImageFolderId, shape, classes, decodeAll(s.trainFiles, shape, limits), std::move(s.trainLabels));
  out.test = Dataset(kImageFolderId, shape, classes, decodeAll(s.testFiles, shape, limits), std::move(s.testLabels));
  return out;
}

}  // namespace core::data
