#include "core/sim/llm_validation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/nn/model_file.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/llm_simulator.h"
#include "core/util/csv.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace core::sim {

const char* const kLlmValidationRules =
    "Rules for calibration-llm.csv rows (each row is run as published; nothing is fitted per row):\n"
    "  model (an id, or a config.json / model file, relative to the table), device, count (GPUs,\n"
    "  or TPU boards of 4 or 8 chips), batch (global, sequences),\n"
    "  seq_len (empty: the model's own; a ViT's is its patches), precision (fp8 = fp8 matmuls,\n"
    "  bf16 elsewhere), stack, finetune (lora: rank 16 on q, k, v, o). The parallel plan is the\n"
    "  simulator's own choice (--parallel auto: the fastest plan that fits) unless the CSV has a\n"
    "  'parallel' column naming the plan that ran (calibration-gpu-single.csv: the whole batch\n"
    "  in one micro-batch); a plan a row's notes name is not used.\n"
    "Metrics: tokens_per_second and samples_per_second (whole system), step_seconds (the whole\n"
    "step; 'without the optimizer step' in the notes: forward + backward only), mfu (model FLOPs\n"
    "6 N + 12 L d T per token, against the dense peak of the precision).\n"
    "Error = |predicted - published| / published. Families: the device's generation.\n";

namespace {

using util::Error;

const std::vector<std::string> kColumns = {"id",    "model",     "dataset",  "device", "count",
                                           "batch", "seq_len",   "precision", "stack", "finetune",
                                           "metric", "value",    "notes",    "source"};

int positiveInt(const std::string& v, const std::string& where) {
  try {
    std::size_t used = 0;
    const long long x = std::stoll(v, &used);
    if (used == v.size() && x >= 1 && x <= (1LL << 30)) return static_cast<int>(x);
  } catch (const std::exception&) {
  }
  throw Error(where + ": '" + (v.size() <= 24 ? v : v.substr(0, 12) + "...") +
              "' is not a whole number from 1 to 1073741824");
}

}  // namespace

bool isLlmReferenceCsv(const std::string& text) {
  const std::string header = text.substr(0, text.find('\n'));
  return header.find("seq_len") != std::string::npos && header.find("finetune") != std::string::npos;
}

std::vector<LlmReferenceRow> parseLlmReferenceCsv(const std::string& text, const std::string& path) {
  std::vector<int> lines;
  const auto table = util::parseCsv(text, path, lines);
  if (table.empty()) throw Error(path + ": empty file (expected the header of calibration-llm.csv)");
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < table[0].size(); ++i) col[table[0][i]] = i;
  for (const auto& name : kColumns)
    if (!col.count(name)) throw Error(path + ":1: missing column '" + name + "'");
  std::vector<LlmReferenceRow> rows;
  for (std::size_t r = 1; r < table.size(); ++r) {
    const auto& f = table[r];
    const std::string at = path + ":" + std::to_string(lines[r]);
    if (f.size() != table[0].size())
      throw Error(at + ": " + std::to_string(f.size()) + " fields, the header has " + std::to_string(table[0].size()));
    auto field = [&](const char* name) { return f[col.at(name)]; };
    LlmReferenceRow row;
    row.line = lines[r];
    row.id = field("id");
    row.model = field("model");
    if (nn::looksLikeModelPath(row.model)) {
      // A model AccelLab does not ship: its config.json or model file, beside the table.
      std::filesystem::path file(row.model);
      if (file.is_relative()) file = std::filesystem::path(path).parent_path() / file;
      try {
        row.model = nn::resolveTransformer(file.string()).id;
      } catch (const Error& e) {
        throw Error(at + ": model: " + e.what());
      }
    }
    row.dataset = field("dataset");
    row.device = field("device");
    row.count = positiveInt(field("count"), at + ": count");
    row.batch = positiveInt(field("batch"), at + ": batch");
    row.seqLen = field("seq_len").empty() ? 0 : positiveInt(field("seq_len"), at + ": seq_len");
    const auto p = util::parsePrecision(field("precision"));
    if (!p) throw Error(at + ": precision: unknown precision '" + field("precision") + "' (fp32, tf32, fp16, bf16, fp8)");
    row.precision = *p;
    row.stack = field("stack");
    const std::string ft = field("finetune");
    if (ft != "" && ft != "lora") throw Error(at + ": finetune: '" + ft + "' must be empty or lora");
    row.lora = ft == "lora";
    row.metric = field("metric");
    if (row.metric != "tokens_per_second" && row.metric != "samples_per_second" && row.metric != "step_seconds" &&
        row.metric != "mfu")
      throw Error(at + ": metric: '" + row.metric + "' is not one of tokens_per_second, samples_per_second, "
                                                    "step_seconds, mfu");
    try {
      std::size_t used = 0;
      row.value = std::stod(field("value"), &used);
      if (used != field("value").size() || !std::isfinite(row.value) || row.value <= 0) throw std::exception();
    } catch (const std::exception&) {
      throw Error(at + ": value: '" + field("value") + "' is not a positive number");
    }
    row.notes = field("notes");
    row.source = field("source");
    if (col.count("parallel") && !field("parallel").empty()) {
      try {
        row.plan = parseParallelPlan(field("parallel"));
      } catch (const std::exception& e) {
        throw Error(at + ": parallel: " + e.what());
      }
      // Checked against the row's chips (count x the device's chips) when it is run.
      if (row.plan->chips() < row.count)
        throw Error(at + ": parallel: '" + field("parallel") + "' spans " + std::to_string(row.plan->chips()) +
                    " chips, fewer than the row's count " + std::to_string(row.count));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<LlmReferenceRow> readLlmReferenceCsv(const std::string& path) {
  return parseLlmReferenceCsv(util::readFile(path, util::kMaxReferenceCsvBytes), path);
}

std::string shippedLlmCalibrationCsv() {
  return (std::filesystem::path(util::resourceDir()) / "calibration" / "calibration-llm.csv").string();
}

SimConfig simConfigOf(const LlmReferenceRow& row) {
  SimConfig c;
  c.modelId = row.model;
  c.deviceId = row.device;
  c.stackId = row.stack;
  c.count = row.count;
  c.batch = row.batch;
  c.precision = row.precision;
  c.llm.seqLen = row.seqLen;
  c.llm.finetune = row.lora ? Finetune::Lora : Finetune::Full;
  c.llm.plan = row.plan;
  c.perLayer = false;
  return c;
}

LlmValidationResult validateLlmRows(const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks,
                                    const std::vector<LlmReferenceRow>& rows, const std::string& stackOverride) {
  LlmValidationResult v;
  for (const auto& row : rows) {
    LlmRowResult rr;
    rr.row = row;
    rr.stack = !stackOverride.empty() ? stackOverride : row.stack;  // until resolved (a refused row keeps it)
    try {
      const hw::DeviceSpec& d = devices.at(row.device);
      rr.family = hw::generationOf(d);
      // The plan that ran spans the row's chips (a TPU board is its chips).
      if (row.plan && row.plan->chips() != row.count * std::max(1, d.chipsPerDevice))
        throw Error(row.id + ": parallel: " + row.plan->text() + " spans " + std::to_string(row.plan->chips()) +
                    " chips; the row has " + std::to_string(row.count * std::max(1, d.chipsPerDevice)));
      const std::string stackId = !stackOverride.empty() ? stackOverride : row.stack;
      const hw::StackSpec& stack = stackId.empty() ? stacks.defaultFor(d.kind) : stacks.at(stackId);
      rr.stack = stack.id;
      const SimReport r = simulateLlm(simConfigOf(row), d, stack);
      const LlmPart& l = *r.llm;
      const double mfu = r.utilization;
      rr.plan = l.plan.text();
      rr.explanation = r.explanation;
      if (row.metric == "tokens_per_second") rr.predicted = l.tokensPerSecond;
      else if (row.metric == "samples_per_second") rr.predicted = r.imagesPerSecond;
      else if (row.metric == "mfu") rr.predicted = mfu;
      else if (row.notes.find("without the optimizer step") != std::string::npos)
        rr.predicted = r.stepSeconds - l.optimizerSeconds - l.stepOverheadSeconds;
      else rr.predicted = r.stepSeconds;
      rr.absPctError = std::abs(rr.predicted - row.value) / row.value * 100.0;
      rr.chips = l.chips;
      if (row.metric == "mfu") rr.publishedMfu = row.value;
      else if (row.metric == "step_seconds" && row.notes.find("without the optimizer step") == std::string::npos)
        rr.publishedMfu = mfu * rr.predicted / row.value;
      else if (row.metric != "step_seconds") rr.publishedMfu = mfu * row.value / rr.predicted;
      if (!r.fitsInMemory) {
        rr.ok = false;
        rr.error = "the simulator finds no plan that fits in memory (" + rr.plan + ")";
      }
    } catch (const std::exception& e) {
      rr.ok = false;
      rr.error = e.what();
    }
    if (!rr.ok) ++v.unsupported;
    v.rows.push_back(std::move(rr));
  }
  std::vector<SummaryRow> summary;
  for (const auto& r : v.rows) summary.push_back({r.family, r.stack, r.ok, false, r.absPctError});
  static_cast<ErrorSummary&>(v) = summariseErrors(summary, "all");
  return v;
}

}  // namespace core::sim
