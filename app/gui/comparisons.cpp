#include "app/gui/comparisons.h"

#include <QJsonObject>
#include <QRegularExpression>

#include <QLocale>
#include <cmath>

#include "app/gui/sim_service.h"
#include "core/experiment/comparison.h"
#include "core/util/units.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace app::gui {
namespace {

QString ratio(double v) { return QStringLiteral("%1×").arg(QLocale().toString(v, 'f', v < 10 ? 2 : 0)); }

}  // namespace

QString errorText(double error) {
  if (!std::isfinite(error)) return QStringLiteral("–");
  const double pct = 100 * error;
  return (pct >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + QLocale().toString(std::abs(pct), 'f', std::abs(pct) < 10 ? 1 : 0) + "%";
}

QString publishedText(const Comparison& c) {
  if (c.metric == Comparison::Metric::Fits) return c.published > 0.5 ? QObject::tr("fits") : QObject::tr("out of memory");
  return (c.approximate ? QStringLiteral("≈") : QString()) + ratio(c.published);
}

ComparisonResult evaluateComparison(const SimService& sim, const Comparison& c, const core::experiment::TrainConfig& config,
                                    const QVector<core::experiment::DeviceChoice>& devices) {
  using Status = core::experiment::ComparisonOutcome::Status;
  const core::experiment::ComparisonOutcome o = core::experiment::evaluateComparison(
      sim.simulator(), c, config, std::vector<core::experiment::DeviceChoice>(devices.begin(), devices.end()),
      sim.energySettings());
  ComparisonResult r;
  r.ok = o.ok();
  r.value = o.value;
  r.error = o.error;
  r.agrees = o.agrees;
  const QString failed = QString::fromStdString(o.failedDeviceId);
  switch (o.status) {
    case Status::OutOfMemory: r.text = QObject::tr("out of memory (%1)").arg(failed); return r;
    case Status::NoTime: r.text = QObject::tr("no time for %1").arg(failed); return r;
    case Status::NotSimulated:
      r.text = QObject::tr("not simulated");
      r.detail = QString::fromStdString(o.why);
      return r;
    case Status::Computed: break;
  }
  const core::sim::SimReport& ra = o.deviceReport;
  if (c.metric == Comparison::Metric::Fits) {
    r.text = ra.fitsInMemory ? QObject::tr("fits") : QObject::tr("out of memory");
    r.detail = QObject::tr("%1 of %2 GiB per device")
                   .arg(ra.memoryBytesPerDevice / core::util::kBytesPerGib, 0, 'f', 1)
                   .arg(ra.memoryCapacityBytes / core::util::kBytesPerGib, 0, 'f', 1);
    return r;
  }
  r.text = ratio(r.value);
  r.detail = QObject::tr("%1: %2 · %3: %4 (simulated, %5 epochs incl. the first)")
                 .arg(sim.choiceLabel(o.deviceChoice), widgets::formatSeconds(ra.runSeconds), sim.choiceLabel(o.versusChoice),
                      widgets::formatSeconds(o.versusReport.runSeconds))
                 .arg(o.epochs);
  return r;
}

QString protocolText(const Comparison& c, int presetEpochs) {
  const int epochs = c.epochs > 0 ? c.epochs : presetEpochs;
  if (c.metric == Comparison::Metric::Fits) return QObject::tr("the article's batch and device");
  if (c.stepsPerEpoch > 0)
    return QObject::tr("the article's %1 epochs × %2 steps, compilation included").arg(epochs).arg(c.stepsPerEpoch);
  return QObject::tr("the article's %1 whole epochs, compilation included").arg(epochs);
}

ComparisonResult comparisonOnRun(const Comparison& c, const widgets::Run& run) {
  ComparisonResult r;
  r.text = QStringLiteral("–");
  auto side = [&](const core::experiment::ComparisonSide& s) -> const widgets::DeviceResult* {
    for (const widgets::DeviceResult& d : run.devices)
      if (d.deviceId.toStdString() == s.deviceId) return &d;
    return nullptr;
  };
  const bool fits = c.metric == Comparison::Metric::Fits;
  // The row's sides as the run has them: the same device, count, vCPUs, batch and data, or no
  // figure (E4's "32 vs 64 vCPUs" is not a ratio of one run's one CPU with itself).
  for (const auto* s : {&c.device, &c.versus}) {
    if (s == &c.versus && fits) break;
    const widgets::DeviceResult* d = side(*s);
    QString differs;
    if (!d) differs = QObject::tr("%1 is not in this run.").arg(QString::fromStdString(s->deviceId));
    else if (s->batch && *s->batch != run.config.batch)
      differs = QObject::tr("The row is for batch %1; this run's is %2.").arg(*s->batch).arg(run.config.batch);
    else if (s->count && *s->count != d->count)
      differs = QObject::tr("The row is for %1 × %2; this run has %3.").arg(*s->count).arg(d->deviceId).arg(d->count);
    else if (s->vcpus && *s->vcpus != d->vcpus)
      differs = QObject::tr("The row is for %1 vCPUs; this run's %2 has %3.").arg(*s->vcpus).arg(d->deviceId).arg(d->vcpus);
    else if (s->datasetId && *s->datasetId != run.config.datasetId)
      differs = QObject::tr("The row is for %1; this run trains on %2.")
                    .arg(QString::fromStdString(*s->datasetId), QString::fromStdString(run.config.datasetId));
    if (!differs.isEmpty()) {
      r.detail = differs;
      return r;
    }
  }
  const widgets::DeviceResult& a = *side(c.device);
  if (fits) {
    r.ok = true;
    r.value = a.report.fitsInMemory ? 1 : 0;
    r.text = a.report.fitsInMemory ? QObject::tr("fits") : QObject::tr("out of memory");
    return r;
  }
  const widgets::DeviceResult& b = *side(c.versus);
  if (&a == &b) {
    r.detail = QObject::tr("Both sides are the same device of this run.");
    return r;
  }
  for (const widgets::DeviceResult* d : {&a, &b})
    if (widgets::outOfMemory(*d)) {
      r.text = QObject::tr("out of memory (%1)").arg(d->deviceId);
      r.detail = QObject::tr("%1 does not fit this run's batch.").arg(d->deviceId);
      return r;
    }
  // Whole runs over the epochs both devices have (a run read back from history may differ).
  const QVector<double> ea = widgets::deviceEpochSeconds(run, a), eb = widgets::deviceEpochSeconds(run, b);
  const auto epochs = std::min(ea.size(), eb.size());
  double ta = 0, tb = 0;
  for (qsizetype i = 0; i < epochs; ++i) ta += ea[i], tb += eb[i];
  if (!(ta > 0 && tb > 0)) {
    r.detail = run.status == core::experiment::RunStatus::Running ? QObject::tr("No finished epoch yet.")
                                                         : QObject::tr("This run finished no epoch.");
    return r;
  }
  r.ok = true;
  r.value = tb / ta;
  r.text = ratio(r.value);
  const QString data = run.config.limit > 0 ? QObject::tr("%1 images").arg(widgets::formatValue(run.config.limit))
                                            : QObject::tr("the whole dataset");
  r.detail = QObject::tr("%1: %2 · %3: %4 (this run: %5 epoch(s) of %6, compilation included)")
                 .arg(widgets::deviceLabel(a), widgets::formatSeconds(ta), widgets::deviceLabel(b), widgets::formatSeconds(tb))
                 .arg(epochs)
                 .arg(data);
  return r;
}

QJsonArray comparisonsToJson(const QVector<Comparison>& comparisons, const QVector<ComparisonResult>& results,
                             const QString& mismatch) {
  auto number = [](double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null); };
  QJsonArray rows;
  for (qsizetype i = 0; i < comparisons.size(); ++i) {
    const Comparison& c = comparisons[i];
    const ComparisonResult r = results.value(i);
    const bool compared = mismatch.isEmpty() && r.ok;
    QJsonObject o;
    o["label"] = QString::fromStdString(c.label);
    o["metric"] = c.metric == Comparison::Metric::Fits ? QStringLiteral("fits") : QStringLiteral("speedup");
    o["published"] = c.published;
    o["published_text"] = publishedText(c);
    o["accellab"] = r.ok ? QJsonValue(r.value) : QJsonValue(QJsonValue::Null);
    o["accellab_text"] = r.text;
    o["error"] = compared ? number(r.error) : QJsonValue(QJsonValue::Null);
    o["tolerance"] = c.toleranceOrDefault();
    o["compared"] = compared;
    o["agrees"] = compared && r.agrees;
    o["explanation"] = QString::fromStdString(c.explanation);
    if (!mismatch.isEmpty()) o["not_compared_because"] = mismatch;
    o["source"] = QString::fromStdString(c.source);
    rows.append(o);
  }
  return rows;
}

namespace {

const QRegularExpression& placeholderPattern() {
  static const QRegularExpression re(QStringLiteral("\\{([a-z_]+):(\\d+)\\}"));
  return re;
}

}  // namespace

QString renderGuideText(const QString& text, const QVector<Comparison>& comparisons,
                        const QVector<ComparisonResult>& results) {
  QString out;
  qsizetype last = 0;
  auto it = placeholderPattern().globalMatch(text);
  while (it.hasNext()) {
    const QRegularExpressionMatch m = it.next();
    out += text.mid(last, m.capturedStart() - last);
    last = m.capturedEnd();
    const qsizetype row = m.captured(2).toLongLong() - 1;
    if (row < 0 || row >= comparisons.size()) {
      out += m.captured(0);   // refused when the preset loads; kept visible if it gets here
      continue;
    }
    if (m.captured(1) == QLatin1String("published")) {
      out += publishedText(comparisons[row]);
    } else if (m.captured(1) == QLatin1String("accellab")) {
      out += row < results.size() && results[row].ok ? results[row].text : QStringLiteral("…");
    } else {
      out += m.captured(0);
    }
  }
  return out + text.mid(last);
}

QStringList guidePlaceholderErrors(const QString& text, int rows) {
  QStringList errors;
  for (const std::string& e : core::experiment::guidePlaceholderErrors(text.toStdString(), rows)) errors << QString::fromStdString(e);
  return errors;
}

}  // namespace app::gui
