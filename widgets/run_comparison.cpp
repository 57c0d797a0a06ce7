#include "widgets/run_comparison.h"

#include <QObject>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "core/experiment/names.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

namespace {

QString number(double v) { return QString::number(v, 'g', 6); }

// A setting: its row label, the short form a name uses ("lr 10"), and its value.
struct Setting {
  QString label, shortLabel;
  std::function<QString(const Run&)> value;
  bool changesWork = true;   // false: the measured time cannot depend on it (seed, learning rate, …)
};

const std::vector<Setting>& settings() {
  using core::experiment::OptimizerKind;
  static const std::vector<Setting> all = {
      {QObject::tr("model"), "", [](const Run& r) { return QString::fromStdString(r.config.modelId); }},
      {QObject::tr("dataset"), "", [](const Run& r) { return QString::fromStdString(r.config.datasetId); }},
      {QObject::tr("data folder"), "", [](const Run& r) { return QString::fromStdString(r.config.dataDir); }},
      {QObject::tr("subset"), "n", [](const Run& r) { return r.config.limit > 0 ? QString::number(r.config.limit) : QObject::tr("all"); }},
      {QObject::tr("batch"), "b", [](const Run& r) { return QString::number(r.config.batch); }},
      {QObject::tr("epochs"), "ep", [](const Run& r) { return QString::number(r.config.epochs); }},
      {QObject::tr("optimizer"), "", [](const Run& r) { return QString::fromLatin1(core::experiment::optimizerName(r.config.optimizer)); }},
      {QObject::tr("learning rate"), "lr", [](const Run& r) { return number(r.config.learningRate); }, false},
      {QObject::tr("momentum"), "mom",
       [](const Run& r) {
         return r.config.optimizer == OptimizerKind::SGD ? number(r.config.momentum) + (r.config.nesterov ? " nesterov" : "")
                                                         : QString();
       },
       false},
      {QObject::tr("weight decay"), "wd", [](const Run& r) { return number(r.config.weightDecay); }, false},
      {QObject::tr("schedule"), "", [](const Run& r) { return QString::fromLatin1(core::experiment::scheduleName(r.config.schedule)); }, false},
      {QObject::tr("precision"), "", [](const Run& r) { return QString::fromLatin1(core::util::precisionName(r.config.precision)); }},
      {QObject::tr("seed"), "seed", [](const Run& r) { return QString::number(r.config.seed); }, false},
      {QObject::tr("threads"), "threads", [](const Run& r) { return r.config.threads > 0 ? QString::number(r.config.threads) : QObject::tr("all"); }},
      {QObject::tr("BN statistics"), "bn",
       [](const Run& r) { return r.config.bnStatsSamples > 0 ? QString::number(r.config.bnStatsSamples) : QObject::tr("moving avg."); }},
      {QObject::tr("stacks"), "",
       [](const Run& r) {
         QStringList s;
         for (const auto& d : r.devices)
           if (!d.measured && !s.contains(QString::fromStdString(d.report.config.stackId))) s << QString::fromStdString(d.report.config.stackId);
         return s.join(", ");
       },
       false},
      {QObject::tr("devices"), "",
       [](const Run& r) {
         QStringList s;
         for (const auto& d : r.devices) s << deviceShortName(d);
         return s.join(", ");
       },
       false},
  };
  return all;
}

bool allSame(const QStringList& values) {
  for (const QString& v : values)
    if (v != values.front()) return false;
  return true;
}

}  // namespace

QVector<ComparisonRow> compareRuns(const std::vector<const Run*>& runs) {
  QVector<ComparisonRow> rows;
  bool workDiffers = false;   // the runs did different work here (not only another seed or LR)
  for (const Setting& s : settings()) {
    ComparisonRow row{s.label, {}, true, false, {}};
    for (const Run* r : runs) row.values << s.value(*r);
    if (std::all_of(row.values.begin(), row.values.end(), [](const QString& v) { return v.isEmpty(); })) continue;
    row.differs = !allSame(row.values);
    workDiffers = workDiffers || (row.differs && s.changesWork);
    rows << row;
  }
  auto result = [&](const QString& label, const std::function<QString(const Run&)>& value) {
    ComparisonRow row{label, {}, false, false, {}};
    for (const Run* r : runs) row.values << value(*r);
    if (std::all_of(row.values.begin(), row.values.end(), [](const QString& v) { return v.isEmpty(); })) return;
    row.differs = !allSame(row.values);
    rows << row;
  };
  result(QObject::tr("status"), [](const Run& r) { return runStatusText(r.status); });
  result(QObject::tr("epochs done"), [](const Run& r) { return QString::number(r.epochs.size()); });
  result(QObject::tr("final test accuracy"), [](const Run& r) {
    if (r.epochs.empty() || tokensPerSample(r) > 0 || !std::isfinite(r.epochs.back().testAccuracy)) return QString();
    return QStringLiteral("%1%").arg(r.epochs.back().testAccuracy * 100, 0, 'f', 2);
  });
  result(QObject::tr("final validation bits/char"), [](const Run& r) {
    if (r.epochs.empty() || tokensPerSample(r) == 0) return QString();
    return QString::number(r.epochs.back().testLoss / std::log(2.0), 'f', 3);
  });
  result(QObject::tr("time here (measured)"), [](const Run& r) {
    double s = 0;
    for (const auto& e : r.epochs) s += e.hostSeconds;
    return s > 0 ? formatSeconds(s) : QString();
  });
  // The same work measured twice differs by noise (other programs, clocks, caches): not marked.
  if (!rows.isEmpty() && rows.back().label == QObject::tr("time here (measured)") && rows.back().differs && !workDiffers) {
    rows.back().differs = false;
    rows.back().note = QObject::tr("The same work: the spread is measurement noise (other programs, clock speed, caches)");
  }
  // Per device (in order of first appearance): its simulated run time and cost.
  QStringList devices;
  for (const Run* r : runs)
    for (const auto& d : r->devices)
      if (!d.measured && !devices.contains(deviceShortName(d))) devices << deviceShortName(d);
  for (const QString& dev : devices) {
    auto find = [dev](const Run& r) -> const DeviceResult* {
      for (const auto& d : r.devices)
        if (!d.measured && deviceShortName(d) == dev) return &d;
      return nullptr;
    };
    result(QObject::tr("time on %1 (simulated)").arg(dev), [find](const Run& r) {
      const DeviceResult* d = find(r);
      if (!d) return QString();
      if (outOfMemory(*d)) return QObject::tr("out of memory");
      double s = 0;
      for (double v : d->epochSeconds) s += v;
      return s > 0 ? formatSeconds(s) : QString();
    });
    result(QObject::tr("cost on %1 (simulated)").arg(dev), [find](const Run& r) {
      const DeviceResult* d = find(r);
      if (!d || outOfMemory(*d) || !d->report.priceKnown) return QString();
      double s = 0;
      for (double v : d->epochSeconds) s += v;
      return s > 0 ? formatMoney(d->report.usdPerHour * s / 3600.0) : QString();
    });
  }
  return rows;
}

QStringList distinguishingNames(const std::vector<const Run*>& runs) {
  QStringList names;
  for (std::size_t i = 0; i < runs.size(); ++i) names << QString();
  if (runs.size() < 2) return names;
  for (const Setting& s : settings()) {
    QStringList values;
    for (const Run* r : runs) values << s.value(*r);
    if (allSame(values)) continue;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const QString& v = values[static_cast<qsizetype>(i)];
      if (v.isEmpty()) continue;
      QString& name = names[static_cast<qsizetype>(i)];
      if (!name.isEmpty()) name += QStringLiteral(" · ");
      name += s.shortLabel.isEmpty() ? v : s.shortLabel + ' ' + v;
    }
  }
  return names;
}

}  // namespace widgets
