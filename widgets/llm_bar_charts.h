#pragma once
// The LLM planner's category charts, one bar (or stack) per hardware scenario: training
// throughput with the published marks, $ per million tokens with the time and cost to the
// study's tokens, and memory per chip against its capacity.
#include "widgets/llm_chart.h"

namespace widgets {

class LlmThroughputChart : public LlmChart {
  Q_OBJECT
public:
  explicit LlmThroughputChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

protected:
  void rebuild() override;
  void adjustFit() override { fitScenarios(1.3); }
};

class LlmCostChart : public LlmChart {
  Q_OBJECT
public:
  explicit LlmCostChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

protected:
  void rebuild() override;
  void adjustFit() override { fitScenarios(1.35); }
};

class LlmMemoryChart : public LlmChart {
  Q_OBJECT
public:
  explicit LlmMemoryChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

protected:
  void rebuild() override;
  void adjustFit() override { fitScenarios(1.2); }
};

}  // namespace widgets
