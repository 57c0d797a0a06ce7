#pragma once
// The LLM planner: one transformer workload (model, sequence length, batch, precision, LoRA
// rank, tokens to train) and hardware scenarios side by side (device, count up to pods, stack,
// pre-train or LoRA), and the simulator's answers in four charts (llm_bar_charts.h,
// llm_scaling_chart.h: tokens/s with the published marks, $ per million tokens, memory per
// chip against its capacity, scaling from 1 to 1,024 devices) and a table (plan, MFU, why).
// Every figure here is simulated and says so. The panel edits an LlmStudy and shows what it
// is given; it computes nothing itself. GUI thread only.
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <vector>

#include "core/sim/llm_study.h"
#include "widgets/chart_theme.h"

class QComboBox;
class QSpinBox;
class QDoubleSpinBox;
class QTableWidget;
class QTabWidget;
class QLabel;

namespace widgets {

class ChartFrame;
class LlmChart;

class LlmPlannerPanel : public QWidget {
  Q_OBJECT
public:
  struct ModelItem {
    QString id, name;
    bool vision = false;
    int defaultSeqLen = 0;
  };
  struct DeviceItem {
    QString id, name;
  };

  explicit LlmPlannerPanel(QWidget* parent = nullptr);

  void setCatalogs(const QVector<ModelItem>& models, const QVector<DeviceItem>& devices, const QStringList& stacks);
  const QVector<DeviceItem>& devices() const { return m_devices; }
  const QStringList& stacks() const { return m_stacks; }
  // Shows `study` in the editors (no signal).
  void setStudy(const core::sim::LlmStudy& study);
  core::sim::LlmStudy study() const;
  // The answers for the shown study: one outcome per scenario and its scaling curve.
  void showResults(const std::vector<core::sim::LlmOutcome>& outcomes,
                   const std::vector<std::vector<core::sim::ScalingPoint>>& scaling);

  // The chart on the shown tab, and all four (throughput, cost, memory, scaling): their
  // chartId() names their files ("llm-throughput", ...).
  ChartFrame* currentChart() const;
  QList<ChartFrame*> charts() const;
  void setTheme(ChartTheme theme);
  QTableWidget* resultsTable() const { return m_results; }
  // The scenario of the results table's current row (its index in study().scenarios), or -1.
  int selectedScenario() const;

Q_SIGNALS:
  void studyEdited();

private:
  QWidget* createWorkload();
  QWidget* createScenarios();
  QWidget* createCharts();
  void addScenarioRow(const core::sim::LlmScenario& s);
  void emitEdited();
  void fillTable();
  void showWhy(int row);  // the row's whole explanation under the results table

  QVector<ModelItem> m_models;
  QVector<DeviceItem> m_devices;
  QStringList m_stacks;
  QComboBox* m_model = nullptr;
  QSpinBox* m_seqLen = nullptr;
  QSpinBox* m_batch = nullptr;
  QComboBox* m_precision = nullptr;
  QSpinBox* m_loraRank = nullptr;
  QDoubleSpinBox* m_tokens = nullptr;  // billions
  QDoubleSpinBox* m_deadline = nullptr;  // days; 0 = none
  QDoubleSpinBox* m_budget = nullptr;    // USD; 0 = none
  QComboBox* m_scalingMode = nullptr;    // the scaling chart: strong (0) or weak (1)
  QTableWidget* m_scenarios = nullptr;
  QTabWidget* m_tabs = nullptr;
  QList<LlmChart*> m_charts;
  QTableWidget* m_results = nullptr;
  QLabel* m_note = nullptr;
  QLabel* m_why = nullptr;  // the selected scenario's explanation
  bool m_updating = false;
  core::sim::LlmStudy m_shown;  // references and titles the editors do not show
  std::vector<core::sim::LlmOutcome> m_outcomes;
};

}  // namespace widgets
