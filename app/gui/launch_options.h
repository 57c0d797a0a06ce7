#pragma once
// The GUI's command line (for demos and for making slides in batch):
//   accellab [--preset ID] [--limit N] [--epochs E] [--run] [--export-dir DIR] [--quit-when-done]
//            [--allow-outside-data] [--measure-latency] [--theme light|dark] [--presentation]
//   accellab --import-run FILE.jsonl [--export-dir DIR] [--quit-when-done]
//   accellab --llm-planner ID [--export-dir DIR] [--quit-when-done]
//   accellab --list-presets | --help | --version
#include <QString>
#include <QStringList>
#include <optional>

namespace app::gui {

struct LaunchOptions {
  QString presetId;
  QString llmPresetId;  // --llm-planner: open the LLM planner with this LLM preset
  QString modelFile;    // --model: a config.json or model file, planned in the LLM planner
  QString importRun;    // --import-run: a measured run's log (or a reference CSV) to import
  std::optional<qint64> limit;
  std::optional<int> epochs;
  bool run = false;
  QString exportDir;
  bool quitWhenDone = false;
  bool measureLatency = false;   // --measure-latency: GUI-thread lateness while the run trains
  QString theme;                 // --theme light|dark (empty: the saved one)
  bool presentation = false;     // --presentation: start in presentation mode
  bool allowOutsideData = false; // --allow-outside-data: a scripted run may read a preset's path outside the data folders
  bool listPresets = false;
  bool help = false;
  bool version = false;
  bool scripted() const { return run || !exportDir.isEmpty() || quitWhenDone || !importRun.isEmpty(); }
};

// `arguments` as QCoreApplication::arguments() gives them (program name first, Qt's own
// options already removed). Throws core::util::Error naming the option and the value.
LaunchOptions parseLaunchOptions(const QStringList& arguments);
QString launchHelpText();

}  // namespace app::gui
