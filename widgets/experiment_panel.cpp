#include "widgets/experiment_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QIntValidator>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>
#include <QToolButton>
#include <algorithm>
#include <limits>

#include "core/experiment/limits.h"
#include "core/nn/gemm.h"

namespace widgets {
namespace {

using core::experiment::OptimizerKind;
using core::util::Precision;

using core::experiment::kMaxBatch;
constexpr int kMaxLimit = static_cast<int>(core::experiment::kMaxSamples);
// Training images the "precise" batch-norm statistics are re-estimated from (~10^4, as in
// Wu & Johnson 2021).
constexpr qlonglong kPreciseBnSamples = core::experiment::kPreciseBnSamples;

void selectData(QComboBox* box, const QVariant& value, const QString& textIfMissing) {
  int i = box->findData(value);
  if (i < 0) {
    box->addItem(textIfMissing, value);
    i = box->count() - 1;
  }
  box->setCurrentIndex(i);
}

}  // namespace

std::vector<int> ExperimentPanel::batchChoices() {
  std::vector<int> out;
  for (int b = 1; b <= 4096; b *= 2) out.push_back(b);
  return out;
}

ExperimentPanel::ExperimentPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("ExperimentPanel");
  // Two label/field pairs per row where the fields are short, so the Hardware dock below
  // keeps its height.
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(6, 4, 6, 4);
  grid->setVerticalSpacing(4);
  grid->setColumnStretch(1, 1);
  grid->setColumnStretch(3, 1);
  auto place = [this, grid](int row, int column, const QString& label, QWidget* field, int span = 1) {
    auto* l = new QLabel(label, this);
    l->setBuddy(field);
    grid->addWidget(l, row, column);
    grid->addWidget(field, row, column + 1, 1, span);
  };

  m_dataset = new QComboBox(this);
  m_dataset->setObjectName("dataset");
  m_dataset->setToolTip(tr("The dataset to train on (or to simulate)"));
  place(0, 0, tr("D&ataset:"), m_dataset, 3);

  m_dataDir = new QLineEdit(this);
  m_dataDir->setObjectName("dataDir");
  m_dataDir->setPlaceholderText(tr("default location"));
  m_dataDir->setToolTip(tr("Folder holding the dataset's files; empty = the dataset's default location"));
  m_dataDir->setClearButtonEnabled(true);
  m_browse = new QToolButton(this);
  m_browse->setText(tr("…"));
  m_browse->setToolTip(tr("Choose the data folder"));
  auto* dirRow = new QHBoxLayout;
  dirRow->setContentsMargins(0, 0, 0, 0);
  dirRow->addWidget(m_dataDir, 1);
  dirRow->addWidget(m_browse);
  auto* dirLabel = new QLabel(tr("Data folder:"), this);
  dirLabel->setBuddy(m_dataDir);
  grid->addWidget(dirLabel, 1, 0);
  grid->addLayout(dirRow, 1, 1, 1, 3);

  m_limit = new QSpinBox(this);
  m_limit->setObjectName("limit");
  m_limit->setRange(0, kMaxLimit);
  m_limit->setSingleStep(1000);
  m_limit->setSpecialValueText(tr("all images"));
  m_limit->setSuffix(tr(" images"));
  m_limit->setGroupSeparatorShown(true);
  m_limit->setToolTip(tr("Train on a shuffled subset of this many images (quick demos) and test on a share of the "
                         "test set in the same proportion; \"all\" = the whole set"));
  place(2, 0, tr("S&ubset:"), m_limit);

  m_datasetNote = new QLabel(this);
  m_datasetNote->setWordWrap(false);
  m_datasetNote->setObjectName("datasetNote");
  grid->addWidget(m_datasetNote, 2, 2, 1, 2);

  m_model = new QComboBox(this);
  m_model->setObjectName("model");
  // Transformers and LLMs are simulated at their own scale in the LLM planner (they do not fit
  // a CPU's training run): the button sits where a user looks for a model.
  auto* llm = new QToolButton(this);
  llm->setObjectName("llmPlannerButton");
  llm->setText(tr("LLMs…"));
  llm->setToolTip(tr("Transformers and LLMs (BERT, GPT, Llama, Mistral, Mixtral, ViT): simulate pre-training or LoRA "
                     "with sequence length, parallel plans and tokens to train in the LLM planner (Ctrl+Shift+L)"));
  connect(llm, &QToolButton::clicked, this, &ExperimentPanel::llmPlannerRequested);
  // An ONNX graph's own weights: fine-tune the trained model instead of starting fresh.
  m_fileWeights = new QCheckBox(tr("its weights"), this);
  m_fileWeights->setObjectName("fileWeights");
  m_fileWeights->setToolTip(tr("Start from the weights the model's file holds (fine-tuning a trained model exported in training mode) instead of "
                               "a fresh initialisation from the seed"));
  m_fileWeights->hide();
  auto* modelRow = new QHBoxLayout;
  modelRow->setContentsMargins(0, 0, 0, 0);
  modelRow->addWidget(m_model, 1);
  modelRow->addWidget(m_fileWeights);
  modelRow->addWidget(llm);
  auto* modelLabel = new QLabel(tr("&Model:"), this);
  modelLabel->setBuddy(m_model);
  grid->addWidget(modelLabel, 3, 0);
  grid->addLayout(modelRow, 3, 1, 1, 3);

  m_batch = new QComboBox(this);
  m_batch->setObjectName("batch");
  m_batch->setEditable(true);
  m_batch->setInsertPolicy(QComboBox::NoInsert);
  for (int b : batchChoices()) m_batch->addItem(QString::number(b));
  m_batch->setValidator(new QIntValidator(1, kMaxBatch, m_batch));
  m_batch->setToolTip(tr("Global batch size: pick a power of two or type any size"));
  place(4, 0, tr("&Batch:"), m_batch);

  m_epochs = new QSpinBox(this);
  m_epochs->setObjectName("epochs");
  m_epochs->setRange(1, core::experiment::kMaxEpochs);
  place(4, 2, tr("E&pochs:"), m_epochs);

  m_optimizer = new QComboBox(this);
  m_optimizer->setObjectName("optimizer");
  m_optimizer->addItem(tr("Adam"), static_cast<int>(OptimizerKind::Adam));
  m_optimizer->addItem(tr("SGD"), static_cast<int>(OptimizerKind::SGD));
  m_optimizer->setItemData(1, tr("SGD with momentum 0.9"), Qt::ToolTipRole);
  place(5, 0, tr("Optimi&zer:"), m_optimizer);

  m_learningRate = new QLineEdit(this);
  m_learningRate->setObjectName("learningRate");
  auto* lrValidator = new QDoubleValidator(1e-9, 100.0, 9, m_learningRate);
  lrValidator->setNotation(QDoubleValidator::ScientificNotation);
  lrValidator->setLocale(QLocale::c());
  m_learningRate->setValidator(lrValidator);
  m_learningRate->setToolTip(tr("Learning rate, e.g. 0.001 or 1e-3"));
  m_learningRate->setAccessibleName(tr("Learning rate"));
  place(5, 2, tr("&LR:"), m_learningRate);

  m_precision = new QComboBox(this);
  m_precision->setObjectName("precision");
  // Each precision says what its GEMMs run on this CPU (chosen at run time): bf16 in AMX tiles
  // or AVX512_BF16 dot products where the CPU has them, else emulated on fp32 units.
  for (Precision p : {Precision::FP32, Precision::FP16, Precision::BF16}) {
    m_precision->addItem(QString::fromLatin1(core::util::precisionName(p)), static_cast<int>(p));
    m_precision->setItemData(m_precision->count() - 1,
                             tr("On this CPU: %1").arg(QString::fromStdString(core::nn::gemmPathText(p))), Qt::ToolTipRole);
  }
  m_precision->setToolTip(tr("fp16/bf16: mixed precision (16-bit GEMM inputs, fp32 accumulation and master weights).\n"
                             "On this CPU, bf16: %1.")
                              .arg(QString::fromStdString(core::nn::gemmPathText(Precision::BF16))));
  place(6, 0, tr("Prec&ision:"), m_precision);

  m_seed = new QSpinBox(this);
  m_seed->setObjectName("seed");
  m_seed->setRange(0, std::numeric_limits<int>::max());
  m_seed->setToolTip(tr("Same seed and thread count: the same run, bit for bit"));
  place(6, 2, tr("See&d:"), m_seed);

  m_threads = new QSpinBox(this);
  m_threads->setObjectName("threads");
  m_threads->setRange(0, std::max(1, QThread::idealThreadCount()));
  m_threads->setSpecialValueText(tr("all cores"));
  place(7, 0, tr("&Threads:"), m_threads);

  m_bnStats = new QComboBox(this);
  m_bnStats->setObjectName("bnStats");
  m_bnStats->addItem(tr("moving avg."), qlonglong{0});
  m_bnStats->addItem(tr("precise"), kPreciseBnSamples);
  m_bnStats->setToolTip(tr("Batch-norm statistics for the test set. Moving average: Keras' and PyTorch's (the "
                           "published experiments); with fewer than %L2 steps per epoch it has not settled, so "
                           "the run re-estimates them instead and says so. Precise: re-estimated after each "
                           "epoch from %L1 training images with dropout off (a few seconds more per epoch).")
                            .arg(kPreciseBnSamples)
                            .arg(core::experiment::kMovingAverageMinSteps));
  place(7, 2, tr("B&N stats:"), m_bnStats);

  m_execution = new QComboBox(this);
  m_execution->setObjectName("execution");
  m_execution->addItem(tr("Train here, simulate devices"), true);
  m_execution->addItem(tr("Simulate only"), false);
  m_execution->setToolTip(tr("Train here: the model learns on this machine (measured) while the chosen devices "
                             "are simulated step for step. Simulate only: no training, instant."));
  place(8, 0, tr("E&xecution:"), m_execution, 3);

  m_stack = new QComboBox(this);
  m_stack->setObjectName("stack");
  m_stack->setToolTip(tr("The software the simulated devices run: the same silicon runs up to 2x apart under "
                         "different stacks"));
  place(9, 0, tr("S&oftware:"), m_stack);
  m_compareStack = new QComboBox(this);
  m_compareStack->setObjectName("compareStack");
  m_compareStack->setToolTip(tr("Also simulate every chosen device under this stack: one series per device and "
                                "stack (the same silicon, other software)"));
  place(9, 2, tr("&Compare:"), m_compareStack);
  m_stackNote = new QLabel(this);
  m_stackNote->setObjectName("stackNote");
  m_stackNote->setWordWrap(true);
  m_stackNote->setForegroundRole(QPalette::PlaceholderText);
  // Room for two wrapped lines, so the dock never clips the description (a word-wrapped label
  // has no height of its own in a grid until it is laid out).
  m_stackNote->setMinimumHeight(2 * m_stackNote->fontMetrics().lineSpacing() + 2);
  grid->addWidget(m_stackNote, 10, 0, 1, 4);
  setStacks({});
  grid->setRowStretch(11, 1);

  connect(m_browse, &QToolButton::clicked, this, &ExperimentPanel::chooseDataFolder);
  connect(m_dataset, &QComboBox::currentIndexChanged, this, [this] {
    updateDatasetDependent();
    Q_EMIT configChanged();
  });
  connect(m_dataDir, &QLineEdit::editingFinished, this, [this] {
    // isModified: typed by the user since the panel last showed a set-up (setText clears it).
    if (m_dataDir->isModified() && !m_dataDir->text().trimmed().isEmpty()) Q_EMIT dataFolderChosen(m_dataDir->text().trimmed());
    m_dataDir->setModified(false);
    Q_EMIT configChanged();
  });
  for (QSpinBox* s : {m_limit, m_epochs, m_seed, m_threads})
    connect(s, &QSpinBox::valueChanged, this, &ExperimentPanel::configChanged);
  for (QComboBox* c : {m_model, m_optimizer, m_precision, m_execution, m_bnStats, m_stack, m_compareStack})
    connect(c, &QComboBox::currentIndexChanged, this, &ExperimentPanel::configChanged);
  connect(m_stack, &QComboBox::currentIndexChanged, this, &ExperimentPanel::updateStackNote);
  connect(m_model, &QComboBox::currentIndexChanged, this, &ExperimentPanel::updateModelDependent);
  connect(m_fileWeights, &QCheckBox::toggled, this, &ExperimentPanel::configChanged);
  connect(m_batch, &QComboBox::currentTextChanged, this, [this] {
    if (m_batch->lineEdit()->hasAcceptableInput()) Q_EMIT configChanged();
  });
  connect(m_learningRate, &QLineEdit::textChanged, this, [this] {
    if (m_learningRate->hasAcceptableInput()) Q_EMIT configChanged();
  });

  showTrain(core::experiment::TrainConfig{});
  m_shown = readShown();
}

void ExperimentPanel::setCatalogs(const std::vector<core::data::DatasetInfo>& datasets,
                                  const std::vector<core::nn::ModelInfo>& models) {
  const core::experiment::TrainConfig keep = readWidgets();
  const bool train = m_execution->currentData().toBool();
  {
    const QSignalBlocker b1(m_dataset), b2(m_model);
    m_datasets = datasets;
    m_dataset->clear();
    for (const auto& d : datasets) {
      const QString id = QString::fromStdString(d.id);
      m_dataset->addItem(d.loadable ? id : tr("%1 (simulation only)").arg(id), id);
      m_dataset->setItemData(m_dataset->count() - 1, QString::fromStdString(d.description), Qt::ToolTipRole);
    }
    m_model->clear();
    for (const auto& m : models) {
      const QString id = QString::fromStdString(m.id);
      m_model->addItem(m.reference ? tr("%1 (large)").arg(id) : id, id);
      m_model->setItemData(m_model->count() - 1, QString::fromStdString(m.description), Qt::ToolTipRole);
    }
  }
  showTrain(keep);
  setTrainHere(train);
  m_shown = readShown();
}

void ExperimentPanel::showExperiment(const core::experiment::Experiment& e) {
  {
    const QSignalBlocker b1(m_execution), b2(m_stack), b3(m_compareStack);
    showTrain(e.train);
    setTrainHere(e.trainHere);
    setStackId(QString::fromStdString(e.stackId));
    setCompareStackId(QString::fromStdString(e.compareStackId));
  }
  m_shown = readShown();
}

ExperimentPanel::Shown ExperimentPanel::readShown() const {
  return {readWidgets(), trainHere(), stackId(), compareStackId()};
}

void ExperimentPanel::applyTo(core::experiment::Experiment& e) const {
  const Shown now = readShown();
  auto& t = e.train;
  const auto& was = m_shown.train;
  const auto& is = now.train;
  if (is.datasetId != was.datasetId) t.datasetId = is.datasetId;
  if (is.dataDir != was.dataDir) t.dataDir = is.dataDir;
  if (is.limit != was.limit || is.datasetId != was.datasetId) {
    t.limit = is.limit;
    t.testLimit = is.testLimit;
  }
  if (is.modelId != was.modelId) t.modelId = is.modelId;
  if (is.batch != was.batch) t.batch = is.batch;
  if (is.epochs != was.epochs) t.epochs = is.epochs;
  if (is.optimizer != was.optimizer) t.optimizer = is.optimizer;
  if (is.learningRate != was.learningRate) t.learningRate = is.learningRate;
  if (is.precision != was.precision) t.precision = is.precision;
  if (is.seed != was.seed) t.seed = is.seed;
  if (is.threads != was.threads) t.threads = is.threads;
  if (is.bnStatsSamples != was.bnStatsSamples) t.bnStatsSamples = is.bnStatsSamples;
  if (is.fileWeights != was.fileWeights || !core::nn::hasFileWeights(t.modelId)) t.fileWeights = is.fileWeights;
  if (now.trainHere != m_shown.trainHere) e.trainHere = now.trainHere;
  if (!datasetLoadable()) e.trainHere = false;  // the engine cannot load it: simulate only
  if (now.stackId != m_shown.stackId) e.stackId = now.stackId.toStdString();
  if (now.compareStackId != m_shown.compareStackId) e.compareStackId = now.compareStackId.toStdString();
}

core::experiment::TrainConfig ExperimentPanel::readWidgets() const {
  core::experiment::TrainConfig c;
  c.datasetId = m_dataset->currentData().toString().toStdString();
  c.dataDir = m_dataDir->text().trimmed().toStdString();
  c.limit = m_limit->value();
  c.testLimit = core::experiment::proportionalTestLimit(c.datasetId, c.limit);
  c.modelId = m_model->currentData().toString().toStdString();
  c.batch = batchValue();
  c.epochs = m_epochs->value();
  c.optimizer = static_cast<OptimizerKind>(m_optimizer->currentData().toInt());
  c.learningRate = learningRateValue();
  c.precision = static_cast<Precision>(m_precision->currentData().toInt());
  c.seed = static_cast<std::uint64_t>(m_seed->value());
  c.threads = m_threads->value();
  c.bnStatsSamples = m_bnStats->currentData().toLongLong();
  c.fileWeights = m_fileWeights->isChecked() && core::nn::hasFileWeights(c.modelId);
  return c;
}

void ExperimentPanel::showTrain(const core::experiment::TrainConfig& c) {
  {
    const QSignalBlocker blockers[] = {QSignalBlocker(m_dataset), QSignalBlocker(m_dataDir), QSignalBlocker(m_limit),
                                       QSignalBlocker(m_model),   QSignalBlocker(m_batch),   QSignalBlocker(m_epochs),
                                       QSignalBlocker(m_optimizer), QSignalBlocker(m_learningRate),
                                       QSignalBlocker(m_precision), QSignalBlocker(m_seed), QSignalBlocker(m_threads),
                                       QSignalBlocker(m_bnStats), QSignalBlocker(m_fileWeights)};
    const QString dataset = QString::fromStdString(c.datasetId);
    selectData(m_dataset, dataset, dataset);
    m_dataDir->setText(QString::fromStdString(c.dataDir));
    updateDatasetDependent();
    m_limit->setValue(static_cast<int>(std::clamp<std::int64_t>(c.limit, 0, m_limit->maximum())));
    const QString model = QString::fromStdString(c.modelId);
    selectData(m_model, model, model);
    m_batch->setEditText(QString::number(c.batch));
    m_lastBatch = c.batch;
    m_epochs->setValue(c.epochs);
    selectData(m_optimizer, static_cast<int>(c.optimizer), tr("optimizer %1").arg(static_cast<int>(c.optimizer)));
    m_learningRate->setText(QLocale::c().toString(c.learningRate, 'g', 6));
    m_lastLearningRate = c.learningRate;
    selectData(m_precision, static_cast<int>(c.precision), QString::fromLatin1(core::util::precisionName(c.precision)));
    m_seed->setValue(static_cast<int>(std::min<std::uint64_t>(c.seed, static_cast<std::uint64_t>(m_seed->maximum()))));
    m_threads->setValue(std::min(c.threads, m_threads->maximum()));
    if (c.bnStatsSamples > 0 && m_bnStats->findData(static_cast<qlonglong>(c.bnStatsSamples)) < 0)
      m_bnStats->addItem(tr("precise (%L1)").arg(c.bnStatsSamples), static_cast<qlonglong>(c.bnStatsSamples));
    m_bnStats->setCurrentIndex(std::max(0, m_bnStats->findData(static_cast<qlonglong>(c.bnStatsSamples))));
    m_fileWeights->setChecked(c.fileWeights);
    updateModelDependent();
  }
}

void ExperimentPanel::updateModelDependent() {
  m_fileWeights->setHidden(!core::nn::hasFileWeights(m_model->currentData().toString().toStdString()));
}

void ExperimentPanel::setStacks(const QVector<StackItem>& stacks) {
  const QString keep = stackId(), keepCompare = compareStackId();
  {
    const QSignalBlocker b1(m_stack), b2(m_compareStack);
    m_stack->clear();
    m_compareStack->clear();
    m_stack->addItem(tr("modern default per device"), QString());
    m_stack->setItemData(0, tr("Each device runs today's usual software for its kind (stock PyTorch on CPUs and "
                               "GPUs, tuned XLA on TPUs)"),
                         Qt::ToolTipRole);
    m_compareStack->addItem(tr("no second stack"), QString());
    for (const auto& s : stacks) {
      m_stack->addItem(s.id, s.id);
      m_stack->setItemData(m_stack->count() - 1, s.name + "\n" + s.description, Qt::ToolTipRole);
      m_compareStack->addItem(s.id, s.id);
      m_compareStack->setItemData(m_compareStack->count() - 1, s.name + "\n" + s.description, Qt::ToolTipRole);
    }
  }
  m_stackItems = stacks;
  setStackId(keep);
  setCompareStackId(keepCompare);
  updateStackNote();
}

QString ExperimentPanel::stackId() const { return m_stack ? m_stack->currentData().toString() : QString(); }

void ExperimentPanel::setStackId(const QString& id) {
  selectData(m_stack, id, id);
  updateStackNote();
}

QString ExperimentPanel::compareStackId() const {
  return m_compareStack ? m_compareStack->currentData().toString() : QString();
}

void ExperimentPanel::setCompareStackId(const QString& id) { selectData(m_compareStack, id, id); }

void ExperimentPanel::updateStackNote() {
  const QString id = stackId();
  QString text = m_stack->itemData(m_stack->currentIndex(), Qt::ToolTipRole).toString();
  for (const auto& s : m_stackItems)
    if (s.id == id) text = s.description;
  m_stackNote->setText(text);
  m_stackNote->setToolTip(text);
}

bool ExperimentPanel::trainHere() const { return m_execution->currentData().toBool() && datasetLoadable(); }

void ExperimentPanel::setTrainHere(bool train) { m_execution->setCurrentIndex(train ? 0 : 1); }

bool ExperimentPanel::datasetLoadable() const {
  const std::string id = m_dataset->currentData().toString().toStdString();
  for (const auto& d : m_datasets)
    if (d.id == id) return d.loadable;
  return false;
}

void ExperimentPanel::updateDatasetDependent() {
  const std::string id = m_dataset->currentData().toString().toStdString();
  const core::data::DatasetInfo* info = nullptr;
  for (const auto& d : m_datasets)
    if (d.id == id) info = &d;
  const bool loadable = info && info->loadable;
  m_limit->setMaximum(info && info->trainSize > 0 ? static_cast<int>(std::min<std::int64_t>(info->trainSize, kMaxLimit))
                                                  : kMaxLimit);
  m_dataDir->setEnabled(loadable);
  m_browse->setEnabled(loadable);
  // Only the "Train here" entry depends on the dataset.
  if (auto* model = qobject_cast<QStandardItemModel*>(m_execution->model())) {
    if (QStandardItem* item = model->item(0)) item->setEnabled(loadable);
  }
  // Text is counted in 128-byte windows (a language model's sequences), images in images.
  const bool text = info && info->format == core::data::SampleFormat::TokenIds;
  m_limit->setSuffix(text ? tr(" sequences") : tr(" images"));
  m_limit->setSpecialValueText(text ? tr("all sequences") : tr("all images"));
  if (!info) {
    m_datasetNote->setText(tr("Unknown dataset"));
  } else {
    const QString size = QLocale().toString(static_cast<qlonglong>(info->trainSize));
    const QString source = QString::fromStdString(info->source);
    // Your image folder is counted from the folder (the data folder field), not the catalog.
    const bool yourFolder = info->takesModelInput && info->trainSize == 0;
    m_datasetNote->setText(yourFolder  ? tr("in your folder")
                           : loadable ? tr("of %1").arg(size)
                                      : tr("of %1 · simulation only").arg(size));
    m_dataDir->setPlaceholderText(yourFolder ? tr("required: a folder with one sub-folder of images per class")
                                             : tr("default location"));
    m_datasetNote->setToolTip(loadable ? source
                                       : tr("Known by its description only (sizes, shapes, classes): it can be "
                                            "simulated but not trained on here."));
  }
}

void ExperimentPanel::chooseDataFolder() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Data folder"), m_dataDir->text());
  if (dir.isEmpty()) return;
  m_dataDir->setText(dir);
  Q_EMIT dataFolderChosen(dir);
  Q_EMIT configChanged();
}

int ExperimentPanel::batchValue() const {
  bool ok = false;
  const int v = m_batch->currentText().toInt(&ok);
  if (ok && v >= 1 && v <= kMaxBatch) m_lastBatch = v;
  return m_lastBatch;
}

double ExperimentPanel::learningRateValue() const {
  bool ok = false;
  const double v = QLocale::c().toDouble(m_learningRate->text(), &ok);
  if (ok && m_learningRate->hasAcceptableInput()) m_lastLearningRate = v;
  return m_lastLearningRate;
}

}  // namespace widgets
