#include "widgets/data_export.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

#include "core/experiment/experiment_json.h"
#include "core/experiment/names.h"
#include "core/sim/sim_report_json.h"
#include "widgets/chart_base.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

QString csvField(const QString& s) {
  if (s.contains(',') || s.contains('"') || s.contains('\n') || s.contains('\r'))
    return '"' + QString(s).replace('"', "\"\"") + '"';
  return s;
}

namespace {

// Core's JSON (the experiment's and the report's own codecs) as a Qt JSON object.
QJsonObject qtObject(const core::util::Json& j) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(j.dump())).object();
}

const DeviceResult* deviceOf(const Run* run, const QString& id) {
  if (!run) return nullptr;
  for (const DeviceResult& d : run->devices)
    if (d.deviceId == id) return &d;
  return nullptr;
}

QString csvNumber(double v) {
  return std::isfinite(v) ? QString::number(v, 'g', 10) : QString();
}

QJsonValue jsonNumber(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); }

}  // namespace

QString seriesSourceName(SeriesSource s) {
  switch (s) {
    case SeriesSource::Measured: return QStringLiteral("measured");
    case SeriesSource::Simulated: return QStringLiteral("simulated");
    case SeriesSource::Reference: return QStringLiteral("reference");
  }
  return {};
}

QVector<Series> collectSeries(const QList<ChartFrame*>& charts) {
  QVector<Series> all;
  for (ChartFrame* c : charts) {
    c->refreshNow();
    all += c->series();
  }
  return all;
}

int seriesRowCount(const QVector<Series>& series) {
  int rows = 0;
  for (const Series& s : series) {
    const auto n = std::max(s.x.size(), s.y.size());
    rows += n > 0 ? static_cast<int>(n) : (s.note.isEmpty() ? 0 : 1);
  }
  return rows;
}

namespace {

// The run's settings as CSV columns (model … seed), `batch` the row's own (a sweep point's).
QString trainColumns(const core::experiment::TrainConfig& c, int batch) {
  return QStringLiteral(",%1,%2,%3,%4,%5,%6,%7,%8,%9")
             .arg(csvField(QString::fromStdString(c.modelId)), csvField(QString::fromStdString(c.datasetId)))
             .arg(c.limit)
             .arg(batch)
             .arg(c.epochs)
             .arg(QString::fromLatin1(core::experiment::optimizerName(c.optimizer)))
             .arg(csvNumber(c.learningRate), csvNumber(c.weightDecay),
                  QString::fromLatin1(core::util::precisionName(c.precision))) +
         QStringLiteral(",%1").arg(c.seed);
}

// A simulated device's columns (count … CO2e). A scalable CPU's size is its vCPUs
// (device_count 1 of a 16-vCPU Skylake); a missing price keeps the date none was public;
// energy where the device has a power figure.
QString deviceColumns(const core::sim::SimReport& r, int count) {
  return QStringLiteral(",%1,%2,%3,%4,%5,%6,%7,%8,%9")
             .arg(count)
             .arg(r.vcpus > 0 ? QString::number(r.vcpus) : QString(),
                  QString::fromLatin1(core::util::precisionName(r.config.precision)),
                  csvField(QString::fromStdString(r.config.stackId)), r.priceKnown ? csvNumber(r.usdPerHour) : QString(),
                  r.priceKnown ? QString::fromLatin1(core::sim::kPriceKindLabels.name(r.priceKind).data()) : QString(),
                  csvField(QString::fromStdString(r.priceSeller)), csvField(QString::fromStdString(r.priceDate)),
                  r.energy.known ? csvNumber(r.energy.kwh) : QString()) +
         QStringLiteral(",%1").arg(r.energy.known && r.config.energy.gridKgCo2ePerKwh > 0 ? csvNumber(r.energy.co2eKg)
                                                                                            : QString());
}

const QString kNoTrainColumns = QStringLiteral(",,,,,,,,,,");
const QString kNoDeviceColumns = QStringLiteral(",,,,,,,,,,");
const QString kMeasuredDeviceColumns = QStringLiteral(",1,,,measured,,,,,,");

// The configuration of every row of `s` when they share one (a run's), or of row `i` (a sweep's).
QString configColumns(const Series& s, const RunStore& store, qsizetype i) {
  if (s.train) {
    if (i >= 0 && i < static_cast<qsizetype>(s.pointReports.size())) {
      const core::sim::SimReport& r = s.pointReports[static_cast<std::size_t>(i)];
      return trainColumns(*s.train, r.config.batch) + deviceColumns(r, r.config.count);
    }
    return trainColumns(*s.train, s.train->batch) + kNoDeviceColumns;   // a note row ("no price")
  }
  const Run* run = store.run(s.runId);
  const DeviceResult* d = deviceOf(run, s.deviceId);
  return (run ? trainColumns(run->config, run->config.batch) : kNoTrainColumns) +
         (d && !d->measured ? deviceColumns(d->report, d->count) : d ? kMeasuredDeviceColumns : kNoDeviceColumns);
}

}  // namespace

QByteArray seriesToCsv(const QVector<Series>& series, const RunStore* store) {
  QString out = QStringLiteral("chart,run_id,run,device,series,x,x_unit,y,unit,source,note");
  if (store)
    out += QStringLiteral(",model,dataset,subset,batch,epochs,optimizer,learning_rate,weight_decay,precision,seed,"
                          "device_count,vcpus,device_precision,stack,usd_per_hour,price_kind,price_seller,price_date,"
                          "energy_kwh_per_run,co2e_kg_per_run");
  out += '\n';
  for (const Series& s : series) {
    const QString prefix = QStringLiteral("%1,%2,%3,%4,%5,")
                               .arg(csvField(s.chartId))
                               .arg(s.runId)
                               .arg(csvField(s.runName), csvField(s.deviceId), csvField(s.name));
    auto suffix = [&](qsizetype i) {
      return QStringLiteral("%1,%2,%3%4\n").arg(csvField(s.yUnit), seriesSourceName(s.source), csvField(s.note),
                                                store ? configColumns(s, *store, i) : QString());
    };
    const auto n = std::max(s.x.size(), s.y.size());
    if (n == 0 && !s.note.isEmpty()) {
      out += prefix + QStringLiteral(",%1,,").arg(csvField(s.xUnit)) + suffix(-1);
      continue;
    }
    for (qsizetype i = 0; i < n; ++i) {
      out += prefix + csvNumber(s.x.value(i, NAN)) + ',' + csvField(s.xUnit) + ',' +
             csvNumber(s.y.value(i, NAN)) + ',' + suffix(i);
    }
  }
  return out.toUtf8();
}

QByteArray seriesToJson(const QVector<Series>& series, const RunStore* store, const QJsonObject& extra) {
  QJsonArray list;
  QList<int> runIds;
  for (const Series& s : series) {
    QJsonObject o;
    o["chart"] = s.chartId;
    o["run_id"] = s.runId;
    o["run"] = s.runName;
    o["device"] = s.deviceId;
    o["series"] = s.name;
    o["label"] = s.label;
    o["x_unit"] = s.xUnit;
    o["unit"] = s.yUnit;
    o["source"] = seriesSourceName(s.source);
    if (!s.note.isEmpty()) o["note"] = s.note;
    QJsonArray points;
    const auto n = std::max(s.x.size(), s.y.size());
    for (qsizetype i = 0; i < n; ++i)
      points.append(QJsonArray{jsonNumber(s.x.value(i, NAN)), jsonNumber(s.y.value(i, NAN))});
    o["points"] = points;
    if (s.train) {
      o["config"] = qtObject(core::experiment::trainConfigToJson(*s.train));
      QJsonArray reports;
      for (const core::sim::SimReport& r : s.pointReports)
        reports.append(qtObject(core::sim::simReportToJson(r, core::sim::JsonDigits::Six)));
      o["reports"] = reports;
    }
    list.append(o);
    if (s.runId > 0 && !runIds.contains(s.runId)) runIds << s.runId;
  }
  QJsonObject root;
  root["format"] = QStringLiteral("accellab-series");
  root["version"] = 1;
  root["columns"] = QJsonArray{"x", "y"};
  root["series"] = list;
  if (store) {
    // How each run was made, in the experiment files' own spelling (core's codec).
    QJsonArray runs;
    for (int id : runIds) {
      const Run* run = store->run(id);
      if (!run) continue;
      QJsonObject r;
      r["id"] = id;
      r["name"] = run->name;
      r["status"] = QString::fromLatin1(core::experiment::runStatusName(run->status));
      r["description"] = runConfigurationText(*run);
      r["config"] = qtObject(core::experiment::trainConfigToJson(run->config));
      QJsonArray devices;
      for (const DeviceResult& d : run->devices) {
        QJsonObject o;
        o["device"] = d.deviceId;
        o["measured"] = d.measured;
        o["count"] = d.count;
        if (d.vcpus > 0) o["vcpus"] = d.vcpus;
        // A simulated device's whole report, in the one form the CLI prints and the history keeps.
        if (!d.measured)
          o["report"] = qtObject(core::sim::simReportToJson(d.report, core::sim::JsonDigits::Six));
        devices.append(o);
      }
      r["devices"] = devices;
      runs.append(r);
    }
    root["runs"] = runs;
  }
  for (auto it = extra.begin(); it != extra.end(); ++it) root[it.key()] = it.value();
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

// The store the charts draw from: run charts have one; the planner's charts have none.
const RunStore* storeOf(const QList<ChartFrame*>& charts) {
  const auto* runChart = charts.isEmpty() ? nullptr : qobject_cast<const ChartBase*>(charts.front());
  return runChart ? runChart->store() : nullptr;
}

ExportResult exportSeriesCsv(const QList<ChartFrame*>& charts, const QString& path, bool utf8Bom) {
  const RunStore* store = storeOf(charts);
  QByteArray bytes = seriesToCsv(collectSeries(charts), store);
  if (utf8Bom) bytes.prepend("\xEF\xBB\xBF");
  return writeFileAtomically(path, bytes);
}

ExportResult exportSeriesJson(const QList<ChartFrame*>& charts, const QString& path, const QJsonObject& extra) {
  const RunStore* store = storeOf(charts);
  return writeFileAtomically(path, seriesToJson(collectSeries(charts), store, extra));
}

}  // namespace widgets
