#pragma once
// The LLM planner's scaling chart: tokens per second against the chips (1 to 1,024 devices),
// one line per hardware scenario on log-log axes, strong or weak scaling as the study says;
// a per-chip efficiency above 100% is shown only with its cause.
#include "widgets/llm_chart.h"

namespace widgets {

class LlmScalingChart : public LlmChart {
  Q_OBJECT
public:
  explicit LlmScalingChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

protected:
  void rebuild() override;
  void adjustFit() override;

private:
  // What the curves hold the batch to, and why any point is above 100% (one line each).
  QStringList superLinearCauses() const;
};

}  // namespace widgets
