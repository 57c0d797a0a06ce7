#include "widgets/sweep_chart.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QMap>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/experiment/train_config.h"
#include "core/hw/device_spec.h"
#include "widgets/palette.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString sweepKey(const core::sim::SimConfig& c) {
  return QStringLiteral("%1|%2|%3").arg(QString::fromStdString(c.deviceId)).arg(c.count).arg(c.vcpus);
}

QString sweepLabel(const core::sim::SimConfig& c) {
  QString name = c.deviceId == core::hw::kHostDeviceId ? SweepChart::tr("this machine")
                                      : QString::fromStdString(c.deviceId);
  if (c.count > 1) name = QStringLiteral("%1× %2").arg(c.count).arg(name);
  if (c.vcpus > 0) name += SweepChart::tr(" (%1 vCPUs)").arg(c.vcpus);
  return name;
}

}  // namespace

SweepChart::SweepChart(QWidget* parent)
    : ChartBase("sweep", tr("Batch-size sweep (simulated)"), parent) {
  m_metricBox = new QComboBox(this);
  m_metricBox->addItem(tr("images per second"));
  m_metricBox->addItem(tr("USD per million images"));
  // Narrow enough for two charts side by side at 1280x800 (the full text is in the list).
  m_metricBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_metricBox->setMinimumContentsLength(12);
  controls()->addWidget(m_metricBox);
  connect(m_metricBox, &QComboBox::currentIndexChanged, this, [this](int i) {
    setMetric(i == 1 ? Metric::UsdPerMillionImages : Metric::ImagesPerSecond);
  });
  enableLogYToggle();
  setExplanation(
      tr("What each chosen device would do at every batch size, from the simulator alone "
         "(instant, nothing trains). Small batches leave big accelerators idle; TPUs need "
         "large batches to pull ahead, so curves can cross. ✕ marks a batch that does not "
         "fit in the device's memory."));
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  x->setLabel(tr("global batch size"));
  x->setScaleType(QCPAxis::stLogarithmic);
  QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
  ticker->setLogBase(2);
  ticker->setSubTickCount(0);
  x->setTicker(ticker);
  x->setNumberFormat("f");
  x->setNumberPrecision(0);
  mainRect()->axis(QCPAxis::atLeft)->setLabel(tr("images per second"));
}

void SweepChart::setReports(std::vector<core::sim::SimReport> reports,
                            std::optional<core::experiment::TrainConfig> train) {
  m_reports = std::move(reports);
  m_train = std::move(train);
  scheduleRefresh();
}

void SweepChart::setMetric(Metric metric) {
  if (m_metric == metric) return;
  m_metric = metric;
  {
    const QSignalBlocker block(m_metricBox);
    m_metricBox->setCurrentIndex(metric == Metric::UsdPerMillionImages ? 1 : 0);
  }
  mainRect()->axis(QCPAxis::atLeft)
      ->setLabel(metric == Metric::UsdPerMillionImages ? tr("USD per million images")
                                                       : tr("images per second"));
  fitToData();
  refreshNow();
}

void SweepChart::setMarkedBatch(int batch) {
  if (m_markedBatch == batch) return;
  m_markedBatch = batch;
  scheduleRefresh();
}

QVector<Series> SweepChart::series() const {
  // Group by device set-up, in first-seen order; sort each by batch.
  QStringList order;
  QMap<QString, std::vector<const core::sim::SimReport*>> groups;
  for (const auto& r : m_reports) {
    const QString key = sweepKey(r.config);
    if (!groups.contains(key)) order << key;
    groups[key].push_back(&r);
  }
  const bool cost = m_metric == Metric::UsdPerMillionImages;
  QVector<Series> out;
  for (const QString& key : order) {
    auto& list = groups[key];
    std::sort(list.begin(), list.end(),
              [](const auto* a, const auto* b) { return a->config.batch < b->config.batch; });
    const auto& cfg = list.front()->config;
    // A language model counts tokens (tokens/s, USD per million tokens).
    const bool lm = core::experiment::isLanguageModel(cfg.modelId);
    Series s;
    s.chartId = chartId();
    s.deviceId = QString::fromStdString(cfg.deviceId);
    s.name = cost ? (lm ? "usd_per_million_tokens" : "usd_per_million_images") : (lm ? "tokens_per_second" : "images_per_second");
    s.label = sweepLabel(cfg) + tr(" (simulated)");
    s.xUnit = "batch";
    s.yUnit = cost ? "USD" : (lm ? "tokens/s" : "images/s");
    s.source = SeriesSource::Simulated;
    s.color = deviceColor(s.deviceId, theme());
    s.train = m_train;
    Series oom = s;
    oom.name = "out_of_memory";
    oom.label = sweepLabel(cfg) + tr(" — out of memory");
    oom.yUnit.clear();
    oom.note = tr("out of memory");
    bool anyPrice = false;
    for (const auto* r : list) {
      if (!r->fitsInMemory) {
        oom.x.push_back(r->config.batch);
        oom.y.push_back(kNaN);
        if (m_train) oom.pointReports.push_back(*r);
        continue;
      }
      const double tokens = lm ? std::max(1, r->tokensPerSample) : 1;
      double v = r->imagesPerSecond * tokens;
      if (cost) {
        v = r->priceKnown ? r->usdPerMillionImages / tokens : kNaN;
        anyPrice = anyPrice || r->priceKnown;
      }
      s.x.push_back(r->config.batch);
      s.y.push_back(v > 0 ? v : kNaN);
      if (m_train) s.pointReports.push_back(*r);
    }
    if (cost && !anyPrice) {
      s.x.clear();
      s.y.clear();
      s.pointReports.clear();
      s.note = tr("no price");
    }
    out.push_back(s);
    if (!oom.x.isEmpty()) out.push_back(oom);
  }
  if (!cost) {
    out += referenceSeries(
        "sweep", [](const ReferenceMark& m, int) { return std::optional<double>(m.x); }, "batch",
        "images/s");
  }
  return out;
}

// The crosses are text items, which a legend cannot list: one empty graph drawn as a cross
// names them ("✕ does not fit in memory"), in the text colour (each cross has its device's).
void SweepChart::addOutOfMemoryKey(QCPAxis* x, QCPAxis* y) {
  QCPGraph* key = plot()->addGraph(x, y);
  key->setLineStyle(QCPGraph::lsNone);
  key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(textColor(), pen(2.0)), Qt::NoBrush,
                                       9 * presentationScale()));
  key->setName(tr("does not fit in memory"));
  registerPlottable(key, QStringLiteral("out_of_memory"), {}, {});
}

void SweepChart::rebuild() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  const QVector<Series> all = series();
  const ChartColors c = colors();
  QStringList notes;
  // Which device is best at each batch (fastest, or cheapest), to name crossovers.
  QMap<double, QPair<QString, double>> best;
  const bool cost = m_metric == Metric::UsdPerMillionImages;
  const bool lm = !m_reports.empty() && core::experiment::isLanguageModel(m_reports.front().config.modelId);
  y->setLabel(cost ? (lm ? tr("USD per million tokens") : tr("USD per million images"))
                   : (lm ? tr("tokens per second") : tr("images per second")));
  m_metricBox->setItemText(0, lm ? tr("tokens per second") : tr("images per second"));
  m_metricBox->setItemText(1, lm ? tr("USD per million tokens") : tr("USD per million images"));
  int oomDevices = 0;   // each device's crosses on their own row, so none hides another
  for (const Series& s : all) {
    if (s.source == SeriesSource::Reference) continue;
    if (s.name == "out_of_memory") {
      if (oomDevices == 0) addOutOfMemoryKey(x, y);
      const double row = 0.95 - 0.07 * (oomDevices++ % 8);
      QStringList batches;
      for (double b : s.x) batches << QString::number(b);
      notes << tr("%1 does not fit in memory at batch %2.")
                   .arg(s.label.section(QStringLiteral(" — "), 0, 0), batches.join(", "));
      for (double b : s.x) {
        auto* mark = new QCPItemText(plot());
        mark->setClipAxisRect(mainRect());
        mark->position->setTypeX(QCPItemPosition::ptPlotCoords);
        mark->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        mark->position->setAxes(x, y);
        mark->position->setAxisRect(mainRect());
        mark->position->setCoords(b, row);
        mark->setText(QStringLiteral("✕"));
        mark->setColor(readable(s.color));
        mark->setFont(chartFont(presentationScale() * 1.3, true));
        Series line = s;   // the crosses hide and show with their device's line
        line.name = cost ? "usd_per_million_images" : "images_per_second";
        mark->setProperty("seriesKey", seriesKey(line));
        includeInFit(x, b);
      }
      continue;
    }
    if (!s.note.isEmpty()) {
      notes << tr("%1: %2.").arg(s.label, s.note);
      continue;
    }
    addLine(s, x, y);
    for (int i = 0; i < s.x.size(); ++i) {
      const double v = s.y[i];
      if (!std::isfinite(v)) continue;
      auto it = best.find(s.x[i]);
      if (it == best.end() || (cost ? v < it->second : v > it->second))
        best[s.x[i]] = {s.label.section(" (", 0, 0), v};
    }
  }
  // Crossovers: "fastest: v100 up to batch 256, tpu-v2-8 from 512".
  QStringList spans;
  QString current;
  double from = 0;
  for (auto it = best.cbegin(); it != best.cend(); ++it) {
    if (it->first != current) {
      if (!current.isEmpty())
        spans << tr("%1 (batch %2–%3)").arg(current).arg(from).arg(std::prev(it).key());
      current = it->first;
      from = it.key();
    }
  }
  if (!current.isEmpty() && !best.isEmpty())
    spans << tr("%1 (batch %2–%3)").arg(current).arg(from).arg(best.lastKey());
  if (spans.size() > 1 || (spans.size() == 1 && all.size() > 1))
    notes.prepend((cost ? tr("Cheapest: ") : tr("Fastest: ")) + spans.join(", ") + ".");
  if (m_markedBatch > 0) {
    auto* line = new QCPItemStraightLine(plot());
    line->setClipAxisRect(mainRect());
    line->point1->setAxes(x, y);
    line->point2->setAxes(x, y);
    line->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
    line->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
    line->point1->setAxisRect(mainRect());
    line->point2->setAxisRect(mainRect());
    line->point1->setCoords(m_markedBatch, 0);
    line->point2->setCoords(m_markedBatch, 1);
    line->setPen(QPen(c.axis, pen(1.0), Qt::DashLine));
    auto* label = new QCPItemText(plot());
    label->setClipAxisRect(mainRect());
    label->position->setAxes(x, y);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setAxisRect(mainRect());
    label->position->setCoords(m_markedBatch, 0.02);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setText(tr(" this run's batch"));
    label->setColor(c.axis);
    label->setFont(chartFont(presentationScale() * 0.85));
    includeInFit(x, m_markedBatch);
  }
  drawReferences(all, x, y);
  setNotes(notes.join('\n'));
}

QString SweepChart::emptyText() const {
  return tr("No sweep yet: choose devices; every batch size is simulated at once.");
}

void SweepChart::adjustFit() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  // Whole powers of two at both ends, with a little room.
  const double lo = std::max(1.0, x->range().lower);
  const double hi = std::max(lo * 2, x->range().upper);
  x->setRange(std::exp2(std::floor(std::log2(lo * 1.36))) / 1.3,
              std::exp2(std::ceil(std::log2(hi / 1.36))) * 1.3);
  if (y->scaleType() == QCPAxis::stLinear) y->setRangeLower(0);
}

}  // namespace widgets
