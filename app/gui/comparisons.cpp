#include "app/gui/comparisons.h"

#include <QJsonObject>
#include <QRegularExpression>

#include <QLocale>
#include <cmath>

#include "app/gui/sim_service.h"
#include "widgets/run_data.h"

namespace app::gui {
namespace {

struct Side {
  core::experiment::TrainConfig config;
  core::experiment::DeviceChoice choice;
};

Side resolve(const ComparisonSide& s, const Comparison& c, const core::experiment::TrainConfig& config,
             const QVector<core::experiment::DeviceChoice>& devices) {
  Side out{config, {}};
  if (c.epochs > 0) out.config.epochs = c.epochs;
  out.choice.deviceId = s.deviceId.toStdString();
  for (const auto& d : devices)
    if (d.deviceId == s.deviceId.toStdString()) out.choice = d;
  if (s.count) out.choice.count = *s.count;
  if (s.vcpus) out.choice.vcpus = *s.vcpus;
  if (s.batch) out.config.batch = *s.batch;
  if (s.datasetId) out.config.datasetId = *s.datasetId;
  // Published comparisons are about whole-dataset epochs.
  out.config.limit = 0;
  return out;
}

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
  ComparisonResult r;
  try {
    const Side a = resolve(c.device, c, config, devices);
    auto simulate = [&](const Side& side) {
      core::sim::SimConfig sc = sim.simConfig(side.config, side.choice);
      sc.stepsPerEpoch = c.stepsPerEpoch;
      return sim.simulate(sc);
    };
    const core::sim::SimReport ra = simulate(a);
    if (c.metric == Comparison::Metric::Fits) {
      r.ok = true;
      r.value = ra.fitsInMemory ? 1 : 0;
      r.text = ra.fitsInMemory ? QObject::tr("fits") : QObject::tr("out of memory");
      r.agrees = (r.value > 0.5) == (c.published > 0.5);
      r.detail = QObject::tr("%1 of %2 GiB per device")
                     .arg(ra.memoryBytesPerDevice / (1024.0 * 1024 * 1024), 0, 'f', 1)
                     .arg(ra.memoryCapacityBytes / (1024.0 * 1024 * 1024), 0, 'f', 1);
      return r;
    }
    const Side b = resolve(c.versus, c, config, devices);
    const core::sim::SimReport rb = simulate(b);
    if (!ra.fitsInMemory || !rb.fitsInMemory) {
      r.text = QObject::tr("out of memory (%1)").arg(!ra.fitsInMemory ? c.device.deviceId : c.versus.deviceId);
      return r;
    }
    if (ra.runSeconds <= 0) {
      r.text = QObject::tr("no time for %1").arg(c.device.deviceId);
      return r;
    }
    r.ok = true;
    r.value = rb.runSeconds / ra.runSeconds;
    r.text = ratio(r.value);
    r.error = r.value / c.published - 1;
    r.agrees = std::abs(r.error) <= c.toleranceOrDefault() + 1e-12;
    r.detail = QObject::tr("%1: %2 · %3: %4 (simulated, %5 epochs incl. the first)")
                   .arg(sim.choiceLabel(a.choice), widgets::formatSeconds(ra.runSeconds), sim.choiceLabel(b.choice),
                        widgets::formatSeconds(rb.runSeconds))
                   .arg(a.config.epochs);
  } catch (const std::exception& e) {
    r.ok = false;
    r.text = QObject::tr("not simulated");
    r.detail = QString::fromUtf8(e.what());
  }
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
    o["label"] = c.label;
    o["metric"] = c.metric == Comparison::Metric::Fits ? QStringLiteral("fits") : QStringLiteral("speedup");
    o["published"] = c.published;
    o["published_text"] = publishedText(c);
    o["accellab"] = r.ok ? QJsonValue(r.value) : QJsonValue(QJsonValue::Null);
    o["accellab_text"] = r.text;
    o["error"] = compared ? number(r.error) : QJsonValue(QJsonValue::Null);
    o["tolerance"] = c.toleranceOrDefault();
    o["compared"] = compared;
    o["agrees"] = compared && r.agrees;
    o["explanation"] = c.explanation;
    if (!mismatch.isEmpty()) o["not_compared_because"] = mismatch;
    o["source"] = c.source;
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
  auto it = placeholderPattern().globalMatch(text);
  while (it.hasNext()) {
    const QRegularExpressionMatch m = it.next();
    const QString kind = m.captured(1);
    const int row = m.captured(2).toInt();
    if (kind != QLatin1String("published") && kind != QLatin1String("accellab"))
      errors << QStringLiteral("%1: unknown figure \"%2\" (use published or accellab)").arg(m.captured(0), kind);
    else if (row < 1 || row > rows)
      errors << QStringLiteral("%1: there is no comparison %2 (the preset has %3)").arg(m.captured(0)).arg(row).arg(rows);
  }
  return errors;
}

}  // namespace app::gui
