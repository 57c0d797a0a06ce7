#pragma once
// Every QAction of the main window, created in one place: theme icons with resource
// fallbacks, standard shortcuts (with explicit fallbacks where Qt 6.4 has none), status
// tips. Menus and tool bars only arrange them; controllers connect and enable them.
#include <QObject>

class QAction;
class QActionGroup;

namespace app::gui {

struct AppActions {
  // File
  QAction* openPreset = nullptr;
  QAction* openModel = nullptr;        // a Hugging Face config.json or a model file, into the LLM planner
  QAction* savePreset = nullptr;       // Save As… (a user preset)
  QAction* exportChart = nullptr;      // PNG / PDF / SVG, by the suffix chosen
  QAction* exportAllCharts = nullptr;  // one multi-page PDF
  QAction* exportCsv = nullptr;
  QAction* exportJson = nullptr;
  QAction* exportOptions = nullptr;    // size, dpi, font scale of chart exports
  QAction* quit = nullptr;
  // Edit
  QAction* copyChart = nullptr;
  QAction* preferences = nullptr;
  // View
  QActionGroup* themeGroup = nullptr;
  QAction* lightTheme = nullptr;
  QAction* darkTheme = nullptr;
  QAction* presentation = nullptr;
  QAction* showAllCharts = nullptr;
  QAction* resetLayout = nullptr;      // the panels as a first start has them, the window fitted to the screen
  // Hardware
  QAction* newDevice = nullptr;        // a device file from a form, starting from a catalog device
  QAction* remeasureHost = nullptr;    // this machine's GEMM and memory rates measured again
  QAction* editDevice = nullptr;       // one of the user's device files (built-in ones: read-only)
  // Run
  QAction* run = nullptr;
  QAction* pause = nullptr;            // checkable: checked while paused
  QAction* stop = nullptr;
  QAction* hideRun = nullptr;
  QAction* deleteRun = nullptr;
  QAction* clearRuns = nullptr;
  QAction* compareRuns = nullptr;
  // Help
  QAction* gettingStarted = nullptr;
  QAction* about = nullptr;
  QAction* accuracy = nullptr;
  QAction* aboutQt = nullptr;

  static AppActions create(QObject* parent);
};

}  // namespace app::gui
