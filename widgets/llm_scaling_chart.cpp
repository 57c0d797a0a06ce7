#include "widgets/llm_scaling_chart.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "widgets/palette.h"

namespace widgets {
namespace {

using core::sim::Finetune;
using core::sim::ScalingPoint;

// The point of a curve furthest above 100% per-chip efficiency, if any.
const ScalingPoint* mostSuperLinear(const std::vector<ScalingPoint>& curve) {
  const ScalingPoint* most = nullptr;
  for (const auto& pt : curve)
    if (pt.fits && pt.tokensPerSecond > 0 && !pt.superLinearCause.empty() && (!most || pt.efficiency > most->efficiency))
      most = &pt;
  return most;
}

}  // namespace

LlmScalingChart::LlmScalingChart(QWidget* parent)
    : LlmChart(QStringLiteral("llm-scaling"), tr("Scaling with the chips (simulated)"), parent) {
  setExplanation(tr("Simulated tokens per second as each scenario's device count doubles from 1 to 1,024 (a TPU "
                    "board counts its chips), with the per-chip efficiency at the largest count. Strong scaling keeps "
                    "the global batch; weak scaling keeps the sequences per chip."));
}

QVector<Series> LlmScalingChart::series() const {
  QVector<Series> out;
  const auto& curves = data().scaling;
  for (int i = 0; i < scenarioCount() && i < static_cast<int>(curves.size()); ++i) {
    const core::sim::LlmScenario& sc = data().outcomes[static_cast<std::size_t>(i)].scenario;
    Series s = scenarioSeries(i, QStringLiteral("tokens_per_second"), QString(), QStringLiteral("tokens/s"), 0);
    s.x.clear();
    s.y.clear();
    s.plotX.clear();
    s.xUnit = QStringLiteral("chips");
    s.color = deviceColor(s.deviceId, theme());
    s.styleIndex = i;
    int lastEff = -1;
    for (const auto& pt : curves[static_cast<std::size_t>(i)]) {
      if (!pt.fits || pt.tokensPerSecond <= 0) continue;
      s.x << pt.chips;
      s.y << pt.tokensPerSecond;
      lastEff = static_cast<int>(std::lround(100 * pt.efficiency));
    }
    s.label = QString::fromStdString(sc.deviceId) + (sc.finetune == Finetune::Lora ? tr(", LoRA") : QString());
    if (lastEff >= 0)
      s.label += tr(" (%1% per-chip efficiency at the largest count%2)")
                     .arg(lastEff)
                     .arg(mostSuperLinear(curves[static_cast<std::size_t>(i)]) ? "*" : "");
    if (s.x.isEmpty()) s.note = tr("fits at no count");
    out << s;
  }
  return out;
}

QStringList LlmScalingChart::superLinearCauses() const {
  QStringList causes;
  const auto& curves = data().scaling;
  for (int i = 0; i < scenarioCount() && i < static_cast<int>(curves.size()); ++i) {
    const ScalingPoint* most = mostSuperLinear(curves[static_cast<std::size_t>(i)]);
    if (!most) continue;
    const auto& sc = data().outcomes[static_cast<std::size_t>(i)].scenario;
    // Two lines a cause (the plan that needs the memory, then the one more chips allow), so a
    // long plan is not cut at the plot's edge.
    causes << tr("%1: %2% per chip at %3 chips:\n     %4")
                  .arg(QString::fromStdString(sc.deviceId) + (sc.finetune == Finetune::Lora ? tr(", LoRA") : QString()))
                  .arg(std::lround(100 * most->efficiency))
                  .arg(most->chips)
                  .arg(QString::fromStdString(most->superLinearCause).replace(QStringLiteral("; "), QStringLiteral(";\n     ")));
  }
  return causes;
}

void LlmScalingChart::rebuild() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  for (QCPAxis* axis : {x, y}) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  }
  y->setNumberFormat("eb");
  y->setNumberPrecision(0);
  for (const Series& s : series()) {
    if (s.x.isEmpty()) continue;
    QCPGraph* g = plot()->addGraph(x, y);
    const QColor c = readable(s.color);
    QPen p(c, pen(2.0));
    p.setStyle(penStyleFor(s.styleIndex));
    g->setPen(p);
    g->setScatterStyle(QCPScatterStyle(static_cast<QCPScatterStyle::ScatterShape>(scatterShapeFor(s.styleIndex)),
                                       QPen(c, pen(1.5)), QBrush(colors().background), 6 * presentationScale()));
    g->setData(s.x, s.y, true);
    g->setName(s.label);
    g->setProperty("deviceId", s.deviceId);
    registerPlottable(g, QStringLiteral("%1/%2").arg(s.styleIndex).arg(s.runName), s.xUnit, s.yUnit);
  }
  const core::sim::LlmStudy& shown = data().study;
  QString caption = shown.weakScaling ? tr("Weak scaling: each scenario's sequences per chip kept as the chips grow")
                                      : tr("Strong scaling: global batch %1 at every count (counts with more chips than "
                                           "sequences left out)").arg(shown.batch);
  if (const QStringList causes = superLinearCauses(); !causes.isEmpty())
    caption += tr("\n* more than linear where more chips leave the memory for a faster plan:\n* ") + causes.join("\n* ");
  auto* text = new QCPItemText(plot());
  text->position->setType(QCPItemPosition::ptAxisRectRatio);
  text->position->setAxisRect(mainRect());
  text->position->setCoords(0.01, 0.99);
  text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  text->setTextAlignment(Qt::AlignLeft);
  text->setFont(chartFont(0.9 * presentationScale()));
  text->setColor(textColor());
  text->setText(caption);
  text->setObjectName("scaling_caption");
  x->setLabel(tr("accelerator chips (a TPU board counts its chips)"));
  y->setLabel(tr("tokens per second"));
}

void LlmScalingChart::adjustFit() {
  // Room under the curves for the caption's lines, and from one chip on.
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  x->setRange(0.8, std::max(2.0, x->range().upper));
  const QCPRange r = y->range();
  const QStringList causes = superLinearCauses();
  const double lines = causes.isEmpty() ? 0.0 : static_cast<double>(causes.join('\n').count('\n') + 1);
  if (r.lower > 0) y->setRangeLower(r.lower / std::pow(2.0, 1 + 0.7 * lines));
}

}  // namespace widgets
