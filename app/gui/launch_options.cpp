#include "app/gui/launch_options.h"

#include <QCommandLineParser>

#include "core/util/error.h"

namespace app::gui {
namespace {

struct Parser {
  QCommandLineParser parser;
  Parser() {
    parser.setApplicationDescription(
        QObject::tr("AccelLab: train on this CPU for real, simulate CPUs, GPUs and TPUs, compare time and cost."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addOptions({
        {"preset", QObject::tr("Load the preset ID (an id or a unique prefix such as e3)."), "ID"},
        {"limit", QObject::tr("Train on a subset of N images per epoch."), "N"},
        {"epochs", QObject::tr("Number of epochs."), "E"},
        {"run", QObject::tr("Start the run as soon as the window is open.")},
        {"export-dir", QObject::tr("When the run ends, write every chart (PNG, PDF, SVG), the data (CSV, JSON) and a "
                                   "screenshot of the window into DIR."), "DIR"},
        {"quit-when-done", QObject::tr("Quit when the run (and the export) is done; exit code 0 when it finished.")},
        {"allow-outside-data", QObject::tr("Let a scripted run read a folder the preset names outside the data folders "
                                           "(the shipped resources, your AccelLab folder, /usr/share/datasets, the "
                                           "fortunes); without it such a preset is refused.")},
        {"llm-planner", QObject::tr("Open the LLM training planner with the LLM preset ID (see --list-presets); with "
                                    "--export-dir, write its charts (PNG), results (CSV, JSON) and a screenshot there."),
         "ID"},
        {"model", QObject::tr("Open your own model: an ONNX graph or a CNN's layer-graph model file joins the model "
                              "list; a Hugging Face config.json or a transformer's model file opens in the LLM "
                              "training planner (with --llm-planner, in that preset's scenarios)."),
         "FILE"},
        {"import-run", QObject::tr("Import the log of an exported PyTorch job (File > Import measured run) when the "
                                   "window is open."),
         "FILE"},
        {"measure-latency", QObject::tr("While the run trains, time how late a 10 ms timer fires on the GUI thread and "
                                        "print p50/p99/max when it ends (the responsiveness benchmark).")},
        {"theme", QObject::tr("Window and chart theme: light or dark (kept, like View > Dark Theme)."), "NAME"},
        {"presentation", QObject::tr("Start in presentation mode (F11: full screen, large fonts, the set-up docks "
                                     "hidden)." )},
        {"list-presets", QObject::tr("Print the preset ids and titles (LLM presets too), then exit.")},
        {{"h", "help"}, QObject::tr("Show this help.")},
        {{"v", "version"}, QObject::tr("Show the version.")},
    });
  }
};

qint64 integerOption(const QCommandLineParser& p, const QString& name, qint64 min, qint64 max) {
  bool ok = false;
  const QString text = p.value(name);
  const qint64 v = text.toLongLong(&ok);
  if (!ok) throw core::util::Error(("--" + name + ": '" + text + "' is not a whole number").toStdString());
  if (v < min || v > max)
    throw core::util::Error(QStringLiteral("--%1: %2 is out of range [%3, %4]").arg(name).arg(v).arg(min).arg(max).toStdString());
  return v;
}

}  // namespace

LaunchOptions parseLaunchOptions(const QStringList& arguments) {
  Parser p;
  if (!p.parser.parse(arguments)) throw core::util::Error(p.parser.errorText().toStdString());
  if (!p.parser.positionalArguments().isEmpty())
    throw core::util::Error(("unexpected argument '" + p.parser.positionalArguments().first() + "'").toStdString());
  LaunchOptions o;
  o.presetId = p.parser.value("preset");
  if (p.parser.isSet("preset") && o.presetId.isEmpty()) throw core::util::Error("--preset: needs an id");
  o.llmPresetId = p.parser.value("llm-planner");
  if (p.parser.isSet("llm-planner") && o.llmPresetId.isEmpty()) throw core::util::Error("--llm-planner: needs an LLM preset id");
  if (!o.llmPresetId.isEmpty() && (!o.presetId.isEmpty() || p.parser.isSet("run")))
    throw core::util::Error("--llm-planner: not with --preset or --run (the planner simulates; it trains nothing)");
  o.modelFile = p.parser.value("model");
  if (p.parser.isSet("model") && o.modelFile.isEmpty()) throw core::util::Error("--model: needs a file");
  if (!o.modelFile.isEmpty() && (!o.presetId.isEmpty() || p.parser.isSet("run")))
    throw core::util::Error("--model: not with --preset or --run (your model is planned, not trained)");
  if (p.parser.isSet("limit")) o.limit = integerOption(p.parser, "limit", 1, 1'000'000'000);
  if (p.parser.isSet("epochs")) o.epochs = static_cast<int>(integerOption(p.parser, "epochs", 1, 100000));
  o.run = p.parser.isSet("run");
  o.importRun = p.parser.value("import-run");
  if (p.parser.isSet("import-run") && o.importRun.isEmpty()) throw core::util::Error("--import-run: needs a file");
  o.exportDir = p.parser.value("export-dir");
  if (p.parser.isSet("export-dir") && o.exportDir.isEmpty()) throw core::util::Error("--export-dir: needs a folder");
  o.quitWhenDone = p.parser.isSet("quit-when-done");
  o.allowOutsideData = p.parser.isSet("allow-outside-data");
  o.measureLatency = p.parser.isSet("measure-latency");
  o.theme = p.parser.value("theme");
  if (p.parser.isSet("theme") && o.theme != "light" && o.theme != "dark")
    throw core::util::Error(("--theme: '" + o.theme + "' is not light or dark").toStdString());
  o.presentation = p.parser.isSet("presentation");
  if (o.measureLatency && !o.run) throw core::util::Error("--measure-latency: needs --run (it measures while a run trains)");
  o.listPresets = p.parser.isSet("list-presets");
  o.help = p.parser.isSet("help");
  o.version = p.parser.isSet("version");
  return o;
}

QString launchHelpText() {
  QString text = Parser().parser.helpText();
  // Qt names the program from the running executable (or "<executable_name>" when there is
  // no application object: --help needs no display); the command is always accellab.
  const qsizetype end = text.indexOf(" [options]");
  if (text.startsWith("Usage: ") && end > 0) text.replace(7, end - 7, "accellab");
  return text;
}

}  // namespace app::gui
