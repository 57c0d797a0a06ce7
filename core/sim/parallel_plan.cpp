#include "core/sim/parallel_plan.h"

#include <charconv>
#include <set>

#include "core/util/error.h"

namespace core::sim {

std::optional<Recompute> parseRecompute(std::string_view name) {
  for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
    if (name == recomputeName(r)) return r;
  return std::nullopt;
}

const char* recomputeName(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "none";
}

const char* finetuneName(Finetune f) { return f == Finetune::Lora ? "lora" : "full"; }

std::string ParallelPlan::text() const {
  return "dp=" + std::to_string(dp) + ",tp=" + std::to_string(tp) + ",pp=" + std::to_string(pp) +
         ",ep=" + std::to_string(ep) + ",zero=" + std::to_string(zero) + ",recompute=" + recomputeName(recompute) +
         ",microbatch=" + std::to_string(microBatch);
}

std::string ParallelPlan::describe() const {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (tp > 1) add("tp=" + std::to_string(tp));
  if (pp > 1) add("pp=" + std::to_string(pp));
  add("dp=" + std::to_string(dp));
  if (ep > 1) add("ep=" + std::to_string(ep));
  if (zero == 3) add("ZeRO-3 (FSDP)");
  else if (zero > 0) add("ZeRO-" + std::to_string(zero));
  if (recompute != Recompute::None) add(std::string(recomputeName(recompute)) + " recompute");
  add("micro-batch " + std::to_string(microBatch));
  return out;
}

ParallelPlan parseParallelPlan(const std::string& text) {
  auto fail = [](const std::string& what) -> void { throw util::FieldError("parallel", what); };
  if (text.empty()) fail("is empty (give auto, or keys such as dp=8,tp=2,pp=1,zero=1)");
  ParallelPlan p;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      fail("'" + item + "' is not key=value (keys: dp, tp, pp, ep, zero, recompute, microbatch)");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (!seen.insert(key).second) fail(key + " is given twice");
    if (key == "recompute") {
      const auto r = parseRecompute(value);
      if (!r) fail("recompute=" + value + ": must be none, selective or full");
      p.recompute = *r;
      continue;
    }
    const int hi = key == "zero" ? 3 : 1 << 20;
    const int lo = key == "zero" ? 0 : 1;
    const std::string range = "must be between " + std::to_string(lo) + " and " + std::to_string(hi);
    const std::string shown =
        value.size() <= 24 ? value : value.substr(0, 12) + "... (" + std::to_string(value.size()) + " characters)";
    long long big = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), big);
    if (end != value.data() + value.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
      fail(key + "=" + shown + ": '" + shown + "' is not a whole number (" + range + ")");
    if (ec == std::errc::result_out_of_range || big < lo || big > hi)
      fail(key + "=" + shown + ": out of range, " + range);
    const int v = static_cast<int>(big);
    if (key == "dp") p.dp = v;
    else if (key == "tp") p.tp = v;
    else if (key == "pp") p.pp = v;
    else if (key == "ep") p.ep = v;
    else if (key == "zero") p.zero = v;
    else if (key == "microbatch") p.microBatch = v;
    else fail("unknown key '" + key + "' (keys: dp, tp, pp, ep, zero, recompute, microbatch)");
  }
  if (p.dp % p.ep != 0)
    fail("ep=" + std::to_string(p.ep) + " must divide dp=" + std::to_string(p.dp) +
         " (experts are sharded within the data-parallel group)");
  return p;
}

}  // namespace core::sim
