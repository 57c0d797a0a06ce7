#pragma once
// Loading a catalog dataset into memory: files (IDX for fashion-mnist/mnist, CIFAR-10
// binary batches, your own folder of images: image_folder.h) or the synthetic generator.
// Descriptor-only datasets (imagenet, ...) and missing files are errors that say what was
// expected where and how to get it.
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/dataset_info.h"

namespace core::data {

struct LoadOptions {
  std::string dataDir;          // empty = the dataset's default folder (defaultDataDir)
  // Training samples kept: 0 = all, else the FIRST N AFTER A SEEDED SHUFFLE of the training
  // set (so a small subset has every class), seeded by `seed`. Same for the test set.
  std::int64_t limit = 0;
  std::int64_t testLimit = 0;
  std::uint64_t seed = 0;
  // Synthetic datasets only: the per-sample shape, class count and vocabulary to generate
  // (0 / empty = the catalog's). The count is the limit, else the catalog's size capped to
  // kSyntheticBudgetBytes. The image folder: `shape` is the size its images are resized to.
  nn::Shape shape{0, 0, 0};
  int classes = 0;
  int vocabulary = 0;
};

// Memory budget for a generated (synthetic) train + test set when no limit is given.
inline constexpr std::int64_t kSyntheticBudgetBytes = std::int64_t{1} << 30;

// The folder a dataset is read from when no --data-dir is given (empty for generated and
// descriptor-only datasets): /usr/share/datasets/fashion-mnist for fashion-mnist,
// <userDataDir>/datasets/<id> for mnist and cifar10.
std::string defaultDataDir(const std::string& id);

// The files a dataset needs in its folder (IDX files may also be gzip-compressed, *.gz).
std::vector<std::string> expectedFiles(const std::string& id);

// True when the dataset can be loaded from `dir` (default folder when empty) without
// reading it: generated datasets always, file datasets when every file is present.
bool datasetAvailable(const std::string& id, const std::string& dir = {});

// The catalog entry of `id`, or for the image folder with `dir` given, the folder's own
// (imageFolderInfo: classes, split sizes, mean file size; listed, not decoded). Throws naming
// the folder when it cannot be listed.
DatasetInfo datasetInfoIn(const std::string& id, const std::string& dir);

// Loads train and test sets. Throws core::util::Error with a message for the user: unknown
// id, descriptor-only dataset, missing files (which, where, how to get them), corrupt files.
DatasetSplit loadDataset(const std::string& id, const LoadOptions& options = {});

}  // namespace core::data
