#pragma once
// How a training run gets its data and its model's input: shared by the Trainer and the
// benchmark so both see the same thing.
#include "core/data/dataset.h"
#include "core/data/dataset_loader.h"
#include "core/nn/zoo.h"
#include "core/train/trainer.h"

namespace core::train {

// The model input a dataset implies (shape, classes, vocabulary).
nn::ModelInput modelInputFor(const data::Dataset& d);

// The LoadOptions for a run. Generated (synthetic) data takes the MODEL's usual input: its
// zoo input shape, and the classes and vocabulary of its default dataset (mlp -> 1x28x28, resnet20 ->
// 3x32x32, fasttext -> token ids over imdb's vocabulary). The image folder's images are
// resized to the model's zoo input (lenet5 -> 1x28x28, resnet20 -> 3x32x32).
data::LoadOptions loadOptionsFor(const TrainConfig& c);

// Loads the run's data (throws core::util::Error with the loader's message).
data::DatasetSplit loadTrainingData(const TrainConfig& c);

// The run's thread count: c.threads, or every core when 0.
int threadCountFor(const TrainConfig& c);

// A per-step seed from the run's seed and the global step (splitmix64 mixing).
std::uint64_t stepSeed(std::uint64_t runSeed, std::int64_t step);

}  // namespace core::train
