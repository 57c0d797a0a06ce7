#include "widgets/llm_bar_charts.h"

#include <qcustomplot.h>

#include <cmath>
#include <limits>

#include "core/sim/sim_report.h"
#include "core/util/units.h"
#include "widgets/run_data.h"
#include "widgets/palette.h"

namespace widgets {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kGiB = core::util::kBytesPerGib;

}  // namespace

// --- throughput ---------------------------------------------------------------------------

LlmThroughputChart::LlmThroughputChart(QWidget* parent)
    : LlmChart(QStringLiteral("llm-throughput"), tr("Training throughput (simulated)"), parent) {
  setExplanation(tr("Tokens per second of the whole system for each scenario, simulated from the model's layers, "
                    "the device file and the software stack, with its model FLOPs utilisation (MFU). Stars are "
                    "published measurements of the same set-up."));
}

QVector<Series> LlmThroughputChart::series() const {
  QVector<Series> out;
  const QString label = tr("simulated tokens/s");
  for (int i = 0; i < scenarioCount(); ++i) {
    const QString note = missingNote(i);
    const auto& r = data().outcomes[static_cast<std::size_t>(i)].report;
    out << scenarioSeries(i, QStringLiteral("tokens_per_second"), label, QStringLiteral("tokens/s"),
                          note.isEmpty() ? r->llm->tokensPerSecond : kNaN, note);
  }
  // A published figure in samples/s or MFU is drawn in tokens/s beside the bar.
  out += publishedSeries(QStringLiteral("tokens/s"), [this](const core::sim::LlmReference& ref) {
    const auto& r = data().outcomes[static_cast<std::size_t>(ref.scenario)].report;
    if (ref.metric == "samples_per_second") return r ? ref.value * r->llm->seqLen : 0.0;
    if (ref.metric == "mfu") return r && r->utilization > 0 ? r->llm->tokensPerSecond * ref.value / r->utilization : 0.0;
    return ref.value;
  });
  return out;
}

void LlmThroughputChart::rebuild() {
  scenarioAxis();
  const QVector<Series> all = series();
  addBandWhiskers(addBars(all, QStringLiteral("tokens_per_second"), okabeIto()[4]));
  for (int i = 0; i < scenarioCount(); ++i) {
    const auto& r = data().outcomes[static_cast<std::size_t>(i)].report;
    if (!r || !r->fitsInMemory) continue;
    // Over the whisker's top, so the label never sits on it.
    const QString pm = QString::fromStdString(band(i).percent());
    addBarLabel(i, bandTop(i, r->llm->tokensPerSecond),
                formatValue(r->llm->tokensPerSecond) + (pm.isEmpty() ? QString() : " " + pm) + "\nMFU " +
                    QString::number(100 * r->utilization, 'f', 0) + "%");
  }
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  drawReferences(all, mainRect()->axis(QCPAxis::atBottom), y);
  y->setLabel(tr("tokens per second, whole system"));
}

// --- cost ---------------------------------------------------------------------------------

LlmCostChart::LlmCostChart(QWidget* parent)
    : LlmChart(QStringLiteral("llm-cost"), tr("Cost per million tokens (simulated)"), parent) {
  setExplanation(tr("What a million training tokens cost on each scenario at the device's on-demand price (or the "
                    "price typed in its row), and the time and cost to train the study's tokens."));
}

QVector<Series> LlmCostChart::series() const {
  QVector<Series> out;
  const QString label = tr("simulated $ per million tokens (on-demand)");
  for (int i = 0; i < scenarioCount(); ++i) {
    QString note = missingNote(i);
    const auto& r = data().outcomes[static_cast<std::size_t>(i)].report;
    if (note.isEmpty() && !r->priceKnown) note = QString::fromStdString(core::sim::noPriceText(r->priceDate));
    out << scenarioSeries(i, QStringLiteral("usd_per_million_tokens"), label, QStringLiteral("USD"),
                          note.isEmpty() ? r->llm->usdPerMillionTokens : kNaN, note);
  }
  return out;
}

void LlmCostChart::rebuild() {
  scenarioAxis();
  addBandWhiskers(addBars(series(), QStringLiteral("usd_per_million_tokens"), okabeIto()[0]));
  const double tokens = data().study.trainTokens;
  for (int i = 0; i < scenarioCount(); ++i) {
    const auto& r = data().outcomes[static_cast<std::size_t>(i)].report;
    if (!r || !r->fitsInMemory) continue;
    const QString toTokens = tr("%1 tokens: %2").arg(formatValue(tokens), formatSeconds(r->llm->timeToTokensSeconds));
    if (r->priceKnown)
      addBarLabel(i, bandTop(i, r->llm->usdPerMillionTokens), formatMoney(r->llm->usdPerMillionTokens) + "\n" + toTokens +
                                                 ", " + formatMoney(r->llm->usdToTokens));
    else
      addBarLabel(i, 0, tr("no price known") + "\n" + toTokens, colors().warning);
  }
  mainRect()->axis(QCPAxis::atLeft)->setLabel(tr("USD per million tokens"));
}

// --- memory -------------------------------------------------------------------------------

LlmMemoryChart::LlmMemoryChart(QWidget* parent)
    : LlmChart(QStringLiteral("llm-memory"), tr("Memory per chip (simulated)"), parent) {
  setExplanation(tr("What one chip holds with the plan's sharding: weights, gradients, optimizer state, and "
                    "activations with the runtime's reserve, against the chip's capacity (the cross)."));
}

QVector<Series> LlmMemoryChart::series() const {
  QVector<Series> out;
  for (int i = 0; i < scenarioCount(); ++i) {
    const auto& r = data().outcomes[static_cast<std::size_t>(i)].report;
    const QString note = r ? QString() : missingNote(i);
    auto add = [&](const char* name, const QString& label, double bytes) {
      out << scenarioSeries(i, QString::fromLatin1(name), label, QStringLiteral("GiB"), r ? bytes / kGiB : kNaN, note);
    };
    add("weights", tr("weights"), r ? r->llm->memory.weightBytes : 0);
    add("gradients", tr("gradients"), r ? r->llm->memory.gradientBytes : 0);
    add("optimizer_state", tr("optimizer state"), r ? r->llm->memory.optimizerBytes : 0);
    add("activations_reserve", tr("activations + reserve"), r ? r->llm->memory.activationBytes + r->llm->memory.reserveBytes : 0);
    add("capacity", tr("capacity per chip (OOM line)"), r ? r->memoryCapacityBytes : 0);
  }
  return out;
}

void LlmMemoryChart::rebuild() {
  scenarioAxis();
  const QVector<Series> all = series();
  const auto& pal = okabeIto();
  QCPBars* below = nullptr;
  const std::pair<const char*, QColor> parts[] = {
      {"weights", pal[4]}, {"gradients", pal[1]}, {"optimizer_state", pal[2]}, {"activations_reserve", pal[5]}};
  for (const auto& [name, color] : parts) {
    QCPBars* bars = addBars(all, QString::fromLatin1(name), color);
    if (below) bars->moveAbove(below);
    below = bars;
  }
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  auto* capacity = plot()->addGraph(x, y);
  const QColor warning = readable(colors().warning);
  capacity->setLineStyle(QCPGraph::lsNone);
  capacity->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssPlus, QPen(warning, pen(3)), Qt::NoBrush, 26 * presentationScale()));
  for (const Series& s : all) {
    if (s.name != "capacity") continue;
    capacity->setName(s.label);
    if (std::isfinite(s.y.value(0, kNaN))) capacity->addData(s.plotX.value(0), s.y.value(0));
  }
  registerPlottable(capacity, QStringLiteral("capacity"), {}, QStringLiteral("GiB"));
  for (int i = 0; i < scenarioCount(); ++i) {
    const auto& r = data().outcomes[static_cast<std::size_t>(i)].report;
    if (r && !r->fitsInMemory) addBarLabel(i, r->llm->memory.total() / kGiB, tr("out of memory"), colors().warning);
  }
  y->setLabel(tr("GiB per chip, with the plan's sharding"));
}

}  // namespace widgets
