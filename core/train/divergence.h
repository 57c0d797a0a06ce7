#pragma once
// CONTRACT: when a run has diverged. One rule for the CLI and the GUI (the trainer applies
// it): the loss is not finite, or it exceeds kFactor times the run's first loss for
// kConsecutive evaluations in a row (a loss of 1e10 at learning rate 10 is diverged, even
// while it stays finite). A single spike that recovers is not.
#include <cmath>
#include <cstdio>
#include <string>

namespace core::train {

class DivergenceWatch {
public:
  static constexpr double kFactor = 100;
  static constexpr int kConsecutive = 3;

  // Feeds one loss; returns an explanation when the run has diverged (empty otherwise).
  std::string observe(double loss) {
    if (!std::isfinite(loss)) return std::string("the loss became ") + (std::isnan(loss) ? "NaN" : "infinite");
    if (!(m_first > 0)) {
      m_first = loss;
      return {};
    }
    m_over = loss > kFactor * m_first ? m_over + 1 : 0;
    if (m_over < kConsecutive) return {};
    char text[160];
    std::snprintf(text, sizeof text, "the loss stayed above %g (100x its first value, %.4g) for %d evaluations in a row",
                  kFactor * m_first, m_first, kConsecutive);
    return text;
  }

private:
  double m_first = 0;
  int m_over = 0;
};

}  // namespace core::train
