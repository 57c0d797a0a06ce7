#pragma once
// The run history's texts for the app's runs (widgets::Run): each function converts to or from
// core's run record and calls its codec (core/experiment/run_record.h: the formats, their
// versions and readers live there, with no Qt, so the CLI and the fuzz targets read them too).
#include <QString>
#include <QStringList>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "widgets/run_store.h"

namespace app::gui {

// The history of runs.json (one file, before 2026-11): still read once, into the database.
std::string runsToJson(const std::vector<widgets::Run>& runs);
// Throws core::util::Error naming `source` and the key when the file as a whole is malformed;
// a single malformed run is skipped, its error (naming the key) added to `skipped`.
std::vector<widgets::Run> runsFromJson(const std::string& text, const QString& source, QStringList* skipped = nullptr);

// One run's file (the record_json of its database row), and back (throws core::util::Error
// naming `source` and the key).
std::string runFileJson(const widgets::Run& run);
widgets::Run runFromFile(const std::string& text, const QString& source);
// A run's journal file of earlier versions (the app ended during the run): the run,
// interrupted, with every finished epoch; a last line cut short is ignored (throws
// core::util::Error naming `source`:line). Its lines are the epoch rows of the database.
widgets::Run runFromJournal(const std::string& text, const QString& source);

// One finished epoch as a journal line: the epoch, the batch samples from `fromBatch` to the
// epoch's end (`*nextBatch` is set past them), each device's simulated seconds and a language
// model's text. nullopt when the run has no such epoch.
std::optional<std::string> epochLineJson(const widgets::Run& run, int epoch, std::size_t fromBatch, std::size_t* nextBatch);
// Adds one journal line to the run, all of it or nothing (throws core::util::Error naming
// `where`).
void applyEpochLine(widgets::Run& run, std::string_view line, const std::string& where);
// The status message of a run whose app ended during it.
QString interruptedMessage(std::size_t epochs);

}  // namespace app::gui
