#include "widgets/accuracy_chart.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/palette.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A language model's x: updates done at the end of each epoch (its sequences / the batch).
QVector<double> updatesAtEpochs(const Run& run) {
  QVector<double> out;
  std::int64_t sequences = 0;
  for (const auto& e : run.epochs) {
    sequences += e.images;
    out.push_back(std::ceil(static_cast<double>(sequences) / std::max(1, run.config.batch)));
  }
  return out;
}
}

EpochLineStyle AccuracyChart::epochLineStyle(const Series& s) {
  const bool isLoss = s.name.endsWith(QStringLiteral("loss"));
  const bool isTrain = s.name.startsWith(QStringLiteral("train_"));
  EpochLineStyle st;
  st.pen = isTrain ? Qt::DashLine : Qt::SolidLine;
  st.width = isLoss ? 1.25 : 2.0;
  // Each run its own pair of shapes: accuracy the first, loss the second.
  st.shape = ChartFrame::scatterShapeFor(2 * s.styleIndex + (isLoss ? 1 : 0));
  st.filled = !isTrain;
  return st;
}

double reachedAtSeconds(const QVector<double>& cumulativeSeconds, const QVector<double>& accuracy,
                        double target) {
  if (target <= 0) return kNaN;
  const auto n = std::min(cumulativeSeconds.size(), accuracy.size());
  for (qsizetype i = 0; i < n; ++i)
    if (accuracy[i] >= target) return cumulativeSeconds[i];
  return kNaN;
}

AccuracyChart::AccuracyChart(QWidget* parent)
    : ChartBase("accuracy", tr("Accuracy and loss"), parent) {
  m_axisBox = new QComboBox(this);
  m_axisBox->addItem(tr("against epoch"));
  m_axisBox->addItem(tr("against time per device"));
  m_axisBox->setToolTip(tr("Time to accuracy: each device's (simulated) training seconds"));
  controls()->addWidget(m_axisBox);
  m_logTimeBox = new QCheckBox(tr("Log time"), this);
  m_logTimeBox->setToolTip(tr("Logarithmic time axis: compare devices that differ 100×"));
  m_logTimeBox->setVisible(false);
  controls()->addWidget(m_logTimeBox);
  connect(m_logTimeBox, &QCheckBox::toggled, this, &AccuracyChart::setLogTime);
  connect(m_axisBox, &QComboBox::currentIndexChanged, this,
          [this](int i) { setAxis(i == 1 ? Axis::Seconds : Axis::Epoch); });
  setExplanation(
      tr("Against epoch: train and test accuracy (left axis) and loss (right axis) of the real "
         "training on this machine. Against time: the same test accuracy placed at each "
         "device's cumulative epoch time, so the curve that reaches the target line first is "
         "the device that trains fastest to that accuracy."));
  mainRect()->axis(QCPAxis::atLeft)->setLabel(tr("accuracy (%)"));
}

void AccuracyChart::setAxis(Axis axis) {
  if (m_axis == axis) return;
  m_axis = axis;
  {
    const QSignalBlocker block(m_axisBox);
    m_axisBox->setCurrentIndex(axis == Axis::Seconds ? 1 : 0);
  }
  m_logTimeBox->setVisible(axis == Axis::Seconds);
  fitToData();   // follow the data again in the new view
  refreshNow();
}

void AccuracyChart::setLogTime(bool on) {
  if (m_logTime == on) return;
  m_logTime = on;
  {
    const QSignalBlocker block(m_logTimeBox);
    m_logTimeBox->setChecked(on);
  }
  refreshNow();
  fitToData();
}

QVector<Series> AccuracyChart::series() const {
  return m_axis == Axis::Epoch ? epochSeries() : timeSeries();
}

QVector<Series> AccuracyChart::epochSeries() const {
  QVector<Series> out;
  const auto runs = shownRuns();
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    if (run.epochs.empty()) continue;
    struct Kind {
      const char* name;
      QString label;
      bool accuracy;
      bool test;
    };
    // A language model: next-byte accuracy and the loss in bits per character, against updates.
    const bool lm = tokensPerSample(run) > 0;
    const Kind imageKinds[] = {{"train_accuracy", tr("train accuracy"), true, false},
                               {"test_accuracy", tr("test accuracy"), true, true},
                               {"train_loss", tr("train loss"), false, false},
                               {"test_loss", tr("test loss"), false, true}};
    const Kind lmKinds[] = {{"train_next_byte_accuracy", tr("train next-byte accuracy"), true, false},
                            {"validation_next_byte_accuracy", tr("validation next-byte accuracy"), true, true},
                            {"train_bits_per_char_loss", tr("train bits/char"), false, false},
                            {"validation_bits_per_char_loss", tr("validation bits/char"), false, true}};
    const QVector<double> updates = lm ? updatesAtEpochs(run) : QVector<double>();
    for (const Kind& k : lm ? lmKinds : imageKinds) {
      Series s;
      s.chartId = chartId();
      s.runId = run.id;
      s.runName = run.name;
      s.name = k.name;
      s.label = runPrefix(run) + k.label;
      s.xUnit = lm ? "update" : "epoch";
      s.yUnit = k.accuracy ? "%" : (lm ? "bits/char" : "");
      s.source = SeriesSource::Measured;
      s.color = k.test ? run.color : run.color.lighter(130);
      s.styleIndex = ri;
      for (std::size_t i = 0; i < run.epochs.size(); ++i) {
        const auto& e = run.epochs[i];
        s.x.push_back(lm ? updates[static_cast<qsizetype>(i)] : e.epoch);
        const double v = k.accuracy ? (k.test ? e.testAccuracy : e.trainAccuracy) * 100
                                    : (k.test ? e.testLoss : e.trainLoss) / (lm ? std::log(2.0) : 1.0);
        s.y.push_back(v);
      }
      out.push_back(s);
    }
  }
  return out;
}

QVector<Series> AccuracyChart::timeSeries() const {
  QVector<Series> out;
  const auto runs = shownRuns();
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    if (run.epochs.empty()) continue;
    // A language model: validation bits per character against each device's time.
    const bool lm = tokensPerSample(run) > 0;
    QVector<double> acc;
    for (const auto& e : run.epochs) acc.push_back(lm ? e.testLoss / std::log(2.0) : e.testAccuracy);
    for (const DeviceResult& d : run.devices) {
      Series s = deviceSeries(run, d, ri);  // label set below, with its suffix
      s.name = lm ? "validation_bits_per_char_vs_seconds" : "test_accuracy_vs_seconds";
      s.xUnit = "s";
      s.yUnit = lm ? "bits/char" : "%";
      QString suffix;
      if (outOfMemory(d)) {
        s.note = tr("out of memory");
        suffix = tr(" — out of memory");
      } else {
        const QVector<double> secs = deviceEpochSeconds(run, d);
        double total = 0;
        QVector<double> cumulative;
        for (int i = 0; i < std::min(secs.size(), acc.size()); ++i) {
          total += secs[i];
          cumulative.push_back(total);
          s.x.push_back(total);
          s.y.push_back(lm ? acc[i] : acc[i] * 100);
        }
        if (!lm && run.targetAccuracy > 0 && !cumulative.isEmpty()) {
          const double at = reachedAtSeconds(cumulative, acc, run.targetAccuracy);
          if (std::isfinite(at)) {
            suffix = tr(" — %1% at %2").arg(run.targetAccuracy * 100, 0, 'f', 1).arg(formatSeconds(at));
            s.note = tr("reached %1% at %2 s").arg(run.targetAccuracy * 100, 0, 'f', 1).arg(at);
          } else {
            const double best = *std::max_element(s.y.begin(), s.y.end());
            suffix = tr(" — not reached (best %1%)").arg(best, 0, 'f', 1);
          }
        }
      }
      s.label = runPrefix(run) + deviceLabel(d) + suffix;
      out.push_back(s);
    }
  }
  out += referenceSeries(
      "time_to_accuracy", [](const ReferenceMark& m, int) { return std::optional<double>(m.x); }, "s",
      "%", 100.0);
  return out;
}

void AccuracyChart::rebuild() {
  QCPAxisRect* rect = mainRect();
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  QCPAxis* y2 = rect->axis(QCPAxis::atRight);
  const QVector<Series> all = series();
  QStringList notes;
  const bool lm = languageModelView();
  m_axisBox->setItemText(0, lm ? tr("against updates") : tr("against epoch"));
  if (m_axis == Axis::Epoch) {
    y->setLabel(lm ? tr("next-byte accuracy (%)") : tr("accuracy (%)"));
    x->setScaleType(QCPAxis::stLinear);
    if (lm) {
      x->setLabel(tr("update (optimizer step)"));
      // Updates are whole: ticks a whole number of updates apart (1, 2, 5, 10, … times one).
      QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
      ticker->setTickStep(1);
      ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
      x->setTicker(ticker);
    } else {
      x->setLabel(tr("epoch"));
      QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
      ticker->setTickStep(1);
      ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
      x->setTicker(ticker);
    }
    y2->setVisible(true);
    y2->setLabel(lm ? tr("bits per character") : tr("loss"));
    for (const Series& s : all) {
      const bool isLoss = s.name.endsWith("loss");
      QCPGraph* g = addLine(s, x, isLoss ? y2 : y);
      const EpochLineStyle st = epochLineStyle(s);
      QPen p = g->pen();
      p.setStyle(st.pen);
      p.setWidthF(pen(st.width));
      g->setPen(p);
      QCPScatterStyle sc = g->scatterStyle();
      sc.setShape(static_cast<QCPScatterStyle::ScatterShape>(st.shape));
      sc.setBrush(st.filled ? QBrush(p.color()) : QBrush(colors().background));
      g->setScatterStyle(sc);
    }
  } else {
    y->setLabel(lm ? tr("validation bits per character") : tr("accuracy (%)"));
    x->setLabel(tr("training time per device (s)"));
    if (m_logTime) {
      x->setScaleType(QCPAxis::stLogarithmic);
      x->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    } else {
      x->setScaleType(QCPAxis::stLinear);
      x->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    y2->setVisible(false);
    for (const Series& s : all) {
      if (s.source == SeriesSource::Reference) continue;
      addLine(s, x, y);
      if (!s.note.isEmpty()) notes << QStringLiteral("%1: %2").arg(deviceLabelFromSeries(s), s.note);
    }
    drawReferences(all, x, y);
  }
  // The target-accuracy line (one per distinct target of the shown runs).
  QList<double> targets;
  for (const Run* run : shownRuns())
    if (!lm && run->targetAccuracy > 0 && !run->epochs.empty() && !targets.contains(run->targetAccuracy))
      targets << run->targetAccuracy;
  for (double t : targets)
    addHorizontalLine(t * 100, tr("target %1%").arg(t * 100, 0, 'f', 1), colors().targetLine, x, y);
  setNotes(notes.join('\n'));
}

QString AccuracyChart::deviceLabelFromSeries(const Series& s) {
  const auto dash = s.label.indexOf(QStringLiteral(" — "));
  return dash < 0 ? s.label : s.label.left(dash);
}

void AccuracyChart::adjustFit() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  QCPAxis* y2 = mainRect()->axis(QCPAxis::atRight);
  if (m_axis == Axis::Epoch && languageModelView()) {
    if (x->range().lower < 0) x->setRangeLower(0);
    if (y2->range().lower < 0) y2->setRangeLower(0);
  } else if (m_axis == Axis::Epoch) {
    x->setRange(0.5, std::max(1.5, std::floor(x->range().upper) + 0.5));
    if (y2->range().lower < 0) y2->setRangeLower(0);
  } else if (!m_logTime && x->range().lower < 0) {
    x->setRangeLower(0);
  }
  if (y->range().upper > 100) y->setRangeUpper(101);
  if (y->range().lower < 0) y->setRangeLower(0);
}

QString AccuracyChart::emptyText() const {
  return tr("No finished epochs yet. Accuracy comes from real training on this machine; simulation-only runs have none.");
}

}  // namespace widgets
