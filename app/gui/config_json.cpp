#include "app/gui/config_json.h"

#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/printable.h"

namespace app::gui {

using core::util::Json;

widgets::ReferenceMark referenceMarkFromFigure(const core::experiment::PublishedFigure& f) {
  return widgets::ReferenceMark(QString::fromStdString(f.chart), QString::fromStdString(f.deviceId), f.x, f.value,
                                QString::fromStdString(f.label), QString::fromStdString(f.measures), f.runImages);
}

core::experiment::PublishedFigure figureFromReferenceMark(const widgets::ReferenceMark& m, const QString& source) {
  core::experiment::PublishedFigure f;
  f.chart = m.chart.toStdString();
  f.deviceId = m.deviceId.toStdString();
  f.x = m.x;
  f.value = m.value;
  f.label = m.label.toStdString();
  f.measures = m.measures.toStdString();
  f.runImages = m.runImages;
  f.source = source.toStdString();
  return f;
}

Json referenceMarkToJson(const widgets::ReferenceMark& m, const QString& source) {
  return core::experiment::publishedFigureToJson(figureFromReferenceMark(m, source));
}

widgets::ReferenceMark referenceMarkFromJson(const JsonReader& in, QString* source) {
  const core::experiment::PublishedFigure f = core::experiment::publishedFigureFromJson(in);
  if (source) *source = QString::fromStdString(f.source);
  return referenceMarkFromFigure(f);
}

void writeTextFile(const QString& path, const std::string& text) {
  const QFileInfo info(path);
  if (!QDir().mkpath(info.absolutePath()))
    throw core::util::Error(core::util::printable(QFile::encodeName(path).toStdString(), false) +
                            ": cannot create the folder " +
                            core::util::printable(QFile::encodeName(info.absolutePath()).toStdString(), false));
  core::util::writeFileAtomic(QFile::encodeName(path).toStdString(), text);
}

}  // namespace app::gui
