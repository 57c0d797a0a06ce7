#include "widgets/data_export.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

#include "widgets/chart_base.h"

namespace widgets {

namespace {

QString csvField(const QString& s) {
  if (s.contains(',') || s.contains('"') || s.contains('\n') || s.contains('\r'))
    return '"' + QString(s).replace('"', "\"\"") + '"';
  return s;
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

QVector<Series> collectSeries(const QList<ChartBase*>& charts) {
  QVector<Series> all;
  for (ChartBase* c : charts) {
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

QByteArray seriesToCsv(const QVector<Series>& series) {
  QString out = QStringLiteral("chart,run_id,run,device,series,x,x_unit,y,unit,source,note\n");
  for (const Series& s : series) {
    const QString prefix = QStringLiteral("%1,%2,%3,%4,%5,")
                               .arg(csvField(s.chartId))
                               .arg(s.runId)
                               .arg(csvField(s.runName), csvField(s.deviceId), csvField(s.name));
    const QString suffix =
        QStringLiteral("%1,%2,%3\n").arg(csvField(s.yUnit), seriesSourceName(s.source), csvField(s.note));
    const auto n = std::max(s.x.size(), s.y.size());
    if (n == 0 && !s.note.isEmpty()) {
      out += prefix + QStringLiteral(",%1,,").arg(csvField(s.xUnit)) + suffix;
      continue;
    }
    for (qsizetype i = 0; i < n; ++i) {
      out += prefix + csvNumber(s.x.value(i, NAN)) + ',' + csvField(s.xUnit) + ',' +
             csvNumber(s.y.value(i, NAN)) + ',' + suffix;
    }
  }
  return out.toUtf8();
}

QByteArray seriesToJson(const QVector<Series>& series) {
  QJsonArray list;
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
    list.append(o);
  }
  QJsonObject root;
  root["format"] = QStringLiteral("accellab-series");
  root["version"] = 1;
  root["columns"] = QJsonArray{"x", "y"};
  root["series"] = list;
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

ExportResult exportSeriesCsv(const QList<ChartBase*>& charts, const QString& path) {
  return writeFileAtomically(path, seriesToCsv(collectSeries(charts)));
}

ExportResult exportSeriesJson(const QList<ChartBase*>& charts, const QString& path) {
  return writeFileAtomically(path, seriesToJson(collectSeries(charts)));
}

}  // namespace widgets
