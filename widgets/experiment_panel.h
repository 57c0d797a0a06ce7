#pragma once
// The Experiment dock: what to train and how, and under which software. Plain input widgets
// over the fields of a core::experiment::Experiment; the app fills the catalogs, shows its
// experiment here and overlays the user's edits onto it.
// GUI thread only; knows nothing about training or simulation.
#include <QWidget>
#include <vector>

#include "core/data/dataset_info.h"
#include "core/nn/zoo.h"
#include "core/experiment/experiment.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

namespace widgets {

class ExperimentPanel : public QWidget {
  Q_OBJECT
public:
  explicit ExperimentPanel(QWidget* parent = nullptr);

  void setCatalogs(const std::vector<core::data::DatasetInfo>& datasets,
                   const std::vector<core::nn::ModelInfo>& models);

  // Shows the fields of `experiment` this panel has (what to train, execution, software);
  // ids not in the catalogs are added to their list so nothing is lost.
  void showExperiment(const core::experiment::Experiment& experiment);
  // Overlays onto `experiment` the fields the user changed since showExperiment. Everything
  // else is left as it is: settings this panel has no widget for (momentum, Nesterov, weight
  // decay, schedule) and values a widget cannot hold (a seed above its range).
  void applyTo(core::experiment::Experiment& experiment) const;

  // The dataset chosen can be loaded by the engine (else the experiment simulates only).
  bool datasetLoadable() const;

  // The software stacks offered (id, name, one-line description). The Software choice ""
  // means each device's modern default; Compare with "" means no second stack.
  struct StackItem {
    QString id, name, description;
  };
  void setStacks(const QVector<StackItem>& stacks);

  // Batch sizes offered in the batch list (powers of two); free entry is accepted too.
  static std::vector<int> batchChoices();

Q_SIGNALS:
  void configChanged();  // the user edited a field
  void llmPlannerRequested();  // the user asked for the transformers' (LLM) planner
  // The user typed or browsed to a data folder themselves (not one a preset or the settings
  // showed): a folder they chose, which a preset may then point into without asking.
  void dataFolderChosen(const QString& dir);

private:
  // What the widgets hold, as a config on TrainConfig's defaults (the learning rate and batch
  // fall back to the last valid value while the field holds a half-typed number).
  core::experiment::TrainConfig readWidgets() const;
  void showTrain(const core::experiment::TrainConfig& config);
  bool trainHere() const;
  void setTrainHere(bool train);
  QString stackId() const;
  void setStackId(const QString& id);
  QString compareStackId() const;
  void setCompareStackId(const QString& id);
  // What showExperiment put in the widgets, as read back: applyTo writes only what differs.
  struct Shown {
    core::experiment::TrainConfig train;
    bool trainHere = true;
    QString stackId, compareStackId;
  };
  Shown readShown() const;
  void chooseDataFolder();
  void updateDatasetDependent();
  void updateStackNote();
  void updateModelDependent();
  int batchValue() const;
  double learningRateValue() const;

  std::vector<core::data::DatasetInfo> m_datasets;
  QComboBox* m_dataset = nullptr;
  QLineEdit* m_dataDir = nullptr;
  QToolButton* m_browse = nullptr;
  QSpinBox* m_limit = nullptr;
  QComboBox* m_model = nullptr;
  QCheckBox* m_fileWeights = nullptr;  // shown for a model whose file holds weights
  QComboBox* m_batch = nullptr;
  QSpinBox* m_epochs = nullptr;
  QComboBox* m_optimizer = nullptr;
  QLineEdit* m_learningRate = nullptr;
  QComboBox* m_precision = nullptr;
  QSpinBox* m_seed = nullptr;
  QSpinBox* m_threads = nullptr;
  QComboBox* m_bnStats = nullptr;
  QComboBox* m_execution = nullptr;
  QComboBox* m_stack = nullptr;
  QComboBox* m_compareStack = nullptr;
  QLabel* m_stackNote = nullptr;
  QVector<StackItem> m_stackItems;
  QLabel* m_datasetNote = nullptr;
  Shown m_shown;
  mutable double m_lastLearningRate = 1e-3;
  mutable int m_lastBatch = 128;
};

}  // namespace widgets
