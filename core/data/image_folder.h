#pragma once
// Your own images as a dataset ("image-folder"): the common one-sub-folder-per-class layout,
//   DIR/<class name>/*.png | *.jpg | *.jpeg   (extensions in any case)
// Classes are the sub-folders in name order (class index = position); hidden entries
// (".name") are skipped and sub-folders of a class are not entered. Each class is split 80/20
// into training and test images by a seeded shuffle; every image is decoded, converted to the
// model's channels, resized to the model's input and scaled to [0, 1] floats.
//
// Listing reads no image; loading checks the decoded size against a memory budget before it
// allocates, then decodes only the images it keeps (after --limit / --test-limit).
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/dataset_info.h"
#include "core/data/dataset_loader.h"
#include "core/data/image_decode.h"

namespace core::data {

inline constexpr const char* kImageFolderId = "image-folder";

// Bounds on what a folder may hold, each refused with a message naming the folder or file.
inline constexpr std::uint64_t kMaxImageFileBytes = std::uint64_t{64} << 20;   // one image file
inline constexpr std::int64_t kMaxImageFolderFiles = std::int64_t{1} << 20;    // images in all
inline constexpr int kMaxImageFolderClasses = 10000;
// Decoded train + test samples as floats (the images kept after --limit / --test-limit).
inline constexpr std::int64_t kImageFolderBudgetBytes = std::int64_t{4} << 30;

struct ImageFolderLimits {
  std::uint64_t maxFileBytes = kMaxImageFileBytes;
  std::int64_t maxFiles = kMaxImageFolderFiles;
  int maxClasses = kMaxImageFolderClasses;
  std::int64_t budgetBytes = kImageFolderBudgetBytes;
  ImageLimits image;
};

// What listing the folder finds, nothing decoded.
struct ImageFolderListing {
  std::string dir;
  std::vector<std::string> classes;             // sub-folder names, sorted
  std::vector<std::vector<std::string>> files;  // per class: its image paths, sorted
  std::int64_t fileCount = 0;
  std::int64_t bytes = 0;                       // the image files' sizes on disk, summed
};

// Lists `dir`. Throws core::util::Error naming the folder or file: not a folder, unreadable,
// no class sub-folders, fewer than 2 classes, a class without images, an entry that is not a
// readable regular file, a file over the size cap, more files or classes than the limits.
ImageFolderListing listImageFolder(const std::string& dir, const ImageFolderLimits& limits = {});

// Test images of a class of n: a fifth, at least one when n >= 2 (none for a single image).
std::int64_t imageFolderTestCount(std::int64_t n);

// The seeded train/test split (per class: a shuffle by `seed`, the first n - test images for
// training), labels = class index. The same (folder, seed) gives the same split.
struct ImageFolderSplit {
  std::vector<std::string> trainFiles, testFiles;
  std::vector<int> trainLabels, testLabels;
};
ImageFolderSplit splitImageFolder(const ImageFolderListing& listing, std::uint64_t seed);

// The folder as a catalog entry: its classes, split sizes and mean file size (for the
// simulator's input pipeline), with `shape` the input the images are resized to.
DatasetInfo imageFolderInfo(const ImageFolderListing& listing, nn::Shape shape);

// Lists, splits (seeded by o.seed), keeps o.limit / o.testLimit images after a seeded
// shuffle, checks the budget, and decodes them in parallel to `shape` (c = 1 or 3).
DatasetSplit loadImageFolder(const std::string& dir, nn::Shape shape, const LoadOptions& o,
                             const ImageFolderLimits& limits = {});

}  // namespace core::data
