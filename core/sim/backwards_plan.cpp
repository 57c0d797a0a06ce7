#include "core/sim/backwards_plan.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/util/error.h"
#include "core/util/json.h"
#include "core/util/numbers.h"

namespace core::sim {
namespace {

std::string days(double seconds) { return util::formatNumber(std::round(seconds / 86400 * 10) / 10) + " days"; }
std::string usd(double v) { return "$" + util::groupedWhole(v); }

struct Trial {
  std::optional<SimReport> report;  // nullopt: no plan runs at this count
  std::string problem;              // why it does not meet the goal ("" = it does)
};

}  // namespace

BackwardsAnswer planBackwards(const SimConfig& base, const hw::DeviceSpec& device, const hw::StackSpec& stack,
                              const BackwardsGoal& goal) {
  if (!(goal.tokens > 0)) throw util::FieldError("tokens", "the tokens to train must be more than 0");
  if (!(goal.deadlineSeconds > 0) && !(goal.budgetUsd > 0))
    throw util::Error("a backwards plan needs a deadline (--days or --deadline) or a budget (--budget-usd), or both");
  if (goal.maxCount < 1) throw util::FieldError("max_count", "must be at least 1");
  BackwardsAnswer answer;
  const int node = std::max(1, device.devicesPerNode.value_or(1));
  std::optional<SimReport> closest;  // the count that came nearest the deadline (or budget)
  // For a budget no count meets: the cheapest count that fits (and, with a deadline, the fewest
  // that meet it), so the answer names a count worth knowing, not the last one tried.
  int cheapestCount = 0, onTimeCount = 0;
  double cheapestUsd = 0, onTimeUsd = 0;

  auto trial = [&](int count) {
    answer.countsTried.push_back(count);
    SimConfig c = base;
    c.count = count;
    c.llm.trainTokens = goal.tokens;
    c.perLayer = false;
    Trial t;
    try {
      t.report = simulateLlm(c, device, stack);
    } catch (const util::Error& e) {
      t.problem = e.what();
      return t;
    }
    const SimReport& r = *t.report;
    const LlmPart& l = *r.llm;
    if (!r.fitsInMemory) t.problem = "does not fit in memory";
    else if (goal.deadlineSeconds > 0 && l.timeToTokensSeconds > goal.deadlineSeconds)
      t.problem = "takes " + days(l.timeToTokensSeconds) + ", over the " + days(goal.deadlineSeconds);
    else if (goal.budgetUsd > 0 && !r.priceKnown)
      t.problem = "has no price (give yours with --usd-per-hour)";
    else if (goal.budgetUsd > 0 && l.usdToTokens > goal.budgetUsd)
      t.problem = "costs " + usd(l.usdToTokens) + ", over the " + usd(goal.budgetUsd) + " budget";
    if (r.fitsInMemory && (!closest || l.timeToTokensSeconds < closest->llm->timeToTokensSeconds)) closest = r;
    if (r.fitsInMemory && r.priceKnown && (!cheapestCount || l.usdToTokens < cheapestUsd))
      cheapestCount = count, cheapestUsd = l.usdToTokens;
    if (r.fitsInMemory && r.priceKnown && goal.deadlineSeconds > 0 && l.timeToTokensSeconds <= goal.deadlineSeconds &&
        (!onTimeCount || count < onTimeCount))
      onTimeCount = count, onTimeUsd = l.usdToTokens;
    return t;
  };

  // Doubling: the first count that meets the goal, and the last that did not before it.
  int lastFail = 0, firstMet = 0;
  std::string lastProblem;
  std::optional<SimReport> met;
  for (long long count = 1; count <= goal.maxCount; count *= 2) {
    Trial t = trial(static_cast<int>(count));
    if (t.problem.empty()) {
      firstMet = static_cast<int>(count);
      met = t.report;
      break;
    }
    lastFail = static_cast<int>(count);
    lastProblem = std::to_string(count) + " x " + device.id + " " + t.problem;
    // Over budget at a count that fits: more devices cost more (or as much), so stop.
    if (t.report && t.report->fitsInMemory && goal.budgetUsd > 0 && t.report->priceKnown &&
        t.report->llm->usdToTokens > goal.budgetUsd && !(goal.deadlineSeconds > 0))
      break;
  }
  // Doubling stepped past a --max-count that is not a power of two: try it too.
  if (!met && lastFail < goal.maxCount && lastFail * 2 > goal.maxCount) {
    Trial t = trial(goal.maxCount);
    if (t.problem.empty()) firstMet = goal.maxCount, met = t.report;
    else lastProblem = std::to_string(goal.maxCount) + " x " + device.id + " " + t.problem;
  }
  if (!met) {
    answer.why = "no count up to " + std::to_string(goal.maxCount) + " meets the goal";
    const std::string dev = " x " + device.id;
    if (goal.budgetUsd > 0 && onTimeCount)
      answer.why += "; the fewest that meet the deadline, " + std::to_string(onTimeCount) + dev + ", cost " + usd(onTimeUsd) +
                    ", over the " + usd(goal.budgetUsd) + " budget";
    else if (goal.budgetUsd > 0 && cheapestCount && cheapestUsd > goal.budgetUsd)
      answer.why += "; the cheapest that fits, " + std::to_string(cheapestCount) + dev + ", costs " + usd(cheapestUsd) +
                    ", over the " + usd(goal.budgetUsd) + " budget (more devices cost as much or more)";
    else if (!lastProblem.empty())
      answer.why += "; " + lastProblem;
    if (closest) answer.report = *closest, answer.hasReport = true;
    return answer;
  }
  // Bisection between the last failing and the first meeting count (whole nodes past one node).
  int lo = lastFail, hi = firstMet;
  const int step = lo >= node ? node : 1;
  while (hi - lo > step) {
    int mid = lo + (hi - lo) / 2;
    if (step > 1) mid = std::max(lo + step, mid / step * step);
    if (mid >= hi) break;
    Trial t = trial(mid);
    if (t.problem.empty()) hi = mid, met = t.report;
    else lo = mid;
  }
  answer.met = true;
  answer.count = hi;
  answer.report = *met;
  answer.hasReport = true;
  return answer;
}

}  // namespace core::sim
