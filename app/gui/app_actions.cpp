#include "app/gui/app_actions.h"

#include <QAction>
#include <QActionGroup>
#include <QIcon>
#include <QKeySequence>

namespace app::gui {
namespace {

// A theme icon, falling back to the one shipped in resources/icons.
QIcon icon(const char* themeName, const char* fallback) {
  return QIcon::fromTheme(QString::fromLatin1(themeName), QIcon(QStringLiteral(":/icons/%1.svg").arg(fallback)));
}

// The standard key where the platform has one, then an explicit fallback: Qt 6.4 has no
// binding for some standard keys on some desktops (SaveAs, Quit, Preferences).
QList<QKeySequence> keys(QKeySequence::StandardKey standard, const QKeySequence& fallback) {
  QList<QKeySequence> out = QKeySequence::keyBindings(standard);
  if (!out.contains(fallback)) out << fallback;
  return out;
}

QAction* make(QObject* parent, const QIcon& i, const QString& text, const QString& tip) {
  auto* a = new QAction(i, text, parent);
  a->setStatusTip(tip);
  a->setToolTip(tip);
  return a;
}

}  // namespace

AppActions AppActions::create(QObject* parent) {
  AppActions a;
  auto tr = [](const char* s) { return QObject::tr(s); };

  a.openPreset = make(parent, icon("document-open", "open"), tr("&Open Preset…"), tr("Load a preset file: settings, devices and published figures"));
  a.openPreset->setShortcuts(keys(QKeySequence::Open, QKeySequence(Qt::CTRL | Qt::Key_O)));
  a.openModel = make(parent, icon("document-open", "open"), tr("Open &Model…"),
                     tr("Your own model: an ONNX graph (.onnx) to train and simulate, or a transformer to "
                        "plan, a Hugging Face config.json or an AccelLab model file (you can also drop one on "
                        "the window)"));
  a.openModel->setObjectName("openModelAction");
  a.openModel->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
  a.savePreset = make(parent, icon("document-save-as", "save"), tr("&Save Set-up as Preset…"), tr("Save the current settings and devices as your own preset"));
  a.savePreset->setShortcuts(keys(QKeySequence::SaveAs, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)));
  a.exportChart = make(parent, icon("document-export", "export"), tr("&Export Chart…"), tr("Save the maximised (or first) chart as PNG, PDF or SVG"));
  a.exportChart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  a.exportAllCharts = make(parent, icon("application-pdf", "pdf"), tr("Export &All Charts (PDF)…"), tr("Every chart, one per page, in one PDF"));
  a.exportAllCharts->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
  a.exportCsv = make(parent, icon("text-csv", "table"), tr("Export Data as &CSV…"), tr("All series of all visible runs as one tidy CSV table"));
  a.exportJson = make(parent, icon("application-json", "table"), tr("Export Data as &JSON…"), tr("All series of all visible runs as JSON"));
  a.exportOptions = make(parent, icon("configure", "settings"), tr("Export &Options…"), tr("Size (px, cm or in), resolution and font size of exported charts; presets for slides and one- or two-column papers"));
  a.quit = make(parent, icon("application-exit", "quit"), tr("&Quit"), tr("Quit AccelLab (a running run is stopped first)"));
  a.quit->setShortcuts(keys(QKeySequence::Quit, QKeySequence(Qt::CTRL | Qt::Key_Q)));
  a.quit->setMenuRole(QAction::QuitRole);

  a.copyChart = make(parent, icon("edit-copy", "copy"), tr("&Copy Chart"), tr("Copy the maximised (or first) chart to the clipboard as an image"));
  a.copyChart->setShortcuts(keys(QKeySequence::Copy, QKeySequence(Qt::CTRL | Qt::Key_C)));
  a.copyChart->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  a.preferences = make(parent, icon("preferences-system", "settings"), tr("&Preferences…"), tr("Theme, export folder, presentation size"));
  a.preferences->setShortcuts(keys(QKeySequence::Preferences, QKeySequence(Qt::CTRL | Qt::Key_Comma)));
  a.preferences->setMenuRole(QAction::PreferencesRole);

  a.themeGroup = new QActionGroup(parent);
  a.lightTheme = make(parent, QIcon(), tr("&Light Theme"), tr("Light window and charts"));
  a.darkTheme = make(parent, QIcon(), tr("&Dark Theme"), tr("Dark window and charts"));
  for (QAction* t : {a.lightTheme, a.darkTheme}) {
    t->setCheckable(true);
    a.themeGroup->addAction(t);
  }
  a.lightTheme->setChecked(true);
  a.presentation = make(parent, icon("view-fullscreen", "fullscreen"), tr("&Presentation Mode"), tr("Full screen, larger fonts, configuration docks hidden (F11)"));
  a.presentation->setCheckable(true);
  a.presentation->setShortcuts(keys(QKeySequence::FullScreen, QKeySequence(Qt::Key_F11)));
  a.showAllCharts = make(parent, icon("view-grid", "grid"), tr("Show All &Charts"), tr("Leave the maximised chart and show every chart"));
  a.showAllCharts->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  a.resetLayout = make(parent, QIcon(), tr("&Reset Layout"),
                       tr("Put the panels back where a first start has them and fit the window to the screen"));
  a.resetLayout->setObjectName("resetLayoutAction");

  a.newDevice = make(parent, icon("list-add", "add-device"), tr("&New Device…"),
                     tr("Describe a device (GPU, TPU, CPU) in a form, starting from one in the catalog; it is saved as your own device file"));
  a.newDevice->setObjectName("newDeviceAction");
  a.editDevice = make(parent, icon("document-edit", "edit-device"), tr("&Edit Device…"),
                      tr("Change the figures of one of your device files (built-in devices are read-only: save them as a new id)"));
  a.editDevice->setObjectName("editDeviceAction");
  a.remeasureHost = make(parent, QIcon(), tr("Re-&measure This Machine"),
                         tr("Measure this machine's GEMM and memory rates again (about a second, best on an idle machine): "
                            "its predictions and the host check rest on them"));
  a.remeasureHost->setObjectName("remeasureHostAction");

  a.run = make(parent, icon("media-playback-start", "run"), tr("&Run"), tr("Train and simulate with the current settings (Ctrl+R)"));
  a.run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  a.pause = make(parent, icon("media-playback-pause", "pause"), tr("&Pause"), tr("Pause or resume the training (Space)"));
  a.pause->setCheckable(true);
  a.pause->setShortcut(QKeySequence(Qt::Key_Space));
  a.stop = make(parent, icon("media-playback-stop", "stop"), tr("&Stop"), tr("Stop the run within one batch (Esc)"));
  a.stop->setShortcut(QKeySequence(Qt::Key_Escape));
  // Run and Stop work whatever has focus (a spin box, the runs list, a floating dock); Space
  // keeps the window's context, so typing a space in a field never pauses.
  a.run->setShortcutContext(Qt::ApplicationShortcut);
  a.stop->setShortcutContext(Qt::ApplicationShortcut);
  a.hideRun = make(parent, icon("view-hidden", "hide"), tr("&Hide/Show Run"), tr("Hide the selected run on every chart, or show it again"));
  a.hideRun->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
  a.compareRuns = make(parent, icon("view-list-details", "table"), tr("&Compare Runs…"),
                       tr("The ticked runs side by side: settings, stack, devices, accuracy, time and cost, differences marked"));
  a.compareRuns->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
  a.deleteRun = make(parent, icon("edit-delete", "delete"), tr("&Delete Run"), tr("Delete the selected run from the list and the history"));
  a.deleteRun->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Delete));
  a.clearRuns = make(parent, icon("edit-clear-all", "delete"), tr("Delete &All Finished Runs"), tr("Empty the runs list (the active run stays)"));

  a.gettingStarted = make(parent, icon("help-contents", "about"), tr("&Getting Started"),
                          tr("A short, illustrated tour: a preset, a run, the charts, the hardware (F1)"));
  a.gettingStarted->setShortcut(QKeySequence::HelpContents);
  a.about = make(parent, icon("help-about", "about"), tr("&About AccelLab"), tr("Version, licence and where the figures come from"));
  a.about->setMenuRole(QAction::AboutRole);
  a.accuracy = make(parent, QIcon(), tr("How &accurate is this?"),
                    tr("The simulator's measured error on published measurements, per software stack and device"));
  a.aboutQt = make(parent, QIcon(), tr("About &Qt"), tr("Qt's version and licence"));
  a.aboutQt->setMenuRole(QAction::AboutQtRole);
  return a;
}

}  // namespace app::gui
