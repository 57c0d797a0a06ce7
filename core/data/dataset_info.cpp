#include "core/data/dataset_info.h"

#include "core/util/error.h"

namespace core::data {

namespace {

std::vector<DatasetInfo> makeCatalog() {
  std::vector<DatasetInfo> c;

  DatasetInfo fashion;
  fashion.id = "fashion-mnist";
  fashion.description = "Zalando Fashion-MNIST: 28x28 grey clothing images, 10 classes, 60,000/10,000";
  fashion.inputShape = {1, 28, 28};
  fashion.classes = 10;
  fashion.trainSize = 60000;
  fashion.testSize = 10000;
  fashion.format = SampleFormat::RawPixels;
  fashion.storedBytesPerSample = 28 * 28 + 1;  // IDX: one byte per pixel plus the label byte
  fashion.loadable = true;
  fashion.source = "Debian package dataset-fashion-mnist (IDX, gzip) in /usr/share/datasets/fashion-mnist";
  c.push_back(fashion);

  DatasetInfo mnist = fashion;
  mnist.id = "mnist";
  mnist.description = "LeCun's MNIST handwritten digits: 28x28 grey, 10 classes, 60,000/10,000 (your files)";
  mnist.source = "user-supplied IDX files (train-images-idx3-ubyte[.gz] etc.), e.g. from the MNIST web page";
  c.push_back(mnist);

  DatasetInfo cifar;
  cifar.id = "cifar10";
  cifar.description = "CIFAR-10: 32x32 colour images, 10 classes, 50,000/10,000 (binary batches, your files)";
  cifar.inputShape = {3, 32, 32};
  cifar.classes = 10;
  cifar.trainSize = 50000;
  cifar.testSize = 10000;
  cifar.format = SampleFormat::RawPixels;
  cifar.storedBytesPerSample = 3 * 32 * 32 + 1;  // one label byte + 3072 pixel bytes per record
  cifar.loadable = true;
  cifar.source = "user-supplied CIFAR-10 binary version (cifar-10-binary.tar.gz, extracted: data_batch_1..5.bin, test_batch.bin)";
  c.push_back(cifar);

  DatasetInfo synthetic;
  synthetic.id = "synthetic";
  synthetic.description =
      "seeded learnable synthetic data (class prototypes + noise) in the model's input shape; no files needed";
  synthetic.inputShape = {1, 28, 28};  // default; the trainer uses the model's own input shape
  synthetic.classes = 10;
  synthetic.trainSize = 10000;
  synthetic.testSize = 2000;
  synthetic.format = SampleFormat::Synthetic;
  synthetic.storedBytesPerSample = 0;
  synthetic.loadable = true;
  synthetic.source = "generated in memory from the run's seed";
  c.push_back(synthetic);

  DatasetInfo synthImagenet;
  synthImagenet.id = "synthetic-imagenet";
  synthImagenet.description =
      "ImageNet-shaped synthetic data generated on the device (no input pipeline), as in synthetic benchmarks; "
      "224x224, 299x299 for Inception-v3 and Xception";
  synthImagenet.inputShape = {3, 224, 224};
  synthImagenet.resizedToModel = true;
  synthImagenet.classes = 1000;
  synthImagenet.trainSize = 1281167;  // an "epoch" is ImageNet's size, as the benchmarks count it
  synthImagenet.testSize = 50000;
  synthImagenet.format = SampleFormat::Synthetic;
  synthImagenet.storedBytesPerSample = 0;
  synthImagenet.loadable = true;  // the generator makes a memory-capped subset (see dataset.h)
  synthImagenet.source = "generated in memory from the run's seed";
  c.push_back(synthImagenet);

  DatasetInfo folder;
  folder.id = "image-folder";  // core/data/image_folder.h
  folder.description =
      "your own images (--data-dir DIR): DIR/<class>/*.png|*.jpg|*.jpeg, one sub-folder per class, resized to the "
      "model's input, 80/20 split per class";
  folder.inputShape = {3, 224, 224};  // shown; a run takes the model's own input (takesModelInput)
  folder.resizedToModel = true;
  folder.takesModelInput = true;
  folder.classes = 2;                 // at least; the folder's sub-folders decide
  folder.trainSize = 0;               // counted when the folder is listed
  folder.testSize = 0;
  folder.format = SampleFormat::Jpeg;  // encoded files (PNG or JPEG) decoded on the host
  folder.storedBytesPerSample = 110e3;
  folder.loadable = true;
  folder.source = "your folder, given with --data-dir (required)";
  c.push_back(folder);

  DatasetInfo imagenet;
  imagenet.id = "imagenet";
  imagenet.description =
      "ImageNet ILSVRC-2012: JPEGs resized to 224x224 (299x299 for Inception-v3 and Xception), 1000 classes, "
      "1,281,167/50,000 (descriptor)";
  imagenet.inputShape = {3, 224, 224};
  imagenet.resizedToModel = true;
  imagenet.classes = 1000;
  imagenet.trainSize = 1281167;
  imagenet.testSize = 50000;
  imagenet.format = SampleFormat::Jpeg;
  imagenet.storedBytesPerSample = 110e3;  // average encoded JPEG (~140 GB / 1.28 M)
  imagenet.loadable = false;
  imagenet.source = "descriptor only (sizes for the simulator); the JPEG files are not read by AccelLab";
  c.push_back(imagenet);

  DatasetInfo flowers;
  flowers.id = "tf-flowers";
  flowers.description =
      "TensorFlow flowers: 3,670 JPEGs, 5 classes, resized to 331x331; 80/20 split 2,936/734 (descriptor)";
  flowers.inputShape = {3, 331, 331};
  flowers.classes = 5;
  flowers.trainSize = 2936;  // our split: 80 % of 3,670 for training (the dataset has no official split)
  flowers.testSize = 734;
  flowers.format = SampleFormat::Jpeg;
  flowers.storedBytesPerSample = 62e3;  // flower_photos: ~218 MiB of JPEGs / 3,670 files
  flowers.loadable = false;
  flowers.source = "descriptor only (sizes for the simulator); the JPEG files are not read by AccelLab";
  c.push_back(flowers);

  DatasetInfo imdb;
  imdb.id = "imdb";
  imdb.description =
      "IMDb movie reviews: token ids over a 20,000-word vocabulary, padded to 400, binary, 25,000/25,000 (descriptor)";
  imdb.inputShape = {1, 400, 1};  // sequence of 400 token ids (imdb_fasttext's maxlen; the BiLSTM reads 100)
  imdb.classes = 1;
  imdb.trainSize = 25000;
  imdb.testSize = 25000;
  imdb.format = SampleFormat::TokenIds;
  imdb.storedBytesPerSample = 400 * 4;  // padded int32 token ids as the model is fed
  imdb.vocabulary = 20000;
  imdb.loadable = false;
  imdb.source = "descriptor only (sizes for the simulator)";
  c.push_back(imdb);

  DatasetInfo nietzsche;
  nietzsche.id = "nietzsche";
  nietzsche.description =
      "Nietzsche corpus: ~200k windows of 40 characters (step 3 over ~600k characters), 57 symbols (descriptor)";
  nietzsche.inputShape = {1, 40, 1};  // 40 character ids; the model one-hot encodes them
  nietzsche.classes = 57;             // next-character prediction over the alphabet
  nietzsche.trainSize = 200285;       // (600,893 - 40) / 3 windows, as lstm_text_generation makes them
  nietzsche.testSize = 0;             // the example trains on every window
  nietzsche.format = SampleFormat::TokenIds;
  nietzsche.storedBytesPerSample = 41;  // 40 input characters + the next one, one byte each
  nietzsche.vocabulary = 57;
  nietzsche.loadable = false;
  nietzsche.source = "descriptor only (sizes for the simulator)";
  c.push_back(nietzsche);

  DatasetInfo fortunes;
  fortunes.id = "fortunes";
  fortunes.description =
      "Debian fortunes: 2.6 MB of text as bytes, 129-byte windows for char-gpt (accellab-cli train --model char-gpt, "
      "or the app)";
  fortunes.inputShape = {1, 128, 1};  // 128 byte ids; the target is the next byte at every step
  fortunes.classes = 256;
  fortunes.trainSize = 2318983 / 128;  // 90% of 2,576,674 bytes (bookworm's fortunes), in 128-byte windows
  fortunes.testSize = 257674 / 128;
  fortunes.format = SampleFormat::TokenIds;
  fortunes.storedBytesPerSample = 129;
  fortunes.vocabulary = 256;
  fortunes.loadable = true;  // through the language-model loop (core/train/lm_trainer), not loadDataset
  fortunes.source = "Debian package fortunes (/usr/share/games/fortunes)";
  c.push_back(fortunes);

  return c;
}

}  // namespace

const std::vector<DatasetInfo>& datasetCatalog() {
  static const std::vector<DatasetInfo> catalog = makeCatalog();
  return catalog;
}

const DatasetInfo& datasetInfo(const std::string& id) {
  for (const auto& d : datasetCatalog())
    if (d.id == id) return d;
  std::string known;
  for (const auto& d : datasetCatalog()) known += (known.empty() ? "" : ", ") + d.id;
  throw util::Error("unknown dataset '" + id + "' (known: " + known + ")");
}

}  // namespace core::data
