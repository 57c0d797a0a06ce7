#include "core/bridge/run_log.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/bridge/torch_export.h"
#include "core/data/dataset_info.h"
#include "core/nn/model_file.h"
#include "core/nn/network.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/llm_workload.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace core::bridge {
namespace {

constexpr std::size_t kMaxRunLogLineBytes = std::size_t{64} << 10;

using util::Error;
using util::Json;

// One record (line) being read: every accessor names the file, the line and the field.
class Record {
public:
  Record(const Json& j, const std::string& path, int line) : m_j(j), m_path(path), m_line(line) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw Error(m_path + ":" + std::to_string(m_line) + ": " + (field.empty() ? "" : "field '" + field + "': ") + what);
  }
  const Json& get(const std::string& field) const {
    const Json* v = m_j.find(field);
    if (!v) fail(field, "missing in the '" + kind() + "' record");
    return *v;
  }
  double number(const std::string& field, double min = -1e300, double max = 1e300) const {
    const Json& v = get(field);
    if (!v.isNumber() || !std::isfinite(v.asNumber())) fail(field, "must be a finite number");
    if (v.asNumber() < min || v.asNumber() > max)
      fail(field, util::formatNumber(v.asNumber()) + " is outside [" + util::formatNumber(min) + ", " + util::formatNumber(max) + "]");
    return v.asNumber();
  }
  double numberOr(const std::string& field, double fallback) const { return m_j.contains(field) ? number(field) : fallback; }
  int integer(const std::string& field, int min, int max) const {
    const double v = number(field, min, max);
    if (v != std::floor(v)) fail(field, "must be a whole number");
    return static_cast<int>(v);
  }
  int integerOr(const std::string& field, int fallback, int min, int max) const {
    return m_j.contains(field) ? integer(field, min, max) : fallback;
  }
  std::string text(const std::string& field) const {
    const Json& v = get(field);
    if (!v.isString()) fail(field, "must be a string");
    return v.asString();
  }
  // Strings that may be null (torch.version.cuda on a CPU build).
  std::string textOrNull(const std::string& field) const {
    const Json* v = m_j.find(field);
    if (!v || v->isNull()) return {};
    if (!v->isString()) fail(field, "must be a string or null");
    return v->asString();
  }
  bool boolean(const std::string& field) const {
    const Json& v = get(field);
    if (!v.isBool()) fail(field, "must be true or false");
    return v.asBool();
  }
  std::string kind() const { return m_j.find("record") && m_j.at("record").isString() ? m_j.at("record").asString() : "?"; }
  const Json& json() const { return m_j; }
  const std::string& path() const { return m_path; }
  int line() const { return m_line; }

private:
  const Json& m_j;
  const std::string& m_path;
  int m_line;
};

// A transformer job's start record: its plan, fine-tuning, stack and the model itself.
void readTransformerJob(const Record& r, RunLog& log) {
  const Json* plan = r.json().find("plan");
  if (!plan) return;
  if (!plan->isObject()) r.fail("plan", "must be an object");
  // Read through the one plan parser (its keys, bounds and checks), as the CLI's --parallel is.
  const Record pr(*plan, r.path(), r.line());
  const std::string text = "dp=" + std::to_string(pr.integer("dp", 1, 1 << 20)) +
                           ",tp=" + std::to_string(pr.integer("tp", 1, 1 << 20)) +
                           ",pp=" + std::to_string(pr.integer("pp", 1, 1 << 20)) +
                           ",ep=" + std::to_string(pr.integerOr("ep", 1, 1, 1 << 20)) +
                           ",zero=" + std::to_string(pr.integer("zero", 0, 3)) + ",recompute=" + pr.text("recompute") +
                           ",microbatch=" + std::to_string(pr.integer("micro_batch", 1, 1 << 24));
  sim::ParallelPlan p;
  try {
    p = sim::parseParallelPlan(text);
  } catch (const Error& e) {
    r.fail("plan", e.what());
  }
  if (static_cast<long long>(p.dp) * p.tp * p.pp != log.deviceCount)
    r.fail("plan", "dp x tp x pp = " + std::to_string(p.chips()) + " processes, but device_count is " +
                       std::to_string(log.deviceCount));
  log.plan = p;
  const std::string finetune = r.text("finetune");
  if (finetune != "full" && finetune != "lora") r.fail("finetune", "'" + finetune + "' is not full or lora");
  log.finetune = finetune == "lora" ? sim::Finetune::Lora : sim::Finetune::Full;
  log.loraRank = r.integerOr("lora_rank", 0, 0, sim::kMaxLoraRank);
  if (log.finetune == sim::Finetune::Lora && log.loraRank < 1) r.fail("lora_rank", "a LoRA run needs a rank of at least 1");
  if (log.unit == "tokens" && log.seqLen < 1) r.fail("seq_len", "a transformer job's log states its sequence length");
  log.stackId = r.text("stack");
  log.compiled = r.boolean("compiled");
  log.totalParams = static_cast<std::int64_t>(r.number("total_params", 1, 1e15));
  // The model the job built, as AccelLab describes it, joins the known transformers: a known id
  // with the same dimensions is that model; other dimensions join under a new id ("-2"), and
  // the log is judged as the model it built.
  if (const Json* spec = r.json().find("model_spec")) {
    if (!spec->isObject()) r.fail("model_spec", "must be a model file's object");
    try {
      nn::TransformerSpec s = nn::transformerFromModelJson(*spec, r.path() + ":" + std::to_string(r.line()) + ": model_spec");
      nn::validate(s);
      log.model = nn::addImportedTransformer(std::move(s)).id;
    } catch (const Error& e) {
      r.fail("model_spec", e.what());
    }
  }
}

void readStart(const Record& r, RunLog& log) {
  if (r.text("format") != "accellab-run-log") r.fail("format", "is not \"accellab-run-log\"");
  const int version = r.integer("version", 1, 1000);
  if (version > kRunLogVersion)
    r.fail("version", std::to_string(version) + " is newer than this AccelLab reads (" + std::to_string(kRunLogVersion) + ")");
  log.model = r.text("model");
  log.dataset = r.text("dataset");
  log.batch = r.integer("batch", 1, 1 << 24);
  log.precision = r.text("precision");
  log.seed = static_cast<std::uint64_t>(r.number("seed", 0, 9007199254740992.0));
  log.params = static_cast<std::int64_t>(r.number("params", 1, 1e13));
  log.unit = r.text("unit");
  if (log.unit != "images" && log.unit != "tokens") r.fail("unit", "must be \"images\" or \"tokens\"");
  log.seqLen = r.integerOr("seq_len", 0, 0, 1 << 24);
  log.deviceType = r.text("device");
  if (log.deviceType != "cpu" && log.deviceType != "cuda") r.fail("device", "must be \"cpu\" or \"cuda\"");
  log.deviceName = r.text("device_name");
  log.deviceCount = r.integer("device_count", 1, 1 << 20);
  log.strategy = r.text("strategy");
  if (const Json* f = r.json().find("exported_for"); f && f->isObject()) {
    if (const Json* d = f->find("device"); d && d->isString()) log.exportedForDevice = d->asString();
    if (f->contains("count")) log.exportedForCount = Record(*f, r.path(), r.line()).integer("count", 1, 1 << 20);
  }
  log.torchVersion = r.text("torch");
  log.cudaVersion = r.textOrNull("cuda");
  log.hipVersion = r.textOrNull("hip");
  log.pythonVersion = r.textOrNull("python");
  log.started = r.textOrNull("started");
  log.threads = r.integerOr("threads", 0, 0, 1 << 16);
  readTransformerJob(r, log);
}

// The log's model must be the zoo's: known id, known dataset, the same trainable parameters.
// A transformer job's: its description's parameters (LoRA: the adapters').
void checkModel(const RunLog& log, const Record& start) {
  if (log.plan) {
    const nn::TransformerSpec* spec = nn::findTransformer(log.model);
    if (!spec) start.fail("model", "'" + log.model + "' is not a transformer AccelLab knows, and the log has no model_spec");
    const std::int64_t expected =
        log.finetune == sim::Finetune::Lora ? sim::loraParams(*spec, log.loraRank) : spec->params();
    if (expected != log.params)
      start.fail("params", std::to_string(log.params) + " trainable parameters, but AccelLab's " + log.model + " (" +
                               sim::finetuneName(log.finetune) + ") has " + std::to_string(expected) +
                               ": the log is of another model");
    return;
  }
  try {
    nn::modelInfo(log.model);
  } catch (const Error& e) {
    start.fail("model", e.what());
  }
  const data::DatasetInfo* info = nullptr;
  try {
    info = &data::datasetInfo(log.dataset);
  } catch (const Error& e) {
    start.fail("dataset", e.what());
  }
  nn::ModelInput in;
  in.shape = info->format == data::SampleFormat::TokenIds ? nn::Shape{1, 1, 1}
                                                          : nn::inputShapeFor(log.model, info->inputShape, info->resizedToModel);
  in.classes = info->classes;
  in.vocabulary = info->vocabulary;
  const std::int64_t expected = nn::buildModel(log.model, in)->paramCount();
  if (expected != log.params)
    start.fail("params", std::to_string(log.params) + " trainable parameters, but AccelLab's " + log.model + " on " +
                             log.dataset + " has " + std::to_string(expected) + ": the log is of another model");
}

}  // namespace

bool looksLikeRunLog(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos || text[begin] != '{') return false;
  const std::size_t end = text.find('\n', begin);
  try {
    const Json j = Json::parse(std::string_view(text).substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    const Json* r = j.find("record");
    return r && r->isString() && r->asString() == "start";
  } catch (const Error&) {
    return false;
  }
}

RunLog parseRunLog(const std::string& text, const std::string& path) {
  RunLog log;
  log.path = path;
  std::size_t pos = 0;
  int line = 0;
  bool started = false;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    const bool lastLine = end == std::string::npos;
    if (lastLine) end = text.size();
    std::string_view s(text.data() + pos, end - pos);
    pos = end + 1;
    ++line;
    if (s.size() > kMaxRunLogLineBytes)
      throw Error(path + ":" + std::to_string(line) + ": a line of " + std::to_string(s.size() >> 10) +
                  " KiB; a run log's records are a few hundred bytes (at most " + std::to_string(kMaxRunLogLineBytes >> 10) + " KiB)");
    if (s.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    Json j;
    try {
      j = Json::parse(s, path, util::JsonLimits{4096, 8});
    } catch (const Error& e) {
      throw Error(path + ":" + std::to_string(line) + ": " + (lastLine ? "truncated or broken JSON (the run may have been cut off): "
                                                                      : "broken JSON: ") + e.what());
    }
    if (!j.isObject()) throw Error(path + ":" + std::to_string(line) + ": a record must be a JSON object");
    const Record r(j, path, line);
    const std::string kind = r.text("record");
    if (!started) {
      if (kind != "start")
        throw Error(path + ":" + std::to_string(line) +
                    ": not an AccelLab run log: it must begin with a 'start' record (export one with accellab-cli export-script)");
      readStart(r, log);
      checkModel(log, r);
      started = true;
      continue;
    }
    if (kind == "step") {
      LoggedStep st;
      st.step = r.integer("step", 1, 1 << 30);
      st.epoch = r.integer("epoch", 0, 1 << 20);
      st.seconds = r.number("seconds", 0, 1e7);
      if (st.seconds <= 0) r.fail("seconds", "must be positive");
      // No device runs a training step (a kernel launch, at the least) in under a microsecond.
      if (st.seconds < kShortestStepSeconds)
        r.fail("seconds", util::formatNumber(st.seconds) + " s is shorter than any device's kernel launch (1 us): not a real step");
      st.samples = r.number("samples", 0, 1e12);
      if (st.samples > log.batch)
        r.fail("samples", util::formatNumber(st.samples) + " samples in one step, but the global batch is " +
                              std::to_string(log.batch));
      st.tokens = r.numberOr("tokens", 0);
      if (st.tokens < 0) r.fail("tokens", "must not be negative");
      if (log.unit == "tokens" && log.seqLen > 0 && std::abs(st.tokens - st.samples * log.seqLen) > 0.5)
        r.fail("tokens", util::formatNumber(st.tokens) + " tokens, but " + util::formatNumber(st.samples) + " sequences of " +
                             std::to_string(log.seqLen) + " are " + util::formatNumber(st.samples * log.seqLen));
      st.perSecond = r.number("per_second", 0, 1e15);
      const double units = log.unit == "tokens" ? st.tokens : st.samples;
      if (std::abs(st.perSecond * st.seconds - units) > 0.01 * units + 1e-9)
        r.fail("per_second", util::formatNumber(st.perSecond) + " " + log.unit + "/s, but " + util::formatNumber(units) +
                                 " in " + util::formatNumber(st.seconds) + " s is " + util::formatNumber(units / st.seconds));
      st.loss = r.json().find("loss") && r.json().at("loss").isNumber() ? r.json().at("loss").asNumber() : std::nan("");
      st.warmup = r.boolean("warmup");
      st.peakMemoryBytes = r.numberOr("peak_memory_bytes", 0);
      if (st.peakMemoryBytes < 0 || st.peakMemoryBytes > 1e15) r.fail("peak_memory_bytes", "must be between 0 and 10^15");
      if (!log.steps.empty() && st.step <= log.steps.back().step)
        r.fail("step", std::to_string(st.step) + " does not follow step " + std::to_string(log.steps.back().step));
      log.steps.push_back(st);
    } else if (kind == "epoch") {
      LoggedEpoch e;
      e.epoch = r.integer("epoch", 0, 1 << 20);
      e.seconds = r.number("seconds", 0, 1e9);
      e.samples = r.number("samples", 0, 1e13);
      e.trainLoss = r.numberOr("train_loss", std::nan(""));
      if (r.json().contains("test_accuracy")) e.testAccuracy = r.number("test_accuracy", 0, 1);
      log.epochs.push_back(e);
    } else if (kind == "eval") {
      LoggedEval e;
      e.step = r.integer("step", 1, 1 << 30);
      e.valLoss = r.number("val_loss", 0, 1e6);
      e.valBitsPerChar = r.number("val_bits_per_char", 0, 1e6);
      e.tokensPerSecond = r.number("tokens_per_second", 0, 1e15);
      if (const Json* sm = r.json().find("sample"); sm && sm->isString()) e.sample = sm->asString();
      log.evals.push_back(e);
    } else if (kind == "end") {
      log.finished = true;
      log.peakMemoryBytes = r.number("peak_memory_bytes", 0, 1e15);
      log.memoryKind = r.text("memory");
    } else if (kind == "error") {
      log.error = r.text("what");
    } else if (kind == "start") {
      r.fail("record", "a second 'start' record: two runs in one file");
    } else {
      r.fail("record", "'" + kind + "' is not one of start, step, epoch, eval, end, error");
    }
  }
  if (!started) throw Error(path + ": empty file: not an AccelLab run log");
  return log;
}

std::string noiseWarning(const SteadyState& ss) {
  if (!ss.noisy) return {};
  std::ostringstream s;
  s.precision(3);
  if (ss.bimodal)
    s << "two kinds of step: " << ss.fastSteps << " near " << ss.fastSeconds * 1e3 << " ms and " << ss.steps - ss.fastSteps
      << " near " << ss.slowSeconds * 1e3 << " ms (a busy machine, or the log mixes two runs); the median stands for neither";
  else
    s << "the steps spread " << ss.spread * 100 << "% of the median (10th to 90th percentile): a noisy machine";
  return s.str();
}

RunLog readRunLog(const std::string& path) { return parseRunLog(util::readFile(path, util::kMaxRunLogBytes), path); }

SteadyState steadyState(const RunLog& log) {
  if (log.steps.empty())
    throw Error(log.path + ": the log has no step records (run train.py for a few steps, e.g. --steps 30)");
  std::vector<double> seconds;
  double samples = 0, units = 0;
  int counted = 0;
  SteadyState ss;
  auto take = [&](bool includeWarmup) {
    for (const auto& s : log.steps)
      if (includeWarmup || !s.warmup) {
        if (!ss.firstStep) ss.firstStep = s.step;
        ss.lastStep = s.step;
        seconds.push_back(s.seconds);
        samples += s.samples;
        units += log.unit == "tokens" ? s.tokens : s.samples;
        ++counted;
      }
  };
  take(false);
  if (seconds.empty()) {  // every step was warm-up: the whole log's median
    ss.warmupOnly = true;
    take(true);
  }
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  ss.stepSeconds = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  ss.steps = counted;
  // How far the steps spread: the middle 80% around the median, and two clusters where the
  // sorted times jump by more than 2x with a tenth of the steps or more on each side.
  if (n >= 5) {
    const double p10 = seconds[n / 10], p90 = seconds[n - 1 - n / 10];
    ss.spread = (p90 - p10) / ss.stepSeconds;
    const std::size_t least = std::max<std::size_t>(1, n / 10);
    for (std::size_t i = least; i + least <= n; ++i)
      if (seconds[i] > 2 * seconds[i - 1]) {
        ss.bimodal = true;
        ss.fastSteps = static_cast<int>(i);
        ss.fastSeconds = seconds[(i - 1) / 2];
        ss.slowSeconds = seconds[i + (n - i) / 2];
        break;
      }
    ss.noisy = ss.bimodal || ss.spread > kNoisySpread;
  }
  const double samplesPerStep = samples / counted, unitsPerStep = units / counted;
  ss.samplesPerSecond = samplesPerStep / ss.stepSeconds;
  ss.perSecond = unitsPerStep / ss.stepSeconds;
  return ss;
}

}  // namespace core::bridge
