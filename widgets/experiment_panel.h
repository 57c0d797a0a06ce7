#pragma once
// The Experiment dock: what to train and how. Plain input widgets over a
// core::train::TrainConfig; the app fills the catalogs and reads config() on Run.
// GUI thread only; knows nothing about training or simulation.
#include <QWidget>
#include <vector>

#include "core/data/dataset_info.h"
#include "core/nn/zoo.h"
#include "core/train/trainer.h"

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

  // The settings as a trainer config. The learning rate falls back to the last valid value
  // while the field holds a half-typed number.
  core::train::TrainConfig config() const;
  // Shows `config`; ids not in the catalogs are added to their list so nothing is lost.
  void setConfig(const core::train::TrainConfig& config);

  // Execution: train on this machine (host measured, devices simulated) or simulate only.
  // Datasets the engine cannot load force simulation only.
  bool trainHere() const;
  void setTrainHere(bool train);
  bool datasetLoadable() const;

  // The software stacks offered (id, name, one-line description). The Software choice ""
  // means each device's modern default; Compare with "" means no second stack.
  struct StackItem {
    QString id, name, description;
  };
  void setStacks(const QVector<StackItem>& stacks);
  QString stackId() const;
  void setStackId(const QString& id);
  QString compareStackId() const;
  void setCompareStackId(const QString& id);

  // Batch sizes offered in the batch list (powers of two); free entry is accepted too.
  static std::vector<int> batchChoices();

Q_SIGNALS:
  void configChanged();

private:
  void chooseDataFolder();
  void updateDatasetDependent();
  void updateStackNote();
  int batchValue() const;
  double learningRateValue() const;

  std::vector<core::data::DatasetInfo> m_datasets;
  QComboBox* m_dataset = nullptr;
  QLineEdit* m_dataDir = nullptr;
  QToolButton* m_browse = nullptr;
  QSpinBox* m_limit = nullptr;
  QComboBox* m_model = nullptr;
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
  mutable double m_lastLearningRate = 1e-3;
  mutable int m_lastBatch = 128;
};

}  // namespace widgets
