#include "widgets/run_data.h"

#include "core/util/numbers.h"
#include "core/util/units.h"

#include <QLocale>
#include <cmath>
#include <limits>

#include "widgets/run_store.h"
#include "core/hw/device_spec.h"

namespace widgets {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

QString deviceShortName(const DeviceResult& d) {
  QString name = d.label;
  // Strip a trailing "(measured)" / "(simulated)" the app may have put in the label.
  for (const QString& suffix : {QStringLiteral("(measured)"), QStringLiteral("(simulated)")}) {
    if (name.endsWith(suffix)) name = name.left(name.size() - suffix.size()).trimmed();
  }
  if (name.isEmpty()) {
    name = d.deviceId == core::hw::kHostDeviceId ? QObject::tr("this machine") : d.deviceId;
    if (d.count > 1) name = QStringLiteral("%1× %2").arg(d.count).arg(name);
    if (d.vcpus > 0) name += QObject::tr(" (%1 vCPUs)").arg(d.vcpus);
  }
  return name;
}

QString deviceLabel(const DeviceResult& d) {
  if (d.measured) return QStringLiteral("%1 (%2)").arg(deviceShortName(d), QObject::tr("measured"));
  // "p100 (simulated ±9%)" or "t4 (simulated ±23%, uncalibrated)": the simulator's held-out
  // error band (core/sim/error_band.h).
  return QStringLiteral("%1 (%2)").arg(deviceShortName(d), d.errorBand.isEmpty()
                                                               ? QObject::tr("simulated")
                                                               : QObject::tr("simulated %1").arg(d.errorBand));
}

QVector<double> deviceEpochSeconds(const Run& run, const DeviceResult& d) {
  if (!d.epochSeconds.isEmpty() || !d.measured) return d.epochSeconds;
  QVector<double> out;
  for (const auto& e : run.epochs) out.push_back(e.hostSeconds);
  return out;
}

double measuredImagesPerSecond(const Run& run) {
  if (run.epochs.size() >= 2) {
    double sum = 0;
    int n = 0;
    for (std::size_t i = 1; i < run.epochs.size(); ++i) {
      if (run.epochs[i].hostImagesPerSecond > 0) {
        sum += run.epochs[i].hostImagesPerSecond;
        ++n;
      }
    }
    if (n > 0) return sum / n;
  }
  if (run.epochs.size() == 1 && run.epochs[0].hostImagesPerSecond > 0)
    return run.epochs[0].hostImagesPerSecond;
  if (!run.batches.empty()) {
    const auto& last = run.batches.back();
    if (last.wallSeconds > 0 && last.images > 0)
      return static_cast<double>(last.images) / last.wallSeconds;
  }
  return kNaN;
}

QVector<double> measuredStepSecondsPerEpoch(const Run& run) {
  QVector<double> out;
  for (const auto& e : run.epochs) {
    // Prefer the per-batch samples of the epoch; fall back to epoch time / steps.
    double sum = 0;
    int n = 0;
    for (const auto& b : run.batches) {
      if (b.epoch == e.epoch && b.stepSeconds > 0) {
        sum += b.stepSeconds;
        ++n;
      }
    }
    if (n > 0) {
      out.push_back(sum / n);
    } else if (run.config.batch > 0 && e.images > 0) {
      const double steps = std::ceil(static_cast<double>(e.images) / run.config.batch);
      out.push_back(e.hostSeconds / steps);
    } else {
      out.push_back(kNaN);
    }
  }
  return out;
}

bool outOfMemory(const DeviceResult& d) { return !d.report.fitsInMemory; }

QString formatValue(double v) { return QString::fromStdString(core::util::readableNumber(v)); }

QString formatMoney(double usd) { return QString::fromStdString(core::util::readableMoney(usd)); }

QString formatSeconds(double s) { return QString::fromStdString(core::util::readableDuration(s)); }

QString formatGib(double bytes) { return QString::number(bytes / core::util::kBytesPerGib, 'f', 1); }

QString runConfigurationText(const Run& run) {
  const auto& c = run.config;
  QString text = QStringLiteral("#%1 %2: %3 on %4").arg(run.id).arg(run.name, QString::fromStdString(c.modelId),
                                                              QString::fromStdString(c.datasetId));
  if (!c.dataDir.empty()) text += QStringLiteral(" (files: %1)").arg(QString::fromStdString(c.dataDir));
  if (c.limit > 0) text += QStringLiteral(" (subset %1)").arg(c.limit);
  text += QStringLiteral(", batch %1, %2 epoch(s), %3 lr %4")
              .arg(c.batch)
              .arg(c.epochs)
              .arg(QString::fromLatin1(core::experiment::optimizerName(c.optimizer)))
              .arg(c.learningRate);
  if (c.optimizer == core::experiment::OptimizerKind::SGD)
    text += QStringLiteral(" momentum %1%2").arg(c.momentum).arg(c.nesterov ? QStringLiteral(" nesterov") : QString());
  text += QStringLiteral(" (weight decay %1, schedule %2), %3, seed %4")
              .arg(c.weightDecay)
              .arg(QString::fromLatin1(core::experiment::scheduleName(c.schedule)),
                   QString::fromLatin1(core::util::precisionName(c.precision)))
              .arg(c.seed);
  if (c.threads > 0) text += QStringLiteral(", %1 threads").arg(c.threads);
  QStringList devices;
  for (const DeviceResult& d : run.devices) {
    if (d.measured) {
      devices << QObject::tr("this machine (measured)");
      continue;
    }
    const auto& r = d.report;
    QString dev = QStringLiteral("%1 ×%2 %3 %4").arg(d.deviceId).arg(d.count).arg(
        QString::fromLatin1(core::util::precisionName(r.config.precision)), QString::fromStdString(r.config.stackId));
    if (d.vcpus > 0) dev += QStringLiteral(" %1 vCPUs").arg(d.vcpus);
    dev += r.priceKnown ? QStringLiteral(" %1/h %2").arg(formatMoney(r.usdPerHour)).arg(
                              r.priceKind == core::sim::PriceKind::User
                                  ? QObject::tr("your price")
                                  : QString::fromLatin1(core::sim::kPriceKindLabels.name(r.priceKind).data()))
                        : QObject::tr(" no price");
    devices << dev + QObject::tr(" (simulated)");
  }
  if (!devices.isEmpty()) text += QObject::tr("; devices: %1").arg(devices.join("; "));
  return text;
}

}  // namespace widgets
