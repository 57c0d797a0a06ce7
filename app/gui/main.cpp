#include <QApplication>
#include <QDir>
#include <QStyle>
#include <QStyleFactory>
#include <QTimer>
#include <cstdio>
#include <cstring>

#include "app/gui/appearance.h"
#include "app/gui/console.h"
#include "app/gui/launch_options.h"
#include "app/gui/llm_planner_window.h"
#include "app/gui/main_window.h"
#include "app/gui/message_bar.h"
#include "app/gui/preset.h"
#include "app/gui/script_runner.h"
#include "core/nn/graph_model_file.h"
#include "core/nn/onnx_model.h"
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
  using app::gui::printError;
  QStringList args;
  for (int i = 0; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
  app::gui::LaunchOptions o;
  try {
    o = app::gui::parseLaunchOptions(args);
  } catch (const std::exception& e) {
    printError(QString::fromUtf8(e.what()));
    std::fprintf(stderr, "Try 'accellab --help'.\n");
    return 2;
  }
  if (o.help) {
    app::gui::printText(app::gui::launchHelpText());
  } else if (o.version) {
    std::printf("accellab %s\n", core::util::kVersion);
  } else {
    // Ids, titles and errors come from files: printFields/printError show them, never obey them.
    app::gui::PresetLibrary library;
    library.load();
    auto skipped = [](const QString& e) {
      printError(e.endsWith(QLatin1String("(skipped)")) ? e : QStringLiteral("skipped %1").arg(e));
    };
    for (const auto& p : library.presets())
      app::gui::printFields({p.id, p.title + (p.user ? QStringLiteral(" (yours)") : QString())});
    for (const auto& e : library.errors()) skipped(e);
    QStringList llmErrors;
    for (const auto& p : app::gui::LlmPlannerWindow::shippedPresets(&llmErrors)) {
      const QString id = QString::fromStdString(p.id);
      app::gui::printFields({id, QStringLiteral("%1 (LLM planner: accellab --llm-planner %2)").arg(QString::fromStdString(p.title), id)});
    }
    for (const auto& e : llmErrors) skipped(e);
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
    app::gui::printError(QString::fromUtf8(e.what()));
    std::fprintf(stderr, "Try 'accellab --help'.\n");
    return 2;
  }

  app::gui::MainWindow window;
  window.show();
  if (!options.theme.isEmpty())
    window.appearance()->setTheme(app::gui::Appearance::themeFromName(options.theme));
  if (options.presentation) window.appearance()->setPresentation(true);
  const std::string modelFile = options.modelFile.toStdString();
  const bool engineModel = core::nn::isOnnxPath(modelFile) || core::nn::isGraphModelPath(modelFile);
  if (engineModel && options.llmPresetId.isEmpty()) {  // a CNN to train: the main window's model list
    QTimer::singleShot(0, &window, [&window, options] {
      if (!window.openModel(options.modelFile)) {
        app::gui::printError(QStringLiteral("--model: %1").arg(window.messageBar()->text()));
        QApplication::exit(2);
      }
    });
  } else if (!options.llmPresetId.isEmpty() || !options.modelFile.isEmpty()) {
    QTimer::singleShot(0, &window, [&window, options] {
      app::gui::LlmPlannerWindow* planner = window.openLlmPlanner(options.llmPresetId);
      if (!planner) {
        const QString why = window.llmPlanner() ? window.llmPlanner()->presetError(options.llmPresetId) : QString();
        app::gui::printError(why.isEmpty() ? QStringLiteral("--llm-planner: no LLM preset '%1' (accellab --list-presets lists them)")
                                                 .arg(options.llmPresetId)
                                           : QStringLiteral("--llm-planner: %1").arg(why));
        QApplication::exit(2);
        return;
      }
      if (QString error; !options.modelFile.isEmpty() && !planner->openModel(options.modelFile, &error)) {
        app::gui::printError(QStringLiteral("--model: %1").arg(error));
        QApplication::exit(2);
        return;
      }
      if (!options.exportDir.isEmpty()) {
        QStringList errors;
        if (!planner->exportAll(options.exportDir, &errors)) {
          // Every file that could not be written is named.
          for (const QString& e : errors) app::gui::printError(QStringLiteral("--export-dir: %1").arg(e));
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
  else  // a person's first start: the tour, once (Help > Getting Started after)
    QTimer::singleShot(0, &window, [&window] { window.showGettingStartedOnce(); });
  return QApplication::exec();
}
