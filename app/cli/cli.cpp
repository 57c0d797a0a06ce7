#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/printable_stream.h"
#include "core/util/error.h"
#include "core/util/version.h"

namespace app::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"train", "train a model for real on this CPU; one JSON line per epoch", cmdTrain, kTrainUsage},
      {"bench", "measure steady-state training images/s and GFLOP/s on this CPU", cmdBench, kBenchUsage},
      {"simulate", "predict step time, throughput, memory and cost on a device", cmdSimulate, kSimulateUsage},
      {"sweep", "simulate over lists of devices and batch sizes (JSON lines)", cmdSweep, kSweepUsage},
      {"plan", "the smallest device count that trains N tokens by a deadline or within a budget", cmdPlan,
       kPlanUsage},
      {"validate", "compare the simulator with published measurements (CSV)", cmdValidate, kValidateUsage},
      {"fit-stacks", "refit the software stacks' figures on published measurements", cmdFitStacks, kFitStacksUsage},
      {"models", "list the model zoo", cmdModels, kModelsUsage},
      {"datasets", "list the datasets", cmdDatasets, kDatasetsUsage},
      {"devices", "list the hardware catalog", cmdDevices, kDevicesUsage},
      {"stacks", "list the software stacks (what each one's figures are)", cmdStacks, kStacksUsage},
      {"export-script", "write the experiment as a runnable PyTorch job (train.py + README)", cmdExportScript,
       kExportScriptUsage},
      {"import-run", "a measured run's log beside the simulator's prediction", cmdImportRun, kImportRunUsage},
      {"calibrate", "fit a device's efficiency figures on your measured runs", cmdCalibrate, kCalibrateUsage},
      {"presets", "check: every preset's published comparisons against the simulator", cmdPresets, kPresetsUsage},
  };
  return table;
}

namespace {
void printHelp(std::ostream& out) {
  out << "Usage: accellab-cli COMMAND [options]\n\n"
      << "AccelLab trains models for real on this CPU and simulates the same training on CPUs,\n"
      << "GPUs and TPUs, with time, memory and cost. Output is JSON unless --format text.\n\n"
      << "Commands:\n";
  for (const auto& c : commands()) {
    std::string name = c.name;
    name.resize(14, ' ');
    out << "  " << name << c.summary << "\n";
  }
  out << "\nOptions:\n  --help      show this help (or `accellab-cli COMMAND --help`)\n"
      << "  --version   print the version\n\n"
      << "Examples:\n"
      << "  accellab-cli train --dataset fashion-mnist --model mlp --batch 128 --epochs 3 --format jsonl\n"
      << "  accellab-cli simulate --model resnet50 --dataset imagenet --device v100 --count 4 --batch 1024 --precision fp16\n";
}
}  // namespace

namespace {
int dispatch(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    printHelp(out);
    return argv.empty() ? 2 : 0;
  }
  if (argv[0] == "--version" || argv[0] == "-V") {
    out << "accellab-cli " << core::util::kVersion << "\n";
    return 0;
  }
  for (const auto& c : commands()) {
    if (argv[0] != c.name) continue;
    const CommandArgs rest(argv.begin() + 1, argv.end());
    for (const auto& a : rest)
      if (a == "--help" || a == "-h") {
        out << c.usage;
        return 0;
      }
    try {
      return c.run(rest, out, err);
    } catch (const core::util::Error& e) {
      err << "accellab-cli " << c.name << ": error: " << cliMessage(e) << "\n";
      return 2;
    } catch (const std::exception& e) {
      err << "accellab-cli " << c.name << ": internal error: " << e.what() << "\n";
      return 3;
    }
  }
  err << "accellab-cli: unknown command '" << argv[0] << "' (try --help)\n";
  return 2;
}
}  // namespace

int runCli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  // The output edge: every message may quote a file's bytes (an error, a warning, a device
  // name in a table), so all of it is shown through core::util::printable.
  PrintableStream shownOut(out), shownErr(err);
  const int rc = dispatch(argv, shownOut, shownErr);
  shownOut.flush();
  shownErr.flush();
  return rc;
}

}  // namespace app::cli
