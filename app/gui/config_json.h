#pragma once
// The app's own JSON pieces: published reference marks (presets, run history) and the atomic
// write every data file goes through. An experiment's JSON is core/experiment/experiment_json.h.
#include <QString>
#include <string>

#include "core/experiment/preset.h"
#include "core/util/json.h"
#include "core/util/json_reader.h"
#include "widgets/run_store.h"

namespace app::gui {

using core::util::JsonReader;

// A published figure (core/experiment/preset.h, its one codec) as the charts' reference mark,
// and back.
widgets::ReferenceMark referenceMarkFromFigure(const core::experiment::PublishedFigure& figure);
core::experiment::PublishedFigure figureFromReferenceMark(const widgets::ReferenceMark& mark, const QString& source = {});

// A published reference figure: chart (one of the ids in run_store.h), device, x (absent =
// not applicable), value, label, and where it was published (`source`, may be empty).
core::util::Json referenceMarkToJson(const widgets::ReferenceMark& mark, const QString& source = {});
// Reads the keys above; `source` receives the "source" key when given.
widgets::ReferenceMark referenceMarkFromJson(const JsonReader& in, QString* source = nullptr);

// Writes `text` to `path` through core::util::writeFileAtomic (every byte and the size
// checked, fsync, rename), creating the folder; throws core::util::Error naming the path and
// what failed, and the old file is left as it was.
void writeTextFile(const QString& path, const std::string& text);

}  // namespace app::gui
