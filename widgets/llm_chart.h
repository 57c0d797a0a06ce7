#pragma once
// The LLM planner's charts: ChartFrames that draw one study's simulated outcomes, one
// category per hardware scenario (throughput, cost, memory) or one line per scenario
// (scaling). They follow the theme, hover and legend rules of every chart and export through
// the same exporter; their data rows name the scenario in the "run" column (a study has no
// runs: each scenario is one simulated set-up). They compute nothing: the planner window
// simulates and hands them the answers. GUI thread only.
#include <functional>
#include <vector>

#include "core/sim/llm_study.h"
#include "widgets/chart_frame.h"

namespace widgets {

// What the planner's charts show: the study as shown (its references are the published marks
// still valid), each scenario's outcome and its scaling curve.
struct LlmChartData {
  core::sim::LlmStudy study;
  std::vector<core::sim::LlmOutcome> outcomes;
  std::vector<std::vector<core::sim::ScalingPoint>> scaling;
};

class LlmChart : public ChartFrame {
  Q_OBJECT
public:
  LlmChart(const QString& chartId, const QString& title, QWidget* parent = nullptr);

  // Shows these answers (redrawn at once).
  void setData(const LlmChartData& data);
  // The frame's description, then the workload and every scenario.
  QString exportDescription() const override;

protected:
  const LlmChartData& data() const { return m_data; }
  int scenarioCount() const { return static_cast<int>(m_data.outcomes.size()); }
  QString scenarioLabel(int i) const;
  // A one-point series of scenario `i` (category charts: x is the scenario, drawn at plotX = i).
  Series scenarioSeries(int i, const QString& name, const QString& label, const QString& yUnit,
                        double y, const QString& note = {}) const;
  // Why scenario `i` has no figure ("out of memory", "cannot run: …"), or empty.
  QString missingNote(int i) const;
  // The published marks of the study on this chart, valued by `valueOf` (0 = skip).
  QVector<Series> publishedSeries(const QString& yUnit,
                                  const std::function<double(const core::sim::LlmReference&)>& valueOf) const;

  // Drawing helpers for category charts ----------------------------------------------
  // The scenarios as the key axis' categories.
  void scenarioAxis();
  // One bar per scenario for the series named `name` among `all`, one legend entry.
  QCPBars* addBars(const QVector<Series>& all, const QString& name, const QColor& color);
  // Whiskers of each scenario's error band on `bars`, from v / (1 + p) to v (1 + p); scenarios
  // without a band get none. One legend entry says what they are.
  void addBandWhiskers(QCPBars* bars);
  // Scenario `i`'s error band (not known: none).
  const core::sim::ErrorBand& band(int i) const;
  // The top of scenario `i`'s band over a value v: v (1 + p), v itself without a band (where a
  // label over the bar and its whisker sits).
  double bandTop(int i, double v) const;
  // Text over a bar (its value), in the theme's text colour.
  void addBarLabel(double x, double y, const QString& text, const QColor& color = {});
  // The categories with half a slot of margin; values from zero with room above for labels.
  void fitScenarios(double headroom);
  QString emptyText() const override;
  // The scenario labels fit the new width (a count on its own line when narrow): redrawn.
  void resizeEvent(QResizeEvent* event) override;

private:
  LlmChartData m_data;
};

}  // namespace widgets
