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

Json referenceMarkToJson(const widgets::ReferenceMark& m, const QString& source) {
  Json r = Json::object();
  r.set("chart", m.chart.toStdString());
  r.set("device", m.deviceId.toStdString());
  if (std::isfinite(m.x)) r.set("x", m.x);
  r.set("value", m.value);
  r.set("label", m.label.toStdString());
  if (!m.measures.isEmpty()) {
    r.set("measures", m.measures.toStdString());
    r.set("run_images", m.runImages);
  }
  if (!source.isEmpty()) r.set("source", source.toStdString());
  return r;
}

widgets::ReferenceMark referenceMarkFromJson(const JsonReader& in, QString* source) {
  widgets::ReferenceMark m;
  m.chart = QString::fromStdString(
      in.choice("chart", {"epoch_time", "throughput", "cost", "cost_per_million", "time_to_accuracy", "sweep"}));
  m.deviceId = QString::fromStdString(in.string("device"));
  m.x = in.has("x") ? in.number("x", -1e15, 1e15) : std::nan("");
  m.value = in.number("value", 0, 1e15);
  m.label = QString::fromStdString(in.string("label"));
  if (in.has("measures")) {
    const std::string what = in.choice("measures", {"steady", "whole_run"});
    if (what == "whole_run") {
      if (m.chart != "throughput") in.fail("measures", "\"whole_run\" is for a throughput figure (chart \"throughput\")");
      if (!in.has("run_images")) in.fail("run_images", "is missing: a whole run's average needs the images the run trained on");
      m.measures = QStringLiteral("whole_run");
      m.runImages = in.number("run_images", 1, 1e15);
    }
  }
  const QString s = QString::fromStdString(in.string("source", ""));
  if (source) *source = s;
  in.finish();
  return m;
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
