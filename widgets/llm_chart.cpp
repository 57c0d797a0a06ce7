#include "widgets/llm_chart.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/sim/sim_report.h"
#include "widgets/run_data.h"

namespace widgets {
namespace {

// A published mark stands in the right part of its scenario's bar, so that its star and label
// leave the bar's value label (centred over the bar) readable.
constexpr double kMarkOffset = 0.2;

}  // namespace

LlmChart::LlmChart(const QString& chartId, const QString& title, QWidget* parent)
    : ChartFrame(chartId, title, parent) {
  setMaximisable(false);   // the planner shows one chart at a time in its tabs
}

void LlmChart::setData(const LlmChartData& data) {
  m_data = data;
  refreshNow();
}

QString LlmChart::exportDescription() const {
  const auto& s = m_data.study;
  QStringList lines{ChartFrame::exportDescription()};
  lines << tr("LLM planner, simulated: model %1, sequence length %2, global batch %3, %4, %5 tokens")
               .arg(QString::fromStdString(s.modelId))
               .arg(s.seqLen > 0 ? QString::number(s.seqLen) : tr("the model's own"))
               .arg(s.batch)
               .arg(QString::fromLatin1(core::util::precisionName(s.precision)))
               .arg(formatValue(s.trainTokens));
  for (int i = 0; i < scenarioCount(); ++i) lines << tr("scenario %1: %2").arg(i + 1).arg(scenarioLabel(i));
  return lines.join('\n');
}

QString LlmChart::scenarioLabel(int i) const {
  return QString::fromStdString(m_data.outcomes[static_cast<std::size_t>(i)].scenario.label());
}

Series LlmChart::scenarioSeries(int i, const QString& name, const QString& label, const QString& yUnit, double y,
                                const QString& note) const {
  Series s;
  s.chartId = chartId();
  s.runName = scenarioLabel(i);
  s.deviceId = QString::fromStdString(m_data.outcomes[static_cast<std::size_t>(i)].scenario.deviceId);
  s.name = name;
  s.label = label;
  s.yUnit = yUnit;
  s.source = SeriesSource::Simulated;
  s.x = {std::numeric_limits<double>::quiet_NaN()};   // the scenario names the category
  s.plotX = {static_cast<double>(i)};
  s.y = {y};
  s.note = note;
  return s;
}

QString LlmChart::missingNote(int i) const {
  const auto& o = m_data.outcomes[static_cast<std::size_t>(i)];
  if (!o.report) return tr("cannot run: %1").arg(QString::fromStdString(o.error));
  if (!o.report->fitsInMemory) return tr("out of memory");
  return {};
}

QVector<Series> LlmChart::publishedSeries(const QString& yUnit,
                                          const std::function<double(const core::sim::LlmReference&)>& valueOf) const {
  QVector<Series> out;
  for (const auto& ref : m_data.study.references) {
    if (ref.scenario < 0 || ref.scenario >= scenarioCount()) continue;
    const double v = valueOf(ref);
    if (!(v > 0)) continue;
    Series s = scenarioSeries(ref.scenario, QStringLiteral("published"), QString::fromStdString(ref.label), yUnit, v);
    s.source = SeriesSource::Reference;
    s.plotX = {ref.scenario + kMarkOffset};
    out.push_back(s);
  }
  return out;
}

void LlmChart::resizeEvent(QResizeEvent* event) {
  ChartFrame::resizeEvent(event);
  if (scenarioCount() > 0) scheduleRefresh();
}

void LlmChart::scenarioAxis() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  // "8x h100, LoRA" on two lines; where a "1x tpu-v5e-8" line is wider than a bar's share of
  // the axis (eight scenarios at 1280 px), the count goes on a line of its own, so labels
  // never run into each other.
  QStringList labels;
  for (int i = 0; i < scenarioCount(); ++i) labels << scenarioLabel(i).replace(", ", "\n");
  const QFontMetrics metrics(x->tickLabelFont());
  const double share = std::max(1, width() - 80) / std::max(1.0, static_cast<double>(scenarioCount()));
  const bool narrow = std::any_of(labels.begin(), labels.end(), [&](const QString& l) {
    return metrics.horizontalAdvance(l.section('\n', 0, 0)) > 0.9 * share;
  });
  for (int i = 0; i < labels.size(); ++i)
    ticker->addTick(i, narrow ? QString(labels[i]).replace(QRegularExpression("^(\\d+x) "), "\\1\n") : labels[i]);
  x->setTicker(ticker);
  // Names, not numbers: "beautiful powers" would typeset tpu-v5e-8 as tpu-v5·10⁻⁸.
  x->setNumberFormat("g");
  x->setScaleType(QCPAxis::stLinear);
  x->grid()->setVisible(false);
}

QCPBars* LlmChart::addBars(const QVector<Series>& all, const QString& name, const QColor& color) {
  auto* bars = new QCPBars(mainRect()->axis(QCPAxis::atBottom), mainRect()->axis(QCPAxis::atLeft));
  const QColor c = readable(color);
  bars->setWidth(0.6);
  bars->setPen(QPen(c.darker(115), pen(1.0)));
  bars->setBrush(c);
  QString yUnit;
  for (const Series& s : all) {
    if (s.name != name || s.source == SeriesSource::Reference) continue;
    bars->setName(s.label);
    yUnit = s.yUnit;
    if (std::isfinite(s.y.value(0, NAN))) bars->addData(s.plotX.value(0), s.y.value(0));
  }
  registerPlottable(bars, name, {}, yUnit);
  return bars;
}

void LlmChart::addBandWhiskers(QCPBars* bars) {
  // A held-out error p reads both ways: the truth lies between v / (1 + p) and v (1 + p), so the
  // whisker is multiplicative (never below zero, however wide the band).
  QVector<double> below, above;
  bool any = false;
  for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
    const int i = std::clamp(static_cast<int>(std::lround(it->key)), 0, scenarioCount() - 1);
    const double p = band(i).pct / 100.0;
    below << (band(i).known() ? it->value * p / (1 + p) : qQNaN());  // NaN: no whisker at all
    above << (band(i).known() ? bandTop(i, it->value) - it->value : qQNaN());
    any = any || band(i).known();
  }
  if (!any) return;
  auto* whiskers = new QCPErrorBars(bars->keyAxis(), bars->valueAxis());
  whiskers->setDataPlottable(bars);
  whiskers->setData(below, above);
  whiskers->setPen(QPen(textColor(), pen(1.2)));
  whiskers->setWhiskerWidth(10 * presentationScale());
  whiskers->setSymbolGap(0);  // one line through the bar's top
  whiskers->setName(tr("error band (held-out error of the stack on the device)"));
  registerPlottable(whiskers, QStringLiteral("error_band"), {}, {});
}

const core::sim::ErrorBand& LlmChart::band(int i) const { return m_data.outcomes[static_cast<std::size_t>(i)].band; }

double LlmChart::bandTop(int i, double v) const { return band(i).known() ? v * (1 + band(i).pct / 100.0) : v; }

void LlmChart::addBarLabel(double x, double y, const QString& text, const QColor& color) {
  auto* label = new QCPItemText(plot());
  label->setClipAxisRect(mainRect());
  label->position->setAxes(mainRect()->axis(QCPAxis::atBottom), mainRect()->axis(QCPAxis::atLeft));
  label->position->setCoords(x, y);
  label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
  label->setPadding(QMargins(0, 0, 0, static_cast<int>(3 * presentationScale())));
  label->setFont(chartFont(0.9 * presentationScale()));
  label->setColor(color.isValid() ? readable(color) : textColor());
  label->setText(text);
}

void LlmChart::fitScenarios(double headroom) {
  mainRect()->axis(QCPAxis::atBottom)->setRange(-0.6, std::max(0, scenarioCount() - 1) + 0.6);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  y->setRangeLower(0);
  if (y->range().upper <= 0) y->setRangeUpper(1);
  y->setRangeUpper(y->range().upper * headroom);
}

QString LlmChart::emptyText() const {
  return tr("No scenarios to show: add a hardware scenario on the left.");
}

}  // namespace widgets
