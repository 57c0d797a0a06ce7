#pragma once
// The run history on disk: every run of the runs list (settings, samples, device results,
// reference marks) as one JSON file, written atomically (QSaveFile) and read back at the
// next start. Runs that were still going when the file was written come back as stopped.
#include <QString>
#include <QStringList>
#include <vector>

#include "widgets/run_store.h"

namespace app::gui {

// <AppDataLocation>/runs.json
QString defaultRunHistoryPath();

std::string runsToJson(const std::vector<widgets::Run>& runs);
// Throws core::util::Error naming `source` and the key when the file as a whole is malformed;
// a single malformed run is skipped, its error (naming the key) added to `skipped`.
std::vector<widgets::Run> runsFromJson(const std::string& text, const QString& source, QStringList* skipped = nullptr);

// Atomic save; throws core::util::Error naming the path.
void saveRunHistory(const widgets::RunStore& store, const QString& path);
// Adds the file's runs to the store (ids are reassigned) and returns the runs it skipped
// (one error each). A missing file is no error. A file malformed as a whole is moved aside
// to "<path>.broken" and the error is thrown.
QStringList loadRunHistory(widgets::RunStore& store, const QString& path);

}  // namespace app::gui
