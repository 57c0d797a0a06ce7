#pragma once
// All series of all visible runs as ONE tidy table (long format, one row per point):
//   chart,run_id,run,device,series,x,x_unit,y,unit,source,note[,model,dataset,subset,batch,...]
// source is measured | simulated | reference. Missing values are empty cells (CSV) or null
// (JSON); `note` says why ("out of memory", "no price"). Written atomically.
#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QVector>

#include "widgets/chart_export.h"
#include "widgets/series.h"

namespace widgets {

class RunStore;

// One CSV field (RFC 4180): quoted, with doubled quotes, when it holds a comma, a quote or a
// line break; as it is otherwise. Every CSV AccelLab's GUI writes escapes through this.
QString csvField(const QString& s);

QVector<Series> collectSeries(const QList<ChartFrame*>& charts);   // refreshes each first
template <std::derived_from<ChartFrame> Chart>
QVector<Series> collectSeries(const QList<Chart*>& charts) { return collectSeries(chartFrames(charts)); }

// With `store`, every row (CSV) and a "runs" list (JSON) carry how each run was made: model,
// dataset, subset, batch, epochs, optimizer and learning rate, precision, seed, and per device
// its count, stack and price.
QByteArray seriesToCsv(const QVector<Series>& series, const RunStore* store = nullptr);
// `extra`'s keys are added to the document's root (the app adds a preset's comparisons).
QByteArray seriesToJson(const QVector<Series>& series, const RunStore* store = nullptr, const QJsonObject& extra = {});
int seriesRowCount(const QVector<Series>& series);   // rows the CSV has (without header)

// With `utf8Bom` the file starts with a UTF-8 byte-order mark, so that spreadsheet programs
// which otherwise guess a legacy code page (Excel) read "×", "≈" and "µ" correctly.
// Run charts (ChartBase) carry their store's run configurations; other charts' rows have none.
ExportResult exportSeriesCsv(const QList<ChartFrame*>& charts, const QString& path, bool utf8Bom = false);
ExportResult exportSeriesJson(const QList<ChartFrame*>& charts, const QString& path, const QJsonObject& extra = {});
template <std::derived_from<ChartFrame> Chart>
ExportResult exportSeriesCsv(const QList<Chart*>& charts, const QString& path, bool utf8Bom = false) {
  return exportSeriesCsv(chartFrames(charts), path, utf8Bom);
}
template <std::derived_from<ChartFrame> Chart>
ExportResult exportSeriesJson(const QList<Chart*>& charts, const QString& path, const QJsonObject& extra = {}) {
  return exportSeriesJson(chartFrames(charts), path, extra);
}

}  // namespace widgets
