// accellab-cli models / datasets: what the engine knows, one line each (text) or JSON.
// (train and bench live in engine_train.cpp and engine_bench.cpp.)
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/engine_options.h"
#include "core/data/dataset_info.h"
#include "core/data/dataset_loader.h"
#include "core/data/image_folder.h"
#include "core/nn/model_file.h"
#include "core/nn/graph_model_file.h"
#include "core/nn/onnx_model.h"
#include "core/nn/transformer_spec.h"
#include "core/nn/zoo.h"
#include "core/util/numbers.h"
#include "core/sim/llm_workload.h"
#include "core/sim/sim_report_json.h"
#include "core/util/error.h"
#include "core/util/json.h"

namespace app::cli {

using core::util::Json;

const char* const kModelsUsage =
    "Usage: accellab-cli models [--model ID|PATH] [--format text|json|layer-graph]\n"
    "\n"
    "Lists the model zoo: id, parameters at the model's usual input, and a one-line description;\n"
    "then the transformers (resources/models and your models folder, ~/.local/share/accellab/models).\n"
    "--model: describe one model: an id, an AccelLab model file, a Hugging Face config.json or an\n"
    "ONNX graph (model.onnx: simulated from its nodes) (its params, active params of a mixture of\n"
    "experts, forward FLOPs per sample). --format layer-graph --model ID prints a CNN or RNN's model\n"
    "file (the layers it is built from), to start your own model from.\n"
    "JSON: an array of {id, description, reference, default_dataset, input_shape, params,\n"
    "forward_gflop_per_image}; each transformer is its model file's keys plus params,\n"
    "trainable_params, forward_flops_per_sample and, for a mixture of experts, active_params,\n"
    "active_params_convention, active_params_without_input_embedding. Reference models are\n"
    "large architectures for the simulator (trainable here, but slow on a CPU).\n";

const char* const kDatasetsUsage =
    "Usage: accellab-cli datasets [--format text|json] [--data-dir DIR]\n"
    "\n"
    "Lists the datasets: id, train/test sizes, sample shape and a one-line description.\n"
    "JSON: an array of {id, description, input_shape, classes, train_size, test_size, format,\n"
    "stored_bytes_per_sample, vocabulary, trainable, available, data_dir, source}. \"available\"\n"
    "says whether the files are in data_dir (the default folder) right now.\n"
    "\n"
    "Your own data:\n"
    "  --dataset image-folder --data-dir DIR   trains an image model on DIR/<class>/*.png|*.jpg|*.jpeg\n"
    "  --model char-gpt --data-dir PATH        trains the language model on any text file, or a folder\n"
    "                                          of extension-less text files (as fortunes is)\n"
    "With --data-dir DIR, lists the image folder DIR as image-folder reads it (classes, images per\n"
    "class, the 80/20 split, mean file size) without decoding an image; JSON: the dataset's object\n"
    "with a \"class_names\" array and \"images_per_class\".\n";

namespace {

const char* formatName(core::data::SampleFormat f) {
  switch (f) {
    case core::data::SampleFormat::RawPixels: return "raw-pixels";
    case core::data::SampleFormat::Jpeg: return "jpeg";
    case core::data::SampleFormat::TokenIds: return "token-ids";
    case core::data::SampleFormat::Synthetic: return "synthetic";
  }
  return "raw-pixels";
}

Json shapeJson(const core::nn::Shape& s) {
  Json a = Json::array();
  a.push(s.c);
  a.push(s.h);
  a.push(s.w);
  return a;
}

std::string shapeText(const core::nn::Shape& s) {
  return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
}

// The model's stats at its usual input (the zoo's default shape, its dataset's classes).
core::nn::NetworkStats usualStats(const core::nn::ModelInfo& m) {
  core::nn::ModelInput in;
  in.shape = {1, 1, 1};
  in.classes = 10;
  if (!m.defaultDataset.empty()) {
    const auto& d = core::data::datasetInfo(m.defaultDataset);
    in.classes = d.classes;
    in.vocabulary = d.vocabulary;
  }
  return core::nn::modelStats(m.id, in);
}

Json transformerJson(const core::nn::TransformerSpec& t) {
  Json j = core::nn::transformerToModelJson(t);
  j.set("description", t.name);
  j.set("transformer", core::nn::transformerKindName(t.kind));
  j.set("default_dataset", t.kind == core::nn::TransformerKind::Vision ? "imagenet" : "text");
  core::sim::modelSizeToJson(j, core::sim::modelSizeOf(t, 0));  // as every report states it
  return j;
}

std::string transformerLine(const core::nn::TransformerSpec& t) {
  std::ostringstream o;
  o << std::left << std::setw(14) << t.id << std::right << std::setw(17) << withThousands(t.params()) << " params  "
    << t.name << " (" << core::nn::transformerKindName(t.kind) << ", " << t.layers << " layers, d " << t.dModel << ", "
    << t.tokensPerSample(0) << " tokens";
  if (t.moe()) o << "; " << t.experts << " experts, " << t.expertsPerToken << " a token: " << withThousands(t.activeParams()) << " active";
  o << ")\n";
  return o.str();
}

std::string transformerDetail(const core::nn::TransformerSpec& t) {
  std::ostringstream o;
  o << "  attention: " << t.heads << " heads, " << t.kvHeads << " KV heads";
  if (t.mla()) o << ", latent (kv rank " << t.kvLoraRank << ", q rank " << t.qLoraRank << ")";
  if (t.slidingWindow > 0) o << ", window " << t.slidingWindow << " on " << std::lround(t.slidingLayerShare * 100) << "% of layers";
  o << "\n  feed-forward: " << core::nn::ffnKindName(t.ffnKind) << " " << t.ffn;
  if (t.moe()) {
    o << "; " << t.moeLayers() << " layers with " << t.experts << " experts of " << t.routedFfn();
    if (t.sharedExperts > 0) o << " + " << t.sharedExperts << " shared of " << t.sharedFfn();
  }
  o << "\n  forward FLOPs per sample at " << t.tokensPerSample(0) << " tokens: " << t.forwardFlopsPerSample(0)
    << "\n  source: " << t.source << " (" << t.sourceDate << ")\n";
  return o.str();
}

}  // namespace

namespace {

// `models --model file.onnx` or a layer-graph file: the model as the simulator costs it.
int describeModelFile(const std::string& path, const std::string& format, std::ostream& out) {
  const core::nn::ModelInfo* info = nullptr;
  try {
    info = core::nn::isOnnxPath(path) ? &core::nn::importOnnxModel(path) : &core::nn::importGraphModel(path);
  } catch (const core::util::Error& e) {
    throw core::util::Error(std::string("--model: ") + e.what());
  }
  const core::nn::NetworkStats s = core::nn::modelStats(info->id, core::nn::ModelInput{});
  if (format == "json") {
    Json j = Json::object();
    j.set("id", info->id);
    j.set("description", info->description);
    j.set("source", path);
    j.set("default_dataset", info->defaultDataset);
    j.set("input_shape", shapeJson(s.input));
    j.set("params", static_cast<long long>(s.totalParams() + s.totalNonTrainableParams()));
    j.set("trainable_params", static_cast<long long>(s.totalParams()));
    j.set("forward_flops_per_sample", s.productFlops());
    j.set("layers", static_cast<long long>(s.layers.size()));
    out << j.dump(2) << "\n";
    return 0;
  }
  out << std::left << std::setw(14) << info->id << std::right << std::setw(13)
      << withThousands(s.totalParams() + s.totalNonTrainableParams()) << " params  " << info->description << "\n"
      << "  input            " << shapeText(s.input) << " per sample\n"
      << "  trainable params " << withThousands(s.totalParams()) << "\n"
      << "  forward FLOPs    " << core::util::readableNumber(s.productFlops())
      << " per sample (2 x the multiply-adds of its convolutions and matrix products; "
      << core::util::readableNumber(s.forwardFlops()) << " with norms, activations and pooling)\n"
      << "  layers costed    " << s.layers.size() << "\n";
  return 0;
}

}  // namespace

int cmdModels(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args);
  a.allowOnly({"format", "help", "model"});
  const std::string format = formatOption(a, {"text", "json", "layer-graph"});
  if (format == "layer-graph") {  // a CNN or RNN's model file, to start your own from
    if (!a.has("model")) throw core::util::Error("--format layer-graph: name the model (--model lenet5)");
    try {
      out << core::nn::graphModelText(core::nn::graphModelFileOf(a.str("model", "")));
    } catch (const core::util::Error& e) {
      throw core::util::Error(std::string("--model: ") + e.what());
    }
    return 0;
  }
  if (a.has("model") && (core::nn::isOnnxPath(a.str("model", "")) || core::nn::isGraphModelPath(a.str("model", ""))))
    return describeModelFile(a.str("model", ""), format, out);
  if (a.has("model")) {  // one model described: a shipped id, a model file or a config.json
    const core::nn::TransformerSpec* t = nullptr;
    try {
      t = &core::nn::resolveTransformer(a.str("model", ""));
    } catch (const core::util::Error& e) {
      throw core::util::Error(std::string("--model: ") + e.what());
    }
    if (format == "json") out << transformerJson(*t).dump(2) << "\n";
    else out << transformerLine(*t) << transformerDetail(*t);
    return 0;
  }
  Json list = Json::array();
  std::ostringstream text;
  for (const auto& m : core::nn::modelCatalog()) {
    const core::nn::NetworkStats s = usualStats(m);
    if (format == "json") {
      Json j = Json::object();
      j.set("id", m.id);
      j.set("description", m.description);
      j.set("reference", m.reference);
      j.set("default_dataset", m.defaultDataset);
      j.set("input_shape", shapeJson(s.input));
      j.set("params", static_cast<long long>(s.totalParams()));
      j.set("forward_gflop_per_image", s.productFlops() / 1e9);
      list.push(std::move(j));
    } else {
      text << std::left << std::setw(14) << m.id << std::right << std::setw(13) << withThousands(s.totalParams())
           << " params  " << m.description << (m.reference ? " [reference]" : "") << "\n";
    }
  }
  // The transformers: simulated at LLM scale from their dimensions (accellab-cli simulate).
  if (format == "text") text << "\nTransformers (simulate them at LLM scale: --seq-len, --parallel, --finetune):\n";
  for (const auto& t : core::nn::referenceTransformers()) {
    bool inZoo = false;  // char-gpt trains here too: listed once, above
    for (const auto& m : core::nn::modelCatalog()) inZoo = inZoo || m.id == t.id;
    if (inZoo) continue;
    if (format == "json") list.push(transformerJson(t));
    else text << transformerLine(t);
  }
  for (const auto& e : core::nn::transformerLoadErrors()) err << "accellab-cli models: left out: " << e << "\n";
  if (format == "json") out << list.dump(2) << "\n";
  else out << text.str();
  return 0;
}

namespace {

// `datasets --data-dir DIR`: the image folder as `train --dataset image-folder` would split it.
int describeImageFolder(const std::string& dir, const std::string& format, std::ostream& out) {
  core::data::ImageFolderListing listing;
  try {
    listing = core::data::listImageFolder(dir);
  } catch (const core::util::Error& e) {
    throw core::util::Error(std::string("--data-dir: ") + e.what());
  }
  const core::data::DatasetInfo d = core::data::imageFolderInfo(listing, {3, 224, 224});
  if (format == "json") {
    Json j = Json::object();
    j.set("id", d.id);
    j.set("data_dir", dir);
    j.set("classes", d.classes);
    j.set("train_size", static_cast<long long>(d.trainSize));
    j.set("test_size", static_cast<long long>(d.testSize));
    j.set("stored_bytes_per_sample", d.storedBytesPerSample);
    Json names = Json::array(), counts = Json::array();
    for (std::size_t c = 0; c < listing.classes.size(); ++c) {
      names.push(listing.classes[c]);
      counts.push(static_cast<long long>(listing.files[c].size()));
    }
    j.set("class_names", std::move(names));
    j.set("images_per_class", std::move(counts));
    out << j.dump(2) << "\n";
    return 0;
  }
  out << "image-folder " << dir << ": " << d.classes << " classes, " << withThousands(listing.fileCount)
      << " images (" << withThousands(d.trainSize) << " training / " << withThousands(d.testSize)
      << " test, 80/20 per class), " << withThousands(static_cast<long long>(d.storedBytesPerSample))
      << " bytes per file on average\n";
  for (std::size_t c = 0; c < listing.classes.size(); ++c)
    out << std::right << std::setw(6) << c << "  " << std::left << std::setw(24) << listing.classes[c] << std::right
        << std::setw(10) << withThousands(static_cast<long long>(listing.files[c].size())) << " images\n";
  out << "Images are resized to the model's input (lenet5 1x28x28, resnet20 3x32x32, resnet50 3x224x224).\n";
  return 0;
}

}  // namespace

int cmdDatasets(const CommandArgs& args, std::ostream& out, std::ostream&) {
  const Args a(args);
  a.allowOnly({"format", "data-dir", "help"});
  const std::string format = formatOption(a, {"text", "json"});
  if (a.has("data-dir")) {
    const std::string dir = a.str("data-dir", "");
    if (dir.empty()) throw core::util::Error("--data-dir: empty folder name");
    return describeImageFolder(dir, format, out);
  }
  Json list = Json::array();
  std::ostringstream text;
  for (const auto& d : core::data::datasetCatalog()) {
    const bool available = core::data::datasetAvailable(d.id);
    if (format == "json") {
      Json j = Json::object();
      j.set("id", d.id);
      j.set("description", d.description);
      j.set("input_shape", shapeJson(d.inputShape));
      j.set("classes", d.classes);
      j.set("train_size", static_cast<long long>(d.trainSize));
      j.set("test_size", static_cast<long long>(d.testSize));
      j.set("format", formatName(d.format));
      j.set("stored_bytes_per_sample", d.storedBytesPerSample);
      j.set("vocabulary", d.vocabulary);
      j.set("trainable", d.loadable);
      j.set("available", available);
      j.set("data_dir", core::data::defaultDataDir(d.id));
      j.set("source", d.source);
      list.push(std::move(j));
    } else {
      // Your image folder is counted from the folder (datasets --data-dir DIR), not the catalog.
      const std::string sizes = d.takesModelInput && d.trainSize == 0
                                    ? std::string("your folder")
                                    : withThousands(d.trainSize) + "/" + withThousands(d.testSize);
      text << std::left << std::setw(20) << d.id << std::setw(20) << sizes << std::setw(12)
           << (d.takesModelInput ? std::string("the model's") : shapeText(d.inputShape))
           << d.description
           << (d.loadable && !available && !core::data::defaultDataDir(d.id).empty()
                   ? " [files not found in " + core::data::defaultDataDir(d.id) + "]"
                   : "")
           << "\n";
    }
  }
  if (format == "json") {
    out << list.dump(2) << "\n";
    return 0;
  }
  out << text.str()
      << "\nYour own data: --dataset image-folder --data-dir DIR trains an image model on DIR/<class>/*.png|*.jpg\n"
         "(check a folder with `accellab-cli datasets --data-dir DIR`); --model char-gpt --data-dir PATH trains the\n"
         "language model on any text file, or a folder of extension-less text files as fortunes is.\n";
  return 0;
}

}  // namespace app::cli
