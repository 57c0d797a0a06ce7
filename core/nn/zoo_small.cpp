// The small trainable models: Keras examples, LeNet-5, the Colab CNN, the CIFAR ResNet-20
// and the three Keras text examples.
#include "core/nn/zoo_builders.h"

namespace core::nn::zoo_detail {

// Keras mnist_mlp.
std::unique_ptr<Network> buildMlp(const ModelInput& in) {
  auto net = std::make_unique<Network>("mlp", in.shape, in.classes);
  net->add(std::make_unique<Flatten>());
  net->add(dense(512, Activation::ReLU));
  net->add(dropout(0.2f));
  net->add(dense(512, Activation::ReLU));
  net->add(dropout(0.2f));
  net->add(dense(in.classes, Activation::Linear));
  return net;
}

// LeNet-5 as the PyTorch peer defines it (PyTorch's default initialisation).
std::unique_ptr<Network> buildLenet5(const ModelInput& in) {
  auto net = std::make_unique<Network>("lenet5", in.shape, in.classes);
  net->add(conv(6, 5, 5, 1, Padding::explicitPad(2, 2), true, Activation::ReLU, Init::TorchDefault));
  net->add(maxPool(2, 2));
  net->add(conv(16, 5, 5, 1, Padding::valid(), true, Activation::ReLU, Init::TorchDefault));
  net->add(maxPool(2, 2));
  net->add(std::make_unique<Flatten>());
  net->add(dense(120, Activation::ReLU, Init::TorchDefault));
  net->add(dense(84, Activation::ReLU, Init::TorchDefault));
  net->add(dense(in.classes, Activation::Linear, Init::TorchDefault));
  return net;
}

// Keras mnist_cnn.
std::unique_ptr<Network> buildMnistCnn(const ModelInput& in) {
  auto net = std::make_unique<Network>("mnist-cnn", in.shape, in.classes);
  net->add(conv(32, 3, 3, 1, Padding::valid(), true, Activation::ReLU, Init::GlorotUniform));
  net->add(conv(64, 3, 3, 1, Padding::valid(), true, Activation::ReLU, Init::GlorotUniform));
  net->add(maxPool(2, 2));
  net->add(dropout(0.25f));
  net->add(std::make_unique<Flatten>());
  net->add(dense(128, Activation::ReLU));
  net->add(dropout(0.5f));
  net->add(dense(in.classes, Activation::Linear));
  return net;
}

// The Colab Fashion-MNIST CNN (published-experiments.md E3), Keras defaults.
std::unique_ptr<Network> buildColabCnn(const ModelInput& in) {
  auto net = std::make_unique<Network>("colab-cnn", in.shape, in.classes);
  for (int filters : {64, 128, 256}) {
    net->add(kerasBn());
    net->add(conv(filters, 5, 5, 1, Padding::same(), true, Activation::ELU, Init::GlorotUniform));
    net->add(maxPool(2, 2));
    net->add(dropout(0.25f));
  }
  net->add(std::make_unique<Flatten>());
  net->add(dense(256, Activation::ELU));
  net->add(dropout(0.5f));
  net->add(dense(in.classes, Activation::Linear));
  return net;
}

// Keras cifar10_cnn.
std::unique_ptr<Network> buildCifarCnn(const ModelInput& in) {
  auto net = std::make_unique<Network>("cifar-cnn", in.shape, in.classes);
  for (int filters : {32, 64}) {
    net->add(conv(filters, 3, 3, 1, Padding::same(), true, Activation::ReLU, Init::GlorotUniform));
    net->add(conv(filters, 3, 3, 1, Padding::valid(), true, Activation::ReLU, Init::GlorotUniform));
    net->add(maxPool(2, 2));
    net->add(dropout(0.25f));
  }
  net->add(std::make_unique<Flatten>());
  net->add(dense(512, Activation::ReLU));
  net->add(dropout(0.5f));
  net->add(dense(in.classes, Activation::Linear));
  return net;
}

// He et al. 2016, section 4.2: 3 stages x 3 basic blocks, 16/32/64 filters, parameter-free
// shortcuts (option A), global average pooling, dense classifier.
std::unique_ptr<Network> buildResnet20(const ModelInput& in) {
  auto net = std::make_unique<Network>("resnet20", in.shape, in.classes);
  net->add(conv(16, 3, 3, 1, Padding::explicitPad(1, 1), false, Activation::Linear, Init::HeNormal));
  net->add(torchBn());
  net->add(relu());
  int channels = 16;
  for (int stage = 0; stage < 3; ++stage) {
    const int filters = 16 << stage;
    for (int b = 0; b < 3; ++b) {
      const int stride = (stage > 0 && b == 0) ? 2 : 1;
      auto block = std::make_unique<Residual>("stage" + std::to_string(stage + 1) + "_block" + std::to_string(b + 1),
                                              Activation::ReLU);
      block->main().add(conv(filters, 3, 3, stride, Padding::explicitPad(1, 1), false, Activation::Linear, Init::HeNormal));
      block->main().add(torchBn());
      block->main().add(relu());
      block->main().add(conv(filters, 3, 3, 1, Padding::explicitPad(1, 1), false, Activation::Linear, Init::HeNormal));
      block->main().add(torchBn());
      if (stride != 1 || channels != filters) block->shortcut().add(std::make_unique<PadShortcut>(filters));
      net->add(std::move(block));
      channels = filters;
    }
  }
  net->add(std::make_unique<GlobalAvgPool>());
  net->add(dense(in.classes, Activation::Linear, Init::TorchDefault));
  return net;
}

// Keras imdb_fasttext as benchmarked (minimaxir's test_files/imdb_fasttext.py, ngram_range 2):
// the bigrams seen in the training reviews are appended to the vocabulary, so the Embedding
// has (words + bigrams) x 50 rows over 400 tokens, then average, Dense 1. The bigram count is
// an ESTIMATE (the IMDb files are not shipped here): about 1.2 M unique training bigrams over
// the 20,000-word vocabulary, i.e. 60 per word, scaled with the vocabulary asked for.
constexpr int kFasttextBigramsPerWord = 60;

std::unique_ptr<Network> buildFasttext(const ModelInput& in) {
  auto net = std::make_unique<Network>("fasttext", in.shape, in.classes);
  net->add(std::make_unique<Embedding>(in.vocabulary * (1 + kFasttextBigramsPerWord), 50));
  net->add(std::make_unique<GlobalAvgPool>(GlobalAvgPool::Over::Steps));
  net->add(dense(in.classes, Activation::Linear));
  return net;
}

// Keras imdb_bidirectional_lstm: Embedding 20000x128 over 100 tokens, BiLSTM 64, Dropout 0.5.
std::unique_ptr<Network> buildImdbBilstm(const ModelInput& in) {
  auto net = std::make_unique<Network>("imdb-bilstm", in.shape, in.classes);
  net->add(std::make_unique<Embedding>(in.vocabulary, 128));
  net->add(std::make_unique<LSTM>(64, 2, "bidirectional"));
  net->add(dropout(0.5f));
  net->add(dense(in.classes, Activation::Linear));
  return net;
}

// Keras lstm_text_generation: LSTM 128 over 40 one-hot characters, Dense vocabulary softmax.
std::unique_ptr<Network> buildLstmTextgen(const ModelInput& in) {
  auto net = std::make_unique<Network>("lstm-textgen", in.shape, in.vocabulary);
  net->add(std::make_unique<OneHot>(in.vocabulary));
  net->add(std::make_unique<LSTM>(128, 1));
  net->add(dense(in.vocabulary, Activation::Linear));
  return net;
}

}  // namespace core::nn::zoo_detail
