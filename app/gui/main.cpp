#include <QApplication>
#include <QDir>
#include <QStyle>
#include <QStyleFactory>
#include <QTimer>
#include <cstdio>
#include <cstring>

#include "app/gui/appearance.h"
#include "app/gui/launch_options.h"
#include "app/gui/llm_planner_window.h"
#include "app/gui/main_window.h"
#include "app/gui/preset.h"
#include "app/gui/script_runner.h"
#include "core/util/version.h"

namespace {

// Options answered without opening a window (no display needed).
bool wantsNoWindow(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* o : {"--list-presets", "--help", "-h", "--version", "-v"})
      if (std::strcmp(argv[i], o) == 0) return true;
  return false;
}

int answerWithoutWindow(int argc, char** argv) {
  QStringList args;
  for (int i = 0; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
  app::gui::LaunchOptions o;
  try {
    o = app::gui::parseLaunchOptions(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accellab: %s\nTry 'accellab --help'.\n", e.what());
    return 2;
  }
  if (o.help) {
    std::printf("%s", app::gui::launchHelpText().toLocal8Bit().constData());
  } else if (o.version) {
    std::printf("accellab %s\n", core::util::kVersion);
  } else {
    app::gui::PresetLibrary library;
    library.load();
    for (const auto& p : library.presets())
      std::printf("%s\t%s%s\n", p.id.toUtf8().constData(), p.title.toUtf8().constData(), p.user ? " (yours)" : "");
    for (const auto& e : library.errors()) std::fprintf(stderr, "accellab: skipped %s\n", e.toUtf8().constData());
    for (const auto& p : app::gui::LlmPlannerWindow::shippedPresets())
      std::printf("%s\t%s (LLM planner: accellab --llm-planner %s)\n", p.id.c_str(), p.title.c_str(), p.id.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (wantsNoWindow(argc, argv)) return answerWithoutWindow(argc, argv);

  QApplication app(argc, argv);
  QApplication::setApplicationName("AccelLab");
  QApplication::setOrganizationName("AccelLab");
  QApplication::setApplicationVersion(core::util::kVersion);
  QApplication::setDesktopFileName(core::util::kAppId);
  QApplication::setWindowIcon(QIcon(":/icons/accellab.svg"));
  if (QStyle* fusion = QStyleFactory::create("Fusion")) QApplication::setStyle(fusion);

  app::gui::LaunchOptions options;
  try {
    options = app::gui::parseLaunchOptions(QApplication::arguments());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accellab: %s\nTry 'accellab --help'.\n", e.what());
    return 2;
  }

  app::gui::MainWindow window;
  window.show();
  if (!options.theme.isEmpty())
    window.appearance()->setTheme(app::gui::Appearance::themeFromName(options.theme));
  if (options.presentation) window.appearance()->setPresentation(true);
  if (!options.llmPresetId.isEmpty()) {
    QTimer::singleShot(0, &window, [&window, options] {
      app::gui::LlmPlannerWindow* planner = window.openLlmPlanner(options.llmPresetId);
      if (!planner) {
        std::fprintf(stderr, "accellab: --llm-planner: no LLM preset '%s' (accellab --list-presets lists them)\n",
                     options.llmPresetId.toUtf8().constData());
        QApplication::exit(2);
        return;
      }
      if (!options.exportDir.isEmpty()) {
        QString error;
        if (!planner->exportAll(options.exportDir, &error) ||
            !planner->grab().save(QDir(options.exportDir).filePath("llm-window.png"))) {
          std::fprintf(stderr, "accellab: --export-dir: %s\n", error.toUtf8().constData());
          QApplication::exit(1);
          return;
        }
      }
      if (options.quitWhenDone) QApplication::exit(0);
    });
    return QApplication::exec();
  }
  app::gui::ScriptRunner script(&window, options);
  if (!options.presetId.isEmpty() || options.scripted() || options.limit || options.epochs)
    QTimer::singleShot(0, &script, &app::gui::ScriptRunner::start);
  return QApplication::exec();
}
